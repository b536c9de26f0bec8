#!/usr/bin/env bash
# Scale benchmark: the largest local testnet this machine runs. Runs
#
#   cometlab run --validators N -r RATE -T DURATION      for N in SIZES
#
# (default 4 8 16 32 validators, 100 tx/s, 60 s) and prints, per size, what
# says whether the testnet still behaves like a testnet: the run's status
# and accounting (committed of expected), blocks per minute and the mean
# block interval, block latency p50/p99, the highest consensus round and the
# blocks committed past round 0 (CPU starvation shows as timeouts and later
# rounds), the nodes' mean CPU (% of one core) and RSS per node, the host's
# load1, and the wall time. A second table gives the volume of what cometlab
# collected per node per minute of the run (metrics.csv, logs/, the node
# homes), the figures docs/deploy.md's 200-node plan derives an hour from
# (the measured ones are in docs/measurements.md).
#
#   flock /tmp/cometlab-nodes.lock bench/scale.sh [cometlab run flags…]
#
# SIZES, RATE and DURATION come from the environment, e.g.
# `SIZES="4 8" DURATION=30s bench/scale.sh`. SEEDS=K runs the N validators
# with K seeds in the seeds topology (each validator knows one seed, the
# peer exchange finds the rest), as qa-infra's networks are built, instead
# of the full mesh. ZONES=Z (≤ 13) spreads the nodes round robin over the
# first Z zones of CometBFT's AWS matrix (ZONE_MBPS caps the links; mind
# the handshake bound of docs/timescale.md: k ≤ 9 with all 13);
# MEMPOOL_SIZE=M sets each node's mempool.size (the memory per node, issue
# 39; the cache stays at its default, which keeps committed transactions
# from being taken in again). At 100 validators add --time-scale K (e.g.
# `SIZES=100 SEEDS=5 MEMPOOL_SIZE=2000 RATE=40 bench/scale.sh
# --time-scale 16`): the figures are the model's. Each run takes the load's
# duration plus start-up and read-back (about 2 min at 32 validators on 2
# cores). Run it under the shared lock.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${SIZES:-"4 8 16 32"}
RATE=${RATE:-100}
DURATION=${DURATION:-60s}
WORK=$(mktemp -d /tmp/cometlab-scale.XXXXXX)
go build -o "$WORK/cometlab" ./cmd/cometlab
echo "work directory: $WORK"

# figure DIR ID: one figure of the run's summary.json ("—" when absent).
figure() { grep -o "\"$2\": *[-0-9.e+]*" "$1/summary.json" | head -1 | sed 's/.*: *//' | grep . || echo "—"; }
# seconds DIR: the run's wall time, started … ended of run.json.
seconds() {
	local s e
	s=$(grep -o '"started": *"[^"]*"' "$1/run.json" | sed 's/.*: *"//; s/"$//')
	e=$(grep -o '"ended": *"[^"]*"' "$1/run.json" | sed 's/.*: *"//; s/"$//')
	echo $(( $(date -d "$e" +%s) - $(date -d "$s" +%s) ))
}
# zone I: the I-th of ZONES zones of CometBFT's AWS matrix (round robin).
AWS=(N_Virginia Canada N_California London Oregon Ireland Frankfurt S_Paulo Tokyo Mumbai Sydney Seoul Singapore)
zone() { echo "${AWS[$(( ($1 - 1) % ZONES ))]}"; }
# manifest N: N validators (and SEEDS seeds in the seeds topology; spread
# over ZONES zones; mempools of MEMPOOL_SIZE transactions).
manifest() {
	local n=$1 i
	[ "${SEEDS:-0}" -gt 0 ] && echo 'topology = "seeds"'
	if [ "${ZONES:-0}" -gt 0 ]; then
		printf '[zones]\nmatrix = "aws"\n'
		[ -n "${ZONE_MBPS:-}" ] && printf 'bandwidth_mbps = %s\n' "$ZONE_MBPS"
	fi
	if [ -n "${MEMPOOL_SIZE:-}" ]; then
		printf '[config]\n"mempool.size" = %s\n' "$MEMPOOL_SIZE"
	fi
	for i in $(seq 1 "${SEEDS:-0}"); do
		printf '[node.seed%02d]\nmode = "seed"\n' "$i"
		[ "${ZONES:-0}" -gt 0 ] && printf 'zone = "%s"\n' "$(zone "$i")"
	done
	for i in $(seq 1 "$n"); do
		printf '[node.validator%03d]\n' "$i"
		[ "${ZONES:-0}" -gt 0 ] && printf 'zone = "%s"\n' "$(zone "$i")"
	done
	return 0
}
fmt() { awk -v v="$1" -v f="$2" 'BEGIN{ if (v == "—") print "—"; else printf f, v }'; }

printf '%-4s %-9s %-13s %-8s %-9s %-9s %-9s %-7s %-7s %-9s %-9s %-6s %-5s\n' \
	nodes status committed blk/min interval p50_ms p99_ms "round>0" rndmax cpu%/node rss/node load1 wall
volumes=()
for n in $SIZES; do
	dir="$WORK/v$n"
	s=$(date +%s)
	net=(--validators "$n")
	if [ "${SEEDS:-0}" -gt 0 ] || [ "${ZONES:-0}" -gt 0 ] || [ -n "${MEMPOOL_SIZE:-}" ]; then
		m="$WORK/net$n.toml"
		manifest "$n" > "$m"
		net=(--manifest "$m")
	fi
	"$WORK/cometlab" run "${net[@]}" -r "$RATE" -T "$DURATION" --start-timeout 5m "$@" --out "$dir" \
		> "$dir.out" 2> "$dir.err" || true
	wall=$(( $(date +%s) - s ))
	if [ ! -f "$dir/summary.json" ]; then
		printf '%-4s no summary (see %s.err: %s)\n' "$n" "$dir" "$(tail -1 "$dir.err")"
		continue
	fi
	status=$(grep -o '"status": *"[a-z]*"' "$dir/summary.json" | head -1 | sed 's/.*"\([a-z]*\)"$/\1/')
	bps=$(figure "$dir" blocks_per_s_mean)
	printf '%-4s %-9s %-13s %-8s %-9s %-9s %-9s %-7s %-7s %-9s %-9s %-6s %-5s\n' "$n" "$status" \
		"$(figure "$dir" committed_txs)/$(figure "$dir" expected_txs)" "$(awk -v v="$bps" 'BEGIN{ if (v == "—") print v; else printf "%.1f", v*60 }')" \
		"$(fmt "$(figure "$dir" block_interval_mean_s)" '%.2fs')" "$(fmt "$(figure "$dir" block_latency_p50_ms)" '%.0f')" \
		"$(fmt "$(figure "$dir" block_latency_p99_ms)" '%.0f')" "$(figure "$dir" blocks_multi_round)" "$(figure "$dir" rounds_max)" \
		"$(fmt "$(figure "$dir" cpu_mean_pct)" '%.1f')" "$(fmt "$(figure "$dir" rss_mean_mib)" '%.0fMiB')" \
		"$(fmt "$(figure "$dir" load1_mean)" '%.1f')" "${wall}s"
	[ "${SEEDS:-0}" -gt 0 ] && echo "     peers per node, fewest during the load: $(figure "$dir" peers_min)"
	mins=$(awk -v s="$(seconds "$dir")" 'BEGIN{print s/60}')
	per() { awk -v b="$1" -v n="$n" -v m="$mins" 'BEGIN{printf "%.0f", b/n/m/1024}'; }
	volumes+=("$(printf '%-4s %-7s %-12s %-12s %-12s %-12s' "$n" "$(fmt "$mins" '%.1f')" \
		"$(per "$(stat -c %s "$dir/metrics.csv")")" "$(per "$(du -sb "$dir/logs" | cut -f1)")" \
		"$(per "$(du -sb "$dir/nodes" | cut -f1)")" \
		"$(awk -v b="$(cat "$dir"/{blocks,txs,sent,replies,adoption}.csv | wc -c)" -v m="$mins" 'BEGIN{printf "%.0f", b/m/1024}')")")
done
echo
echo "collected, KiB per node per minute of the run (run files: KiB per minute, for the whole run):"
printf '%-4s %-7s %-12s %-12s %-12s %-12s\n' nodes minutes metrics.csv logs homes run-files
printf '%s\n' "${volumes[@]}"
