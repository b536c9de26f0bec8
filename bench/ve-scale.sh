#!/usr/bin/env bash
# The vote-extension blow-up at scale (issue 39, part 6): the v0.38 QA
# report swept the e2e app's vote extensions from 0 to 32 KiB at 175
# validators and saw block latency go from under 5 s to about 10 s and
# rounds up to 5. This runs the same sweep on the largest validator set this
# machine holds, scaled in time:
#
#   cometlab sweep --app e2e --validators N --time-scale K -r RATE -T DURATION \
#     --set app.vote_extension_size=SIZES --repeat REPEAT
#
# and prints, per size, what the report plotted: block latency mean / p50 /
# p99 (model time), blocks per minute, the highest round and the blocks
# past round 0, the mean block size, the nodes' CPU and RSS, the harness's
# CPU and the host's load1 — and the wall time.
#
#   flock /tmp/cometlab-nodes.lock bench/ve-scale.sh [cometlab sweep flags…]
#
# Environment: VALIDATORS (default 32), K (time scale, default 8), RATE
# (model tx/s, default 200), DURATION (model, default 60s), SIZES (default
# 0,2048,8192,32768; the report's were 0,2k,4k,8k,16k,32k), REPEAT (1).
# A cell takes about K × DURATION plus start-up (at 32 validators and k = 8,
# some 10 min a cell).
set -euo pipefail
cd "$(dirname "$0")/.."
VALIDATORS=${VALIDATORS:-32}
K=${K:-8}
RATE=${RATE:-200}
DURATION=${DURATION:-60s}
SIZES=${SIZES:-0,2048,8192,32768}
REPEAT=${REPEAT:-1}
WORK=$(mktemp -d /tmp/cometlab-vescale.XXXXXX)
go build -o "$WORK/cometlab" ./cmd/cometlab
echo "work directory: $WORK; $VALIDATORS validators, k = $K, $RATE tx/s for $DURATION (model), sizes $SIZES"
s=$(date +%s)
"$WORK/cometlab" sweep --app e2e --validators "$VALIDATORS" --time-scale "$K" -r "$RATE" -T "$DURATION" \
	--repeat "$REPEAT" --start-timeout 10m --set "app.vote_extension_size=$SIZES" "$@" --out "$WORK/sweep" \
	> "$WORK/sweep.out" 2> "$WORK/sweep.err" || true
echo "sweep: $(( $(date +%s) - s )) s wall (see $WORK/sweep.err)"

figure() { jq -r --arg id "$2" '.metrics[$id] // "—"' "$1/summary.json" 2>/dev/null || echo "—"; }
fmt() { awk -v v="$1" -v f="$2" 'BEGIN{ if (v == "—" || v == "") print "—"; else printf f, v }'; }
printf '%-8s %-4s %-9s %-9s %-9s %-8s %-6s %-8s %-9s %-8s %-9s %-8s %-6s\n' size rep "lat mean" "lat p50" "lat p99" blk/min rndmax "round>0" "blk KiB" "cpu%/nd" "rss/node" harness% load1
for dir in "$WORK"/sweep/cells/*/; do
	dir=${dir%/}
	case $dir in *.disturbed) continue ;; esac # kept as evidence, measured again
	[ -f "$dir/summary.json" ] || { echo "$(basename "$dir"): no summary"; continue; }
	name=$(basename "$dir")
	size=$(echo "$name" | sed -n 's/.*vote_extension_size_\([0-9]*\)-.*/\1/p')
	rep=${name##*-}
	printf '%-8s %-4s %-9s %-9s %-9s %-8s %-6s %-8s %-9s %-8s %-9s %-8s %-6s\n' "$size" "$rep" \
		"$(fmt "$(figure "$dir" block_latency_mean_ms)" '%.0f')" "$(fmt "$(figure "$dir" block_latency_p50_ms)" '%.0f')" \
		"$(fmt "$(figure "$dir" block_latency_p99_ms)" '%.0f')" \
		"$(fmt "$(figure "$dir" blocks_per_s_mean)" '%.1f' | awk '{ if ($1 == "—") print; else printf "%.1f", $1 * 60 }')" \
		"$(figure "$dir" rounds_max)" "$(figure "$dir" blocks_multi_round)" \
		"$(fmt "$(figure "$dir" block_size_mean_bytes)" '%.0f' | awk '{ if ($1 == "—") print; else printf "%.1f", $1 / 1024 }')" \
		"$(fmt "$(figure "$dir" cpu_mean_pct)" '%.1f')" "$(fmt "$(figure "$dir" rss_mean_mib)" '%.0fMiB')" \
		"$(fmt "$(figure "$dir" harness_cpu_mean_pct)" '%.1f')" "$(fmt "$(figure "$dir" load1_mean)" '%.1f')"
done | sort -n
