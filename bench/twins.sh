#!/usr/bin/env bash
# Twins: how often two processes holding one validator key get their
# conflicting votes committed as evidence. RUNS runs (default 6) of
# testdata/manifests/partition-twins.good.toml (4 validators of power 10,
# twin01 a twin of validator01, on the other side of a 5-s partition at
# 3 s) under 100 tx/s for DURATION (default 20s). Prints, per run, the
# evidence committed, the heights where validator01 proposed, the safety
# check and the partition's figures, then the share of runs with
# evidence. About 30 s per run.
#
#   flock /tmp/cometlab-nodes.lock bench/twins.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-6}
DURATION=${DURATION:-20s}
WORK=$(mktemp -d /tmp/cometlab-twins.XXXXXX)
go build -o "$WORK/cometlab" ./cmd/cometlab
echo "work directory: $WORK"

figure() { grep -o "\"$2\": *[-0-9.e+]*" "$1/summary.json" | head -1 | sed 's/.*: *//' | grep . || echo "—"; }
with=0
for i in $(seq 1 "$RUNS"); do
	d="$WORK/twins-$i"
	"$WORK/cometlab" run --manifest testdata/manifests/partition-twins.good.toml -r 100 -T "$DURATION" --out "$d" >"$d.out" 2>&1 || true
	ev=$(figure "$d" evidence_committed)
	heights=$(tail -n +2 "$d/evidence.csv" 2>/dev/null | cut -d, -f3 | sort -nu | tr '\n' ' ')
	echo "run $i: evidence_committed=$ev (at heights ${heights:-none}) blocks=$(figure "$d" blocks)" \
		"safety_violations=$(figure "$d" safety_violations) disagreeing_heights=$(figure "$d" disagreeing_heights)" \
		"partition_halted=$(figure "$d" partition_halted) partition_heights=$(figure "$d" partition_heights)" \
		"slow_heights_equivocation=$(figure "$d" slow_heights_equivocation)"
	[ "$ev" = "—" ] || [ "$ev" = 0 ] || with=$((with + 1))
done
echo "runs with evidence committed: $with of $RUNS"
