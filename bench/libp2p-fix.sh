#!/usr/bin/env bash
# The libp2p fix as a known answer (issue 49): `cometlab ab` of v0.40.0 on
# go-libp2p (base) against v0.40.0 with
# testdata/patches/v0.40.0-libp2p-noblock-close.diff on go-libp2p
# (patched), with CometBFT's own p2p over TCP as a third side (tcp),
# REPEAT rounds each:
#
#   loopback  the default testnet (4 validators, kvstore) at RATE tx/s
#   zones     the same 4 validators in 4 AWS zones (N. Virginia,
#             Frankfurt, Tokyo, Sydney), ZONE_MBPS Mbit/s a link (0: delays
#             only)
#
# It prints, per case, side and round, the committed rate, block latency
# p50 and p95, the nodes' CPU and bytes sent per committed transaction,
# then the paired ratios patched ÷ base and tcp ÷ base of the committed
# rate with their 95 % t interval. ab labels the sides base, cand1
# (patched) and cand2 (tcp).
#
#   flock /tmp/cometlab-nodes.lock bench/libp2p-fix.sh [cometlab ab flags…]
#
# Environment: CASES ("loopback zones"), REPEAT (2), RATE (200), DURATION
# (30s), ZONE_MBPS (0), OUT (a temporary directory), COMETLAB (built from
# this tree). Each case is 3 × REPEAT runs of DURATION plus start-up and
# drain (the unpatched libp2p through the zones does not drain: its
# drain timeout, 60 s, counts).
set -euo pipefail
cd "$(dirname "$0")/.."

CASES=${CASES:-"loopback zones"}
REPEAT=${REPEAT:-2}
RATE=${RATE:-200}
DURATION=${DURATION:-30s}
ZONE_MBPS=${ZONE_MBPS:-0}
OUT=${OUT:-$(mktemp -d /tmp/cometlab-libp2pfix.XXXXXX)}
mkdir -p "$OUT"
BIN=${COMETLAB:-$OUT/cometlab}
if [ -z "${COMETLAB:-}" ]; then
	go build -o "$BIN" ./cmd/cometlab
fi
PATCH=$(pwd)/testdata/patches/v0.40.0-libp2p-noblock-close.diff
echo "directory: $OUT; cases $CASES; $REPEAT rounds; $RATE tx/s for $DURATION; zones at ${ZONE_MBPS} Mbit/s (0: no cap)"

# manifests CASE: base.toml, patched.toml and tcp.toml of a case in
# $OUT/CASE/.
manifests() {
	local d=$OUT/$1 zones=(N_Virginia Frankfurt Tokyo Sydney) i
	mkdir -p "$d"
	: >"$d/common.toml"
	if [ "$1" = zones ]; then
		printf '[zones]\nmatrix = "aws"\n' >>"$d/common.toml"
		[ "$ZONE_MBPS" != 0 ] && printf 'bandwidth_mbps = %s\n' "$ZONE_MBPS" >>"$d/common.toml"
		for i in 1 2 3 4; do
			printf '[node.validator%02d]\nmode = "validator"\nzone = "%s"\n' "$i" "${zones[$((i - 1))]}" >>"$d/common.toml"
		done
	fi
	{ printf 'cometbft_version = "v0.40.0"\nlibp2p = true\n'; cat "$d/common.toml"; } >"$d/base.toml"
	{ printf 'cometbft_version = "v0.40.0"\ncometbft_patches = ["%s"]\nlibp2p = true\n' "$PATCH"; cat "$d/common.toml"; } >"$d/patched.toml"
	{ printf 'cometbft_version = "v0.40.0"\nlibp2p = false\n'; cat "$d/common.toml"; } >"$d/tcp.toml"
}

# figure RUN ID: a figure of a run's summary.json ("" when absent).
figure() { jq -r --arg id "$2" '.metrics[$id] // empty' "$1/summary.json" 2>/dev/null || true; }

# shown RUN ID: the figure to one decimal ("—" when absent).
shown() {
	local v
	v=$(figure "$1" "$2")
	if [ -n "$v" ]; then printf '%.1f' "$v"; else printf '—'; fi
}

# shellcheck source=bench/ab-lib.sh
. bench/ab-lib.sh

for c in $CASES; do
	manifests "$c"
	ab="$OUT/ab-$c"
	s=$(date +%s)
	"$BIN" ab --repeat "$REPEAT" --order counterbalanced -T "$DURATION" -r "$RATE" --start-timeout 10m \
		--base "$OUT/$c/base.toml" --cand "$OUT/$c/patched.toml" --cand "$OUT/$c/tcp.toml" "$@" --out "$ab" \
		>"$ab.out" 2>"$ab.err" || true
	echo
	echo "== $c ($(($(date +%s) - s)) s wall)"
	if [ ! -f "$ab/ab.json" ]; then
		echo "no ab.json (see $ab.err: $(tail -1 "$ab.err"))"
		continue
	fi
	printf '%-10s %-5s %10s %10s %10s %8s %12s\n' side round "tx/s" "p50 ms" "p95 ms" "cpu %" "B sent/tx"
	mapfile -t labels < <(jq -r '.labels[]' "$ab/ab.json")
	n=$(jq '.pairs' "$ab/ab.json")
	for l in "${labels[@]}"; do
		for r in $(seq 1 "$n"); do
			d="$ab/runs/$(printf '%02d' "$r")-$l"
			printf '%-10s %-5s %10s %10s %10s %8s %12s\n' "$l" "$r" "$(shown "$d" committed_tps)" "$(shown "$d" block_latency_p50_ms)" \
				"$(shown "$d" block_latency_p95_ms)" "$(shown "$d" cpu_mean_pct)" "$(shown "$d" p2p_sent_bytes_per_tx)"
		done
	done
	for l in "${labels[@]:1}"; do
		echo "committed_tps $l ÷ base: $(ratios "$ab" committed_tps "$l" | interval)"
	done
done
