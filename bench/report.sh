#!/usr/bin/env bash
# Report benchmark: `cometlab report` on a synthetic run directory, wall
# time and peak RSS (GNU time), repeated. Issue 11's goal: 10,000,000
# transactions and 2 hours of metrics of 4 nodes in < 30 s and < 1 GB.
#
#   bench/report.sh [huge|large|default|nodes200] [REPEATS] [DIR]
#
# nodes200 is a 200-validator run (issue 27's goal: its report in < 10 s
# and < 500 MB): the default 100,000 transactions over 6 minutes, at most
# 50 peers a node, metrics scraped every 2 s (~370 MB of metrics.csv).
# Measured 2026-11-26 on the shared 2-core VM with a load average of
# 11 from other work: wall 6.3-10.8 s, user 3.75-3.98 s, peak RSS
# 138-145 MB; ~60 % of the CPU is reading metrics.csv (twice: the
# figures and the verdict), the 24 plots ~15 %.
#
# The run directory (~5 GB of CSV for huge, ~0.5 GB for large) is
# generated once into DIR (default /tmp/cometlab-bench-<size>) by
# internal/report's BenchmarkReport and reused on later calls; it never
# goes in the repository. No node is started, so no lock is taken.
#
# Measured 2026-11-23 on the shared 2-core VM (load average 5-6 from
# other work, so wall times are noisy; user time is steadier):
#   huge (10 M txs, 2.4 GB CSV): before streaming 24.1-25.7 s wall,
#     21.4-22.1 s user, 3.6-3.8 GB peak RSS; after 15.5-18.9 s wall,
#     9.1-10.0 s user, 182-192 MB.
#   large (1 M txs), before and after interleaved: before 2.51-2.99 s
#     wall, 491-514 MB; after 1.75-3.05 s wall (user 1.96-2.03 s against
#     2.86-3.08 s), 97-106 MB. With sent/replies/txs/metrics as .csv.gz
#     (gzip -1, 277 MB -> 43 MB): 2.47-2.65 s, 98-105 MB, same summary.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${1:-huge}
REPEATS=${2:-3}
DIR=${3:-/tmp/cometlab-bench-$SIZE}
FLAG=()
case $SIZE in
  huge) FLAG=(-huge) ;;
  large) FLAG=(-large) ;;
  default) ;;
  nodes200) FLAG=(-nodes 200) ;;
  *) echo "size: huge, large, default or nodes200" >&2; exit 2 ;;
esac
BIN=$(mktemp -d /tmp/cometlab-bench-bin.XXXXXX)
trap 'rm -rf "$BIN"' EXIT
go build -o "$BIN/cometlab" ./cmd/cometlab
if [ ! -f "$DIR/run.json" ]; then
  mkdir -p "$DIR"
  echo "generating $DIR ($SIZE)"
  go test -count 1 -timeout 60m -run '^TestBenchRun$' ./internal/report/ "${FLAG[@]}" -benchdir "$DIR" >/dev/null
fi
du -sh --apparent-size "$DIR"/*.csv* | tr '\n' ' '; echo
for i in $(seq "$REPEATS"); do
  /usr/bin/time -v "$BIN/cometlab" report "$DIR" 2>"$BIN/time" >/dev/null
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/{print $2}' "$BIN/time")
  rss=$(awk -F': ' '/Maximum resident set size/{printf "%.0f", $2/1024}' "$BIN/time")
  user=$(awk -F': ' '/User time/{print $2}' "$BIN/time")
  echo "report $SIZE run $i: wall $wall, user ${user}s, peak RSS ${rss} MB"
done
