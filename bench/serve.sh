#!/usr/bin/env bash
# cometlab serve at scale: N (default 1,000) synthetic run directories
# (bench/history-runs.sh, bench/history.sh's generator: copies of the
# recorded fixture run with their figures scaled by 0.9–1.1; here every
# figure also 10 % lower from run 600 on and a new release every 100 runs,
# so that the trend has a change point and release tags), indexed; then
# starts `cometlab serve` on a free loopback port and times each page and
# API with curl (each 5 times after a first request; the median, in ms).
# Goal: every page ≤ 300 ms with 1,000 runs indexed. Starts no node.
#
#   bench/serve.sh [N]
#
# 2026-11-27, 2 shared cores (Intel Xeon), 1,000 runs, median (first) ms:
# runs 9 (12), all 1,000 runs 64 (58), their JSON 39, filtered 11, a run 6,
# a comparison 7 (66, kept after), a trend 46 (54), by release 63 (73), its
# SVG 37, change points 2 (91, kept until the index changes), every judged
# figure's 7 (422), qa 1, a file 1. The first load of every judged figure's
# change points is the one page over 300 ms: it reads 134,000 figures.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000}
WORK=$(mktemp -d /tmp/cometlab-serve.XXXXXX)
pid=""
cleanup() {
	if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
	rm -rf "$WORK"
}
trap cleanup EXIT
go build -o "$WORK/cometlab" ./cmd/cometlab
export COMETLAB_HISTORY="$WORK/history.db"

# shellcheck source=bench/history-runs.sh
. bench/history-runs.sh
SHIFT_AT=$((N * 6 / 10)) SHIFT=0.9 RELEASE_EVERY=$((N / 10)) make_runs "$WORK/cometlab" "$WORK" "$N"
"$WORK/cometlab" history rebuild --root "$WORK/runs"

"$WORK/cometlab" serve --listen 127.0.0.1:0 >"$WORK/serve.out" 2>"$WORK/serve.err" &
pid=$!
for _ in $(seq 100); do
	grep -q 'http://' "$WORK/serve.out" 2>/dev/null && break
	sleep 0.1
done
base=$(grep -o 'http://[0-9.:]*' "$WORK/serve.out")
echo "serving at $base"

first="$WORK/runs/r00000"
last="$WORK/runs/r$(printf %05d $((N - 1)))"
enc() { printf %s "$1" | jq -sRr @uri; }
pages=(
	"/runs"
	"/runs?limit=0"
	"/api/runs?limit=0"
	"/runs?release=v0.38.30&status=complete"
	"/run?dir=$(enc "$last")"
	"/compare?base=$(enc "$first")&cand=$(enc "$last")"
	"/trend?figure=committed_tps"
	"/trend?figure=block_latency_p50_ms&by=release"
	"/trend.svg?figure=committed_tps"
	"/changes"
	"/changes?figures=all"
	"/qa"
	"/file$last/summary.json"
)
printf '%-60s %8s %8s %6s\n' page "first ms" "median" status
for p in "${pages[@]}"; do
	t0=$(curl -s -o /dev/null -w '%{time_total}' "$base$p")
	times=()
	for _ in 1 2 3 4 5; do
		times+=("$(curl -s -o /dev/null -w '%{time_total}' "$base$p")")
	done
	code=$(curl -s -o /dev/null -w '%{http_code}' "$base$p")
	med=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 3p)
	printf '%-60s %8.0f %8.0f %6s\n' "$(printf %s "$p" | sed -e "s|$WORK|W|g" -e "s|$(enc "$WORK")|W|g")" "$(echo "$t0 * 1000" | bc)" "$(echo "$med * 1000" | bc)" "$code"
done
