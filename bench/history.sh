#!/usr/bin/env bash
# The history index at scale: N (default 1,000) run directories, each a
# copy of the recorded fixture run (testdata/runs/small, analysed once
# for a real summary.json of every figure) with its own id, start time
# and figures (each scaled by 0.9–1.1), under one root; then times
# `cometlab history rebuild` over them (goal ≤ 60 s), `cometlab history`
# (the newest 50), `history trend committed_tps` and `gate`, and prints
# the index's size (goal ≤ 50 MB). Starts no node.
#
#   bench/history.sh [N]
#
# 2026-11-27, 2 shared cores (Intel Xeon), 1,000 runs (138 figures each):
# rebuild 2.1 s (2.3 s over a full index), the newest 50 in 0.05 s, all
# 1,000 as JSON 0.55 s, a trend 0.14 s, a gate 0.36 s; index 5.5 MB.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000}
WORK=$(mktemp -d /tmp/cometlab-history.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
go build -o "$WORK/cometlab" ./cmd/cometlab
export COMETLAB_HISTORY="$WORK/history.db"

# shellcheck source=bench/history-runs.sh
. bench/history-runs.sh
make_runs "$WORK/cometlab" "$WORK" "$N"

timed() {
	local t0 t1
	t0=$(date +%s.%N)
	"$@" >"$WORK/out" 2>"$WORK/err" || true
	t1=$(date +%s.%N)
	echo "$(echo "$t1 - $t0" | bc) s: ${*#"$WORK/"}"
}
timed "$WORK/cometlab" history rebuild --root "$WORK/runs"
cat "$WORK/out"
timed "$WORK/cometlab" history rebuild --root "$WORK/runs"
timed "$WORK/cometlab" history
timed "$WORK/cometlab" history --limit 0 --json
timed "$WORK/cometlab" history trend committed_tps
timed "$WORK/cometlab" gate
tail -n 4 "$WORK/out"
ls -l "$WORK"/history.db* | awk '{ s += $5 } END { printf "index: %.1f MB (history.db and its WAL)\n", s / 1e6 }'
