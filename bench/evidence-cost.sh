#!/usr/bin/env bash
# What the block autopsy's per-height evidence costs: N pairs (default 3)
# of runs of the default testnet overloaded at RATE tx/s (default 2,000,
# well above its ~1,100–1,450 tx/s saturation, so the committed rate is
# the saturation throughput) for 60 s, alternating the default collection
# with --commit-samples=false (no request to every node's mempool and no
# CPU sample at each of its commits: mempool.csv, commitcpu.csv). Prints
# each run's committed rate, block latency p50, the nodes' mean CPU and
# cometlab's own, then each mode's median and the difference of the
# medians of the committed rate (the goal: within run-to-run noise, ≤ 2 %).
#
#   flock /tmp/cometlab-nodes.lock bench/evidence-cost.sh [N] [RATE] [cometlab run flags…]
#
# About 75 s per run (2 × N runs). Run it on a quiet machine: the nodes
# are CPU-bound, and the pairs alternate so that a drift of the machine
# falls on both modes.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-3}
RATE=${2:-2000}
shift 2 || shift $# || true
WORK=$(mktemp -d /tmp/cometlab-evidence.XXXXXX)
go build -o "$WORK/cometlab" ./cmd/cometlab
echo "work directory: $WORK"

# metric DIR ID: one metric of the run's summary.json.
metric() { grep -o "\"$2\": *[-0-9.e+]*" "$1/summary.json" | head -1 | sed 's/.*: *//'; }

for i in $(seq 1 "$N"); do
	for mode in on off; do
		d="$WORK/$mode-$i"
		flags=()
		[ "$mode" = off ] && flags=(--commit-samples=false)
		"$WORK/cometlab" run -r "$RATE" -T 60s "${flags[@]}" "$@" --out "$d" > "$d.out" 2>&1 || true
		printf '%-3s %d: committed %7.1f tx/s  block latency p50 %6.0f ms  nodes CPU mean %5.1f %%  cometlab CPU mean %5.1f %% of a core\n' \
			"$mode" "$i" "$(metric "$d" committed_tps)" "$(metric "$d" block_latency_p50_ms)" \
			"$(metric "$d" cpu_mean_pct)" "$(metric "$d" harness_cpu_mean_pct)"
	done
done

# median MODE ID: the median over the mode's runs.
median() {
	for d in "$WORK/$1"-*/; do metric "$d" "$2"; done | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'
}
on=$(median on committed_tps) off=$(median off committed_tps)
printf 'medians: committed %.1f tx/s with the evidence, %.1f without (%+.1f %%); cometlab CPU %.1f vs %.1f %% of a core; nodes CPU %.1f vs %.1f %%\n' \
	"$on" "$off" "$(awk -v a="$on" -v b="$off" 'BEGIN{print 100*(a-b)/b}')" \
	"$(median on harness_cpu_mean_pct)" "$(median off harness_cpu_mean_pct)" "$(median on cpu_mean_pct)" "$(median off cpu_mean_pct)"
