#!/usr/bin/env bash
# Sentinel flood benchmark (issue 13): one client floods `cometlab sentinel`
# with broadcast_tx_async at RATE requests/s (default 100,000) over 8
# websockets for T (default 60 s), in front of validator01 of a fresh default
# testnet, and the sentinel's resident memory (VmRSS of /proc/PID/status) is
# sampled every second: 5 s before, during, and 5 s after the flood. Arms:
#
#   limited   the default limits: the flood's token bucket (2,000/s, burst
#             200) refuses almost all of it (-32001)
#   open      --rate 0: no rate limit, the flood fills its own queue
#             (--client-queue 2,000) and is refused "client queue full"
#             (-32002) — the queue, not the bucket, bounds it
#
# Prints per arm: the flood's achieved request rate and its replies by kind
# (accepted, refused by JSON-RPC code, other, unanswered), the sentinel's
# RSS before / max during / after (MiB), its CPU over the flood, and its
# refusal counters. rss.csv (t_s,rss_kib) stays in the work directory.
#
#   flock /tmp/cometlab-nodes.lock bench/sentinel-flood.sh [T] [RATE]
#
# ARMS="limited open" by default. The flooder, the sentinel and the 4 nodes
# share the machine: the achieved rate is what one client could push, not
# the sentinel's ceiling; say so.
set -euo pipefail
cd "$(dirname "$0")/.."
T=${1:-60s}
RATE=${2:-100000}
ARMS=${ARMS:-limited open}
WORK=$(mktemp -d /tmp/cometlab-flood.XXXXXX)
go build -o "$WORK/cometlab" ./cmd/cometlab
go build -o "$WORK/flood" ./bench/flood
CL=$WORK/cometlab
HZ=$(getconf CLK_TCK)
echo "work directory: $WORK  (T=$T, $RATE requests/s, arms: $ARMS)"
"$CL" testnet up --dir "$WORK/testnet" > "$WORK/nodes.txt" 2> "$WORK/testnet.err"
trap '"$CL" testnet down "$WORK/testnet" > /dev/null 2>&1 || true' EXIT
RPC=$(awk '$1=="validator01"{print $4}' "$WORK/nodes.txt")

rss() { awk '/^VmRSS:/{print $2}' "/proc/$1/status" 2> /dev/null || echo 0; }
cpu() { awk '{print $14 + $15}' "/proc/$1/stat" 2> /dev/null || echo 0; }

for a in $ARMS; do
	dir=$WORK/$a
	mkdir -p "$dir"
	case $a in
	limited) flags=() ;;
	open) flags=(--rate 0) ;;
	*) echo "unknown arm $a (want limited or open)" >&2; exit 2 ;;
	esac
	"$CL" sentinel --upstream "$RPC" --listen 127.0.0.1:26667 --metrics 127.0.0.1:26668 \
		"${flags[@]}" 2> "$dir/sentinel.err" &
	pid=$!
	for _ in $(seq 50); do curl -sf http://127.0.0.1:26668/metrics > /dev/null && break; sleep 0.1; done
	echo "t_s,rss_kib" > "$dir/rss.csv"
	( s=0; while kill -0 "$pid" 2> /dev/null; do echo "$s,$(rss "$pid")" >> "$dir/rss.csv"; s=$((s + 1)); sleep 1; done ) &
	sampler=$!
	sleep 5
	c0=$(cpu "$pid"); t0=$(date +%s.%N)
	"$WORK/flood" -endpoint ws://127.0.0.1:26667/websocket -key flood -c 8 -r "$RATE" -T "$T" > "$dir/flood.out" 2>&1 || true
	c1=$(cpu "$pid"); t1=$(date +%s.%N)
	sleep 5
	curl -s http://127.0.0.1:26668/metrics | grep '^sentinel_' > "$dir/sentinel.metrics" || true
	kill -INT "$pid"; wait "$pid" || true
	kill "$sampler" 2> /dev/null || true; wait "$sampler" 2> /dev/null || true
	echo "$a:"
	tail -1 "$dir/flood.out" | sed 's/^/  /'
	awk -F, -v T="${T%s}" 'NR > 1 { r = $2 / 1024; if ($1 < 5) { before = r } else if ($1 <= 5 + T) { if (r > max) max = r; sum += r; n++ } last = r }
		END { printf "  sentinel RSS: %.1f MiB before, max %.1f MiB and mean %.1f MiB during the flood, %.1f MiB after\n", before, max, sum / n, last }' "$dir/rss.csv"
	awk -v c="$((c1 - c0))" -v hz="$HZ" -v t0="$t0" -v t1="$t1" 'BEGIN { printf "  sentinel CPU during the flood: %.0f %% of one core\n", 100 * c / hz / (t1 - t0) }'
	grep -E '^sentinel_(refused_total|admitted_total|forwarded_total|node_errors_total|lost_total)' "$dir/sentinel.metrics" | sed 's/^/  /' || true
done
