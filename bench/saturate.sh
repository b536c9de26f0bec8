#!/usr/bin/env bash
# Saturation benchmark: the grid CometBFT's QA runs by hand against the
# automatic search, on the same manifest. Runs
#
#   cometlab sweep -c 1,2,4 -r 200,400,800,1600 -T 60s      (12 cells)
#   cometlab saturate   × N (default 3)
#
# and prints each one's wall time and result: the grid's saturation
# diagonal and the median committed rate of its saturated cells (the
# plateau of the latency–throughput curve, the knee), each search's
# saturation point and recommended load; then the searches' spread, their
# distance from the knee and their wall time as a share of the grid's.
# Goal: every search within ±10 % of the knee in at most a third of the
# grid's wall time.
#
#   flock /tmp/cometlab-nodes.lock bench/saturate.sh [N] [cometlab flags…]
#
# e.g. `bench/saturate.sh 3 --validators 3`. About 14 min for the grid and
# 4–5 min per search on a 2-core machine. The nodes are CPU-bound: run it on
# a quiet machine (nothing else compiling or running a testnet), under the
# shared lock.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-3}
shift || true
WORK=$(mktemp -d /tmp/cometlab-saturate.XXXXXX)
go build -o "$WORK/cometlab" ./cmd/cometlab
echo "work directory: $WORK"

# figure FILE ID: the value of one figure of sweep.json or saturate.json.
figure() { grep -o "\"$2\": *[0-9.]*" "$1" | head -1 | sed 's/.*: *//'; }

s=$(date +%s)
"$WORK/cometlab" sweep -c 1,2,4 -r 200,400,800,1600 -T 60s "$@" --out "$WORK/grid" > "$WORK/grid.out" 2> "$WORK/grid.err"
grid_wall=$(( $(date +%s) - s ))
knee=$(figure "$WORK/grid/sweep.json" saturated_tps)
diag=$(figure "$WORK/grid/sweep.json" saturation_diagonal_tps)
printf 'grid:   %4d s  diagonal %s tx/s, saturated cells commit a median %.0f tx/s (the knee)\n' "$grid_wall" "$diag" "$knee"

results=()
for i in $(seq 1 "$N"); do
	s=$(date +%s)
	"$WORK/cometlab" saturate "$@" --out "$WORK/search$i" > "$WORK/search$i.out" 2> "$WORK/search$i.err" || true
	wall=$(( $(date +%s) - s ))
	sat=$(figure "$WORK/search$i/saturate.json" saturation_tps)
	rec=$(figure "$WORK/search$i/saturate.json" recommended_tps)
	runs=$(grep -c '"verdict"' "$WORK/search$i/saturate.json" || true)
	printf 'search %d: %4d s (%.2f of the grid)  saturation %s tx/s (%+.1f %% of the knee), recommended %s tx/s, %s runs\n' \
		"$i" "$wall" "$(awk -v a="$wall" -v b="$grid_wall" 'BEGIN{print a/b}')" "${sat:-none}" \
		"$(awk -v a="${sat:-0}" -v k="$knee" 'BEGIN{print 100*(a-k)/k}')" "${rec:-none}" "$runs"
	results+=("${sat:-0}")
done
printf 'searches: min %s, max %s tx/s\n' "$(printf '%s\n' "${results[@]}" | sort -n | head -1)" "$(printf '%s\n' "${results[@]}" | sort -n | tail -1)"
