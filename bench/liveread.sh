#!/usr/bin/env bash
# What the live read-back costs (issue 11): runs of the default testnet
# with blocks read while the load runs (the default) and after it
# (--read-during-load=false), alternated so that drift of the host falls
# on both, at a rate at or above saturation. Prints per run the committed
# rate, block latency p99, and the mean CPU of the node read from
# (validator02, the first node that is not the target) and of the target.
#
#   bench/liveread.sh [RATE] [DURATION] [PAIRS] [DIR]
#
# Takes the node lock (/tmp/cometlab-nodes.lock) for each run.
set -euo pipefail
cd "$(dirname "$0")/.."
RATE=${1:-1700}
DUR=${2:-60s}
PAIRS=${3:-2}
DIR=${4:-$(mktemp -d /tmp/cometlab-liveread.XXXXXX)}
mkdir -p "$DIR"
BIN=$(mktemp -d /tmp/cometlab-bench-bin.XXXXXX)
trap 'rm -rf "$BIN"' EXIT
go build -o "$BIN/cometlab" ./cmd/cometlab
printf '%-14s %10s %10s %12s %14s %12s\n' run committed tx/s p99_ms cpu_reader_% cpu_target_%
for i in $(seq 1 "$PAIRS"); do
  for mode in live after; do
    live=true; [ "$mode" = after ] && live=false
    out="$DIR/$mode-$i"
    flock /tmp/cometlab-nodes.lock "$BIN/cometlab" run -r "$RATE" -T "$DUR" --read-during-load="$live" --out "$out" >"$out.log" 2>&1 || true
    s="$out/summary.json"
    printf '%-14s %10s %10.0f %12.0f %14.1f %12.1f\n' "$mode-$i" \
      "$(jq -r '.metrics.committed_txs' "$s")" "$(jq -r '.metrics.committed_tps' "$s")" \
      "$(jq -r '.metrics.block_latency_p99_ms' "$s")" \
      "$(jq -r '.nodes.validator02.cpu_mean_pct' "$s")" "$(jq -r '.nodes.validator01.cpu_mean_pct' "$s")"
  done
done
echo "runs in $DIR"
