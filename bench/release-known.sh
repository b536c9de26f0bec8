#!/usr/bin/env bash
# The release line's known answers (issue 37), as `cometlab ab` experiments
# on real nodes, REPEAT counterbalanced rounds each:
#
#   libp2p        CometBFT's p2p (TCP) against libp2p over QUIC, the default
#                 testnet (4 validators, v0.40.0, kvstore) at RATE tx/s
#   libp2p-zones  the same on 4 validators in 4 AWS zones with every link
#                 capped at ZONE_MBPS Mbit/s (TCP relays against UDP relays)
#   libp2p-zones-nocap  the same zones without a bandwidth cap (delays only)
#   mldsa         ed25519 against ML-DSA-65 validators (v0.40.0) on
#                 KEY_VALIDATORS validators at time scale KEY_SCALE (16
#                 validators at 200 tx/s in real time saturate 2 cores:
#                 measured 2026-11-28, latency p50 26 s on both sides)
#   dog           v2.0.0-rc1's mempool gossip with DOG off against on
#                 (CometBFT's defaults: target redundancy 1) on
#                 DOG_VALIDATORS validators in a mesh
#   dog8          the same on 8 validators (7 peers each: more redundancy to
#                 remove)
#
# It prints, per case and figure, the baseline's and the candidate's means
# over the rounds and the mean paired ratio (candidate ÷ baseline of the
# same round) with its 95 % t interval: block latency, interval, rounds,
# committed rate, the nodes' CPU, bytes sent per committed transaction (and
# by message type), block sizes. Block "overhead" is the whole block minus
# its transactions: the header and the last commit's signatures.
#
#   flock /tmp/cometlab-nodes.lock bench/release-known.sh [--smoke] [cometlab ab flags…]
#
# Environment: CASES (default "libp2p libp2p-zones mldsa dog dog8"), REPEAT
# (3), RATE (200), DURATION (60s), ZONE_MBPS (20), KEY_VALIDATORS (16),
# KEY_SCALE (4), DOG_VALIDATORS (4), OUT (default a temporary directory), COMETLAB
# (default: built from this tree). A case takes 2 × REPEAT runs of DURATION
# plus start-up and drain: about 10 minutes at the defaults, 20 for mldsa
# (KEY_SCALE × DURATION a run).
#
# --smoke runs one round of 5 s at 20 tx/s per case to check the script;
# its figures mean nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

SMOKE=0
if [ "${1:-}" = "--smoke" ]; then
	SMOKE=1
	shift
fi
CASES=${CASES:-"libp2p libp2p-zones mldsa dog dog8"}
REPEAT=${REPEAT:-3}
RATE=${RATE:-200}
DURATION=${DURATION:-60s}
ZONE_MBPS=${ZONE_MBPS:-20}
KEY_VALIDATORS=${KEY_VALIDATORS:-16}
KEY_SCALE=${KEY_SCALE:-4}
DOG_VALIDATORS=${DOG_VALIDATORS:-4}
if [ "$SMOKE" = 1 ]; then
	REPEAT=1 RATE=20 DURATION=5s KEY_VALIDATORS=4 KEY_SCALE=1
fi
OUT=${OUT:-$(mktemp -d /tmp/cometlab-releaseknown.XXXXXX)}
mkdir -p "$OUT"
BIN=${COMETLAB:-$OUT/cometlab}
if [ -z "${COMETLAB:-}" ]; then
	go build -o "$BIN" ./cmd/cometlab
fi
echo "directory: $OUT; cases $CASES; $REPEAT rounds; $RATE tx/s for $DURATION"

FIGURES="block_latency_p50_ms block_latency_p95_ms block_latency_p99_ms block_interval_mean_s rounds_max blocks_multi_round committed_tps cpu_mean_pct rss_mean_mib p2p_sent_bytes_per_tx p2p_sent_bytes_per_tx_txs p2p_sent_bytes_per_tx_block_part p2p_sent_bytes_per_tx_vote p2p_sent_bytes_per_tx_have_tx p2p_sent_bytes_per_tx_other block_size_mean_bytes block_whole_size_mean_bytes overhead"

# zones_manifest FILE: 4 validators in 4 AWS zones, links capped.
zones_manifest() {
	printf '[zones]\nmatrix = "aws"\n' >"$1"
	[ "$ZONE_MBPS" != 0 ] && printf 'bandwidth_mbps = %s\n' "$ZONE_MBPS" >>"$1"
	local zones=(N_Virginia Frankfurt Tokyo Sydney) i
	for i in 1 2 3 4; do
		printf '[node.validator%02d]\nzone = "%s"\n' "$i" "${zones[$((i - 1))]}" >>"$1"
	done
}

# case_flags CASE: the ab flags of a case (base and candidate specs last).
case_flags() {
	case "$1" in
	libp2p) echo "-r $RATE --base libp2p=false --cand libp2p=true" ;;
	libp2p-zones)
		zones_manifest "$OUT/zones.toml"
		echo "--manifest $OUT/zones.toml -r $RATE --base libp2p=false --cand libp2p=true"
		;;
	libp2p-zones-nocap)
		ZONE_MBPS=0 zones_manifest "$OUT/zones-nocap.toml"
		echo "--manifest $OUT/zones-nocap.toml -r $RATE --base libp2p=false --cand libp2p=true"
		;;
	mldsa) echo "--validators $KEY_VALIDATORS --time-scale $KEY_SCALE -r $RATE --base key_type=ed25519 --cand key_type=ml_dsa_65" ;;
	dog) echo "--cometbft-version v2.0.0-rc1 --validators $DOG_VALIDATORS -r $RATE --base dog=false --cand dog=true" ;;
	dog8) echo "--cometbft-version v2.0.0-rc1 --validators 8 -r $RATE --base dog=false --cand dog=true" ;;
	*) echo "unknown case $1" >&2 && return 1 ;;
	esac
}

# figure RUN ID: a figure of a run's summary.json ("" when absent);
# "overhead" is the whole block's mean size minus its transactions'.
figure() {
	if [ "$2" = overhead ]; then
		jq -r '(.metrics.block_whole_size_mean_bytes // null) as $w | (.metrics.block_size_mean_bytes // null) as $t
			| if $w == null or $t == null then empty else $w - $t end' "$1/summary.json" 2>/dev/null || true
		return
	fi
	jq -r --arg id "$2" '.metrics[$id] // empty' "$1/summary.json" 2>/dev/null || true
}

# side AB LABEL ID: the figure of LABEL's run in each round, one a line.
side() {
	local n r
	n=$(jq '.pairs' "$1/ab.json")
	for r in $(seq 1 "$n"); do figure "$1/runs/$(printf '%02d' "$r")-$2" "$3"; done
}

# mean: the mean of the numbers on stdin ("—" for none).
mean() { awk '{ s += $1 } END { if (NR) printf "%.4g", s / NR; else print "—" }'; }

# ratios and interval: bench/ab-lib.sh.
# shellcheck source=bench/ab-lib.sh
. bench/ab-lib.sh

for c in $CASES; do
	flags=$(case_flags "$c")
	ab="$OUT/ab-$c"
	s=$(date +%s)
	# shellcheck disable=SC2086 # the case's flags are words
	"$BIN" ab --repeat "$REPEAT" --order counterbalanced -T "$DURATION" --start-timeout 10m $flags "$@" --out "$ab" \
		>"$ab.out" 2>"$ab.err" || true
	echo
	echo "== $c ($flags; $(($(date +%s) - s)) s wall)"
	if [ ! -f "$ab/ab.json" ]; then
		echo "no ab.json (see $ab.err: $(tail -1 "$ab.err"))"
		continue
	fi
	cand=$(jq -r '.labels[1]' "$ab/ab.json") # "cand" (one candidate)
	printf '%-34s %12s %12s  %s\n' figure base cand "cand ÷ base, 95 % interval"
	for id in $FIGURES; do
		b=$(side "$ab" base "$id" | mean)
		k=$(side "$ab" "$cand" "$id" | mean)
		[ "$b" = "—" ] && [ "$k" = "—" ] && continue
		printf '%-34s %12s %12s  %s\n' "$id" "$b" "$k" "$(ratios "$ab" "$id" "$cand" | interval)"
	done
	grep -m1 -iE '^verdict|worse|better|no significant' "$ab.out" || true
done
