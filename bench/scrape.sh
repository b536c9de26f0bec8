#!/usr/bin/env bash
# Collector cost benchmark: what the run-time collectors cost cometlab itself
# — the Prometheus scrape of every node at 1 s and the /proc sampling of
# every node process. Runs `cometlab run` of the default 4-validator testnet
# three times:
#
#   none       --metrics none --no-resources   (heights watcher only)
#   scrape     --no-resources                  (metrics.csv at 1 s)
#   default    no flags                        (metrics.csv + resources.csv)
#
# and prints the cometlab process's own CPU (utime+stime, not its nodes'),
# read from /proc/<pid>/stat every 0.2 s, between the load start and the end
# of the run recorded in run.json (the collectors' whole life), and the
# difference to "none" as % of one core over that window. Goal: ≤ 1 %.
#
#   flock /tmp/cometlab-nodes.lock bench/scrape.sh [SECONDS]
#
# Default: 60 s of load (about 5 minutes in all). Other runs on the machine
# make the figures noisy: run it on a quiet machine, under the shared lock.
#
# Measured on the 2-core development VM (2026-11-21), what the adaptive
# data-directory walk of internal/collect costs (it waits 10,000 × the last
# walk's duration between walks): a fresh node's data directory walked in
# ~0.1 ms, so every second; after a few minutes of load, ~40 files, in
# ~0.3 ms, so every 3 s; ~600 MB of goleveldb index, ~330 files, in
# ~1.2 ms, so every 12 s. A CometBFT node exposed ~500 Prometheus lines, of
# which the default series (--metrics default) were ~15 %, most of the
# rest histogram buckets: only those lines reach the text parser.
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${1:-60}
WORK=$(mktemp -d /tmp/cometlab-scrape.XXXXXX)
go build -o "$WORK/cometlab" ./cmd/cometlab
HZ=$(getconf CLK_TCK)

# ns_of TIME: an RFC 3339 time of run.json as Unix nanoseconds.
ns_of() { date -d "$1" +%s%N; }

# one NAME FLAGS...: runs cometlab, polls its CPU ticks, prints
# "NAME cpu_seconds window_seconds".
one() {
  local name=$1
  shift
  local dir="$WORK/$name"
  "$WORK/cometlab" run -T "${SECS}s" --out "$dir" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" &
  local pid=$!
  local log="$WORK/$name.ticks"
  : >"$log"
  while kill -0 "$pid" 2>/dev/null; do
    if stat=$(cat "/proc/$pid/stat" 2>/dev/null); then
      echo "$(date +%s%N) $(echo "$stat" | awk '{print $14+$15}')" >>"$log"
    fi
    sleep 0.2
  done
  wait "$pid" || { echo "$name: cometlab run failed, see $WORK/$name.err" >&2; exit 1; }
  local start end
  start=$(ns_of "$(grep -o '"load_start": *"[^"]*"' "$dir/run.json" | sed 's/.*: *"//; s/"$//')")
  end=$(ns_of "$(grep -o '"ended": *"[^"]*"' "$dir/run.json" | sed 's/.*: *"//; s/"$//')")
  # CPU ticks at the last poll before start and the first poll after end.
  awk -v s="$start" -v e="$end" -v hz="$HZ" -v name="$name" '
    $1 <= s { t0 = $2 }
    $1 >= e && !done { t1 = $2; done = 1 }
    END { printf "%s %.2f %.2f\n", name, (t1 - t0) / hz, (e - s) / 1e9 }' "$log"
}

{
  one none --metrics none --no-resources
  one scrape --no-resources
  one default
} | tee "$WORK/figures.txt" | awk '
  { cpu[$1] = $2; win[$1] = $3; order[NR] = $1 }
  END {
    printf "%-8s %12s %10s %14s\n", "config", "cometlab CPU", "window", "vs none"
    for (i = 1; i <= NR; i++) {
      n = order[i]
      d = ""
      if (n != "none") d = sprintf("%+.2f %% core", (cpu[n] - cpu["none"]) / win[n] * 100)
      printf "%-8s %11.2fs %9.1fs %14s\n", n, cpu[n], win[n], d
    }
  }'
echo "runs and raw figures: $WORK"
