#!/usr/bin/env bash
# Time-scaling validation (docs/timescale.md): does a testnet run k times
# slower than real time (time_scale = k) give the figures of real time? For
# each case below, one A/B experiment runs k = 1 (the baseline) and every k
# of SCALES as candidates, interleaved round by round (counterbalanced, as
# `cometlab ab` does, so that drift of the host falls on every side), with
# --allow-time-scale-mismatch:
#
#   default     the default testnet (4 validators) at RATE tx/s
#   zones       4 validators in 4 AWS zones, links capped at ZONE_MBPS Mbit/s
#   saturation  the default testnet near saturation, at SAT_RATE tx/s
#   kill        the default testnet, validator03 killed at 20 s for 10 s
#   partition   the default testnet split 50/50 at 20 s for 10 s
#   limiter     the default case, each k run twice: as scaled, and with
#               p2p.send_rate and recv_rate × k (their real-time values on
#               the host: CometBFT's rate limiter lets a burst of rate ×
#               100 ms of the host through at once, and that 100 ms is not
#               scaled; docs/timescale.md, Validation)
#
# (rates and times are the model's: at k the host sends RATE/k tx/s for k ×
# DURATION). It prints, per case and k, each figure's ratio to k = 1: the
# mean over the rounds of the paired ratio (candidate ÷ baseline of the same
# round) and its 95 % t interval; the method's criterion is 10 %. For the
# perturbations it prints the autopsy's causes and the recovery figures
# (liveness gap, catch-up; time to halt and recover) the same way, and the
# harness's CPU share of the nodes' (issue 39, part 5) beside each k.
#
#   flock /tmp/cometlab-nodes.lock bench/timescale.sh [--smoke] [cometlab ab flags…]
#
# Environment: SCALES (default "2 4 8"), CASES (default "default zones
# saturation kill partition"), REPEAT (rounds, default 5), RATE (200),
# SAT_RATE (the model rate near saturation on the host measured; default
# 1200, take `cometlab saturate`'s), DURATION (60s of the model), ZONE_MBPS
# (20), VALIDATORS (4; 8 and 16 where the host holds them at k = 1). A round
# takes the sum of the sides' runs: at the defaults about (1 + 2 + 4 + 8) ×
# 60 s of load plus start-up and drain, some 20 min a round and case.
#
# --smoke runs one tiny round (k = 1 and 2, the default case, 20 tx/s for
# 5 s) to check the script; its figures mean nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

SMOKE=0
if [ "${1:-}" = "--smoke" ]; then
	SMOKE=1
	shift
fi
SCALES=${SCALES:-"2 4 8"}
CASES=${CASES:-"default zones saturation kill partition"}
REPEAT=${REPEAT:-5}
RATE=${RATE:-200}
SAT_RATE=${SAT_RATE:-1200}
DURATION=${DURATION:-60s}
ZONE_MBPS=${ZONE_MBPS:-20}
VALIDATORS=${VALIDATORS:-4}
if [ "$SMOKE" = 1 ]; then
	SCALES=2 CASES=default REPEAT=1 RATE=20 DURATION=5s
fi
WORK=$(mktemp -d /tmp/cometlab-timescale.XXXXXX)
go build -o "$WORK/cometlab" ./cmd/cometlab
echo "work directory: $WORK; scales 1 $SCALES; cases $CASES; $REPEAT rounds; model load $RATE tx/s for $DURATION"

# The figures compared, with the criterion's 10 %.
FIGURES="block_latency_p50_ms block_latency_p95_ms block_interval_mean_s rounds_max blocks_multi_round committed_tps throughput_ratio"
PERTURB_FIGURES="slow_heights slow_heights_perturbation slow_heights_node_lagging slow_heights_proposer_absent slow_heights_unexplained"

# zones_manifest FILE: VALIDATORS validators spread over four AWS zones.
zones_manifest() {
	local zones=(N_Virginia Frankfurt Tokyo Sydney)
	printf '[zones]\nmatrix = "aws"\nbandwidth_mbps = %s\n' "$ZONE_MBPS" > "$1"
	for i in $(seq 1 "$VALIDATORS"); do
		printf '[node.validator%02d]\nzone = "%s"\n' "$i" "${zones[$(( (i - 1) % 4 ))]}" >> "$1"
	done
}

# case_flags CASE: the ab flags of a case (manifest, rate, perturbation).
case_flags() {
	local net=(--validators "$VALIDATORS")
	case "$1" in
	default) echo "${net[*]} -r $RATE" ;;
	zones)
		zones_manifest "$WORK/zones.toml"
		echo "--manifest $WORK/zones.toml -r $RATE"
		;;
	saturation) echo "${net[*]} -r $SAT_RATE" ;;
	kill) echo "${net[*]} -r $RATE --perturb validator03:kill@20s,down=10s" ;;
	partition) echo "${net[*]} -r $RATE --partition 50/50@20s,duration=10s" ;;
	limiter) echo "${net[*]} -r $RATE" ;;
	*) echo "unknown case $1" >&2 && return 1 ;;
	esac
}

# figure RUN ID: a figure of a run's summary.json, "" when absent; a
# perturbation's figures are summed over the run's perturbations.
figure() {
	jq -r --arg id "$2" '(.metrics[$id] // ([.perturbations[]?.figures[$id] // empty] | if length > 0 then add else null end)) // empty' "$1/summary.json" 2>/dev/null || true
}

# ratios and interval: bench/ab-lib.sh.
# shellcheck source=bench/ab-lib.sh
. bench/ab-lib.sh

# harness_share AB LABEL: cometlab's CPU over the nodes' (mean of the
# rounds), %: harness_cpu_mean_pct ÷ (cpu_mean_pct × nodes).
harness_share() {
	local ab=$1 label=$2 n
	n=$(jq '.pairs' "$ab/ab.json")
	for r in $(seq 1 "$n"); do
		local d h c k
		d="$ab/runs/$(printf '%02d' "$r")-$label"
		h=$(figure "$d" harness_cpu_mean_pct)
		c=$(figure "$d" cpu_mean_pct)
		k=$(jq '.nodes | length' "$d/run.json" 2>/dev/null || echo 0)
		[ -n "$h" ] && [ -n "$c" ] && awk -v h="$h" -v c="$c" -v k="$k" 'BEGIN { if (c * k > 0) printf "%.6f\n", 100 * h / (c * k) }'
	done | awk '{ s += $1 } END { if (NR) printf "%.1f %%", s / NR; else print "—" }'
}

for case in $CASES; do
	flags=$(case_flags "$case")
	ab="$WORK/ab-$case"
	cands=()
	names=()
	for k in $SCALES; do
		cands+=(--cand "time_scale=$k")
		names+=("k = $k")
		if [ "$case" = limiter ]; then
			# The same k with CometBFT's rate limits given back their real-time
			# values (5,120,000 B/s each, the default; cometlab divides by k).
			cands+=(--cand "time_scale=$k p2p.send_rate=$((5120000 * k)) p2p.recv_rate=$((5120000 * k))")
			names+=("k = $k, rates ×$k")
		fi
	done
	s=$(date +%s)
	# shellcheck disable=SC2086 # the case's flags are words
	"$WORK/cometlab" ab --base "time_scale=1" "${cands[@]}" --repeat "$REPEAT" --order counterbalanced \
		--allow-time-scale-mismatch -T "$DURATION" --start-timeout 10m $flags "$@" --out "$ab" \
		> "$ab.out" 2> "$ab.err" || true
	echo
	echo "== $case ($flags; $(( $(date +%s) - s )) s wall)"
	if [ ! -f "$ab/ab.json" ]; then
		echo "no ab.json (see $ab.err: $(tail -1 "$ab.err"))"
		continue
	fi
	labels=$(jq -r '.labels[1:][]' "$ab/ab.json")
	figs=$FIGURES
	case "$case" in kill | partition) figs="$FIGURES $PERTURB_FIGURES liveness_gap_s catch_up_s partition_halt_s partition_recover_s" ;; esac
	header=$(printf '%-28s' figure)
	for name in "${names[@]}"; do header+=$(printf '  %-26s' "$name ÷ k = 1"); done
	echo "$header"
	for id in $figs; do
		row=$(printf '%-28s' "$id")
		for label in $labels; do row+=$(printf '  %-26s' "$(ratios "$ab" "$id" "$label" | interval)"); done
		echo "$row"
	done
	row=$(printf '%-28s' "harness CPU of the nodes'")
	row+=" k = 1: $(harness_share "$ab" base)"
	i=0
	for label in $labels; do
		row+="; ${names[$i]}: $(harness_share "$ab" "$label")"
		i=$((i + 1))
	done
	echo "$row"
done
