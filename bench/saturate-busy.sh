#!/usr/bin/env bash
# Saturation search on a quiet host and beside a CPU hog: N searches each
# way (default 3), with the default testnet, printing each one's answer, its
# ± and its wall time, and the steps it measured again because the host
# was busy. The hog is a shell busy loop on one core, bounded by `timeout`
# to the searches' time, started before and stopped after each busy search.
# Goal (issue "Numbers that hold"): ±5 % in every search, each within its
# budget, on the busy host as on the quiet one.
#
#   flock /tmp/cometlab-nodes.lock bench/saturate-busy.sh [N] [cometlab flags…]
#
# About 4–6 min per search on a 2-core machine; run it with nothing else
# busy (the quiet searches must be quiet).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-3}
shift || true
WORK=$(mktemp -d /tmp/cometlab-saturate-busy.XXXXXX)
go build -o "$WORK/cometlab" ./cmd/cometlab
echo "work directory: $WORK"

search() { # search NAME: one search, its line
  local name=$1 s
  shift
  s=$(date +%s)
  "$WORK/cometlab" saturate "$@" --out "$WORK/$name" > "$WORK/$name.out" 2> "$WORK/$name.err" || true
  local wall=$(( $(date +%s) - s ))
  local sat half steps again
  steps=$(grep -c '"n":' "$WORK/$name/saturate.json" || true)
  again=$(grep -c '"remeasured": true' "$WORK/$name/saturate.json" || true)
  printf '%-8s %4d s  %s steps, %s measured again: %s\n' "$name" "$wall" "$steps" "$again" \
    "$(grep -o '"summary": *"[^"]*"' "$WORK/$name/saturate.json" | tail -1 | sed 's/"summary": *//')"
}

for i in $(seq 1 "$N"); do
  search "quiet$i" "$@"
done
for i in $(seq 1 "$N"); do
  timeout 900 sh -c 'while :; do :; done' &
  hog=$!
  search "busy$i" "$@"
  kill "$hog" 2>/dev/null || true
  wait "$hog" 2>/dev/null || true
done
