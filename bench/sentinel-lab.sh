#!/usr/bin/env bash
# The experiment of issue 13 as cometlab runs it in the lab: every arm is one
# `cometlab run` of the default testnet whose manifest has [[load.client]]
# tables (and, for the sentinel arms, [sentinel]); each run's summary.json
# accounts for every client. The arms:
#
#   direct    the clients talk to validator01's RPC
#   sentinel  through the sentinel ([sentinel] with its defaults: fair
#             queues, pacing, 2,000 tx/s per client)
#   bucket    through the sentinel with pacing and fairness off and a
#             per-client token bucket at SAT tx/s ([sentinel] no_queue): the
#             proxyd/nginx baseline
#
# MODE=fair (the default): one greedy client (4 connections) at 10× SAT and
# four small clients at 2 % of SAT each. Per arm: goodput (committed tx/s
# of all clients over the load), the greedy and the smallest small client's
# committed share, refused (explicit), rejected (by the node) and missing
# (silent losses); at the end each kind's mean goodput and the sentinel's
# and the bucket's as % of the direct arms'.
#
# MODE=latency: one client of 2 connections at LAT tx/s in all (default 600,
# below saturation). Per arm: block and observed latency p50/p99; at the end
# each kind's means and what the sentinel adds.
#
#   flock /tmp/cometlab-nodes.lock bench/sentinel-lab.sh [T] [SAT]
#
# ARMS lists the arms in order (default for fair: "direct sentinel bucket
# direct sentinel bucket", alternating because a shared machine drifts; for
# latency: "direct sentinel direct sentinel"). REPORT=WORKDIR prints the
# figures of an earlier work directory again. Needs jq. T defaults to 60s,
# SAT (tx/s) to 1450; an arm takes about T + 40 s.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v jq >/dev/null || { echo "needs jq (apt-get install jq)" >&2; exit 2; }
T=${1:-60s}
SAT=${2:-1450}
MODE=${MODE:-fair}
LAT=${LAT:-600}
case $MODE in
fair) ARMS=${ARMS:-direct sentinel bucket direct sentinel bucket} ;;
latency) ARMS=${ARMS:-direct sentinel direct sentinel} ;;
*) echo "MODE=$MODE: want fair or latency" >&2; exit 2 ;;
esac
if [ -z "${REPORT:-}" ]; then
	WORK=$(mktemp -d /tmp/cometlab-sentinel-lab.XXXXXX)
	go build -o "$WORK/cometlab" ./cmd/cometlab
	echo "work directory: $WORK  (MODE=$MODE, T=$T, saturation $SAT tx/s, arms: $ARMS)"
else
	WORK=$REPORT
fi

# manifest KIND: the arm's manifest on stdout.
manifest() {
	local i
	printf '[load]\nduration = "%s"\n\n' "$T"
	if [ "$MODE" = latency ]; then
		printf '[[load.client]]\nname = "client"\nconnections = 2\nrate = %s\n\n' "$(awk -v r="$LAT" 'BEGIN{print r/2}')"
	else
		printf '[[load.client]]\nname = "greedy"\nconnections = 4\nrate = %s\n\n' "$(awk -v s="$SAT" 'BEGIN{print 10*s/4}')"
		for i in 1 2 3 4; do
			printf '[[load.client]]\nname = "small%d"\nrate = %s\n\n' "$i" "$(awk -v s="$SAT" 'BEGIN{print 0.02*s}')"
		done
	fi
	case $1 in
	sentinel) printf '[sentinel]\n' ;;
	bucket) printf '[sentinel]\nno_queue = true\nrate = %s\n' "$SAT" ;;
	esac
}

i=0
for kind in $ARMS; do
	i=$((i + 1))
	dir=$WORK/$i-$kind
	[ -n "${REPORT:-}" ] && continue
	manifest "$kind" > "$WORK/$i-$kind.toml"
	echo "== arm $i: $kind ($(date -u +%H:%M:%S))"
	"$WORK/cometlab" run --manifest "$WORK/$i-$kind.toml" --out "$dir" > "$dir.log" 2>&1 || echo "   run failed: see $dir.log"
done

echo
if [ "$MODE" = fair ]; then
	printf '%-3s %-9s %9s %9s %9s %9s %9s %9s\n' arm kind "goodput" "greedy %" "small %" refused rejected missing
else
	printf '%-3s %-9s %10s %10s %10s %10s\n' arm kind "block p50" "block p99" "obs p50" "obs p99"
fi
i=0
for kind in $ARMS; do
	i=$((i + 1))
	s=$WORK/$i-$kind/summary.json
	[ -f "$s" ] || { echo "$i   $kind: no summary.json"; continue; }
	if [ "$MODE" = fair ]; then
		jq -r --arg i "$i" --arg k "$kind" '
			(.clients | map(.committed_tps) | add) as $goodput
			| (.clients[0] | 100 * .committed_txs / .sent_txs) as $greedy
			| ([.clients[1:][] | 100 * .committed_txs / .sent_txs] | min) as $small
			| "\($i)\t\($k)\t\($goodput)\t\($greedy)\t\($small)\t\(.metrics.refused_txs // 0)\t\(.metrics.rejected_txs)\t\(.metrics.missing_txs)"' "$s" |
			awk -F'\t' '{printf "%-3s %-9s %9.0f %8.1f%% %8.1f%% %9d %9d %9d\n", $1, $2, $3, $4, $5, $6, $7, $8}'
	else
		jq -r --arg i "$i" --arg k "$kind" '"\($i)\t\($k)\t\(.metrics.block_latency_p50_ms)\t\(.metrics.block_latency_p99_ms)\t\(.metrics.observed_latency_p50_ms)\t\(.metrics.observed_latency_p99_ms)"' "$s" |
			awk -F'\t' '{printf "%-3s %-9s %10.1f %10.1f %10.1f %10.1f\n", $1, $2, $3, $4, $5, $6}'
	fi
done | tee "$WORK/figures.txt"

echo
if [ "$MODE" = fair ]; then
	awk '{n[$2]++; g[$2]+=$3} END {
		for (k in n) printf "mean goodput %-9s %7.0f tx/s over %d arms\n", k, g[k]/n[k], n[k]
		if (n["direct"] > 0) for (k in n) if (k != "direct") printf "%s ÷ direct: %.1f %%\n", k, 100*(g[k]/n[k])/(g["direct"]/n["direct"])
	}' "$WORK/figures.txt"
else
	awk '{n[$2]++; b50[$2]+=$3; b99[$2]+=$4; o50[$2]+=$5; o99[$2]+=$6} END {
		for (k in n) printf "mean %-9s block p50 %.1f p99 %.1f  observed p50 %.1f p99 %.1f ms\n", k, b50[k]/n[k], b99[k]/n[k], o50[k]/n[k], o99[k]/n[k]
		if (n["direct"] > 0 && n["sentinel"] > 0) printf "the sentinel adds: block p99 %+.1f ms, observed p99 %+.1f ms\n", b99["sentinel"]/n["sentinel"]-b99["direct"]/n["direct"], o99["sentinel"]/n["sentinel"]-o99["direct"]/n["direct"]
	}' "$WORK/figures.txt"
fi
