#!/usr/bin/env bash
# Sentinel benchmark: the experiment of issue 13. On the default testnet
# (saturation ~1,450 tx/s on a quiet machine), every arm starts a fresh
# testnet (`cometlab testnet up`), runs its load clients — each a separate
# `cometlab load --endpoint … --client-key NAME` process — for T, lets each
# read the chain back (its own transactions, by run id) and stops
# everything. The arms:
#
#   direct    the clients talk to validator01's RPC
#   sentinel  through `cometlab sentinel` (fair queue, pacing, defaults)
#   bucket    through `cometlab sentinel --no-queue --rate SAT/s` (pacing and
#             fairness off: a per-client token bucket, the proxyd/nginx baseline)
#
# MODE=fair (the default): one greedy client at 10× SAT and four small
# clients at 2 % of it each. Per arm: goodput (committed tx/s, all clients),
# per-client committed %, refused (explicit, with the reason), silent losses
# (missing_txs: neither committed nor refused), the small clients' p99
# observed latency; at the end each kind's mean goodput and the sentinel's
# as % of the direct arms' (the saturation measured beside it).
#
# MODE=latency: one client at LAT (tx/s, default 600: below saturation),
# two connections. Per arm: block and observed latency p50/p99; at the end
# each kind's means and what the sentinel adds to the p99s.
#
#   flock /tmp/cometlab-nodes.lock bench/sentinel.sh [T] [SAT]
#
# ARMS lists the arms in order, a kind may repeat (default for fair:
# "direct sentinel direct sentinel bucket", alternating because the machine
# is shared; for latency: "direct sentinel direct sentinel"). Extra flags for
# the sentinel arms: SENTINEL_FLAGS. A variant of the sentinel, to compare
# settings side by side, is an arm "sentinel:NAME" whose extra flags are in
# SENTINEL_FLAGS_NAME, e.g.
#   ARMS="direct sentinel sentinel:fastpoll" SENTINEL_FLAGS_fastpoll="--poll-interval 100ms"
# The sentinel arms also print the queue-wait quantiles (what the sentinel
# holds a tx before forwarding it) from its histogram. REPORT=WORKDIR prints the figures of an
# earlier run's work directory again (same MODE and ARMS). The sentinel arms
# run with --read-rate 0 --max-conns 0: the clients' read-backs come from one
# IP without a key and would otherwise be refused by the read limits.
#
# T defaults to 60s, SAT (tx/s) to 1450. An arm takes about T + 1–2 min. The
# nodes are CPU-bound: figures from a shared machine are noisy; say so.
set -euo pipefail
cd "$(dirname "$0")/.."
T=${1:-60s}
SAT=${2:-1450}
MODE=${MODE:-fair}
LAT=${LAT:-600}
case $MODE in
fair) ARMS=${ARMS:-direct sentinel direct sentinel bucket} ;;
latency) ARMS=${ARMS:-direct sentinel direct sentinel} ;;
*) echo "MODE=$MODE: want fair or latency" >&2; exit 2 ;;
esac
if [ -z "${REPORT:-}" ]; then
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/cometlab-sentinel.XXXXXX")
	go build -o "$WORK/cometlab" ./cmd/cometlab
	CL=$WORK/cometlab
	echo "work directory: $WORK  (MODE=$MODE, T=$T, saturation $SAT tx/s, arms: $ARMS)"
else
	WORK=$REPORT
fi

GREEDY_CONNS=10
GREEDY_RATE=$(awk -v s="$SAT" -v c="$GREEDY_CONNS" 'BEGIN{print 10*s/c}')
SMALL_RATE=$(awk -v s="$SAT" 'BEGIN{print 0.02*s}')
SMALL="small1 small2 small3 small4"
if [ "$MODE" = latency ]; then CLIENTS="steady"; else CLIENTS="greedy $SMALL"; fi

# figure FILE ID: one figure of a summary.json (empty when absent).
figure() { { grep -o "\"$2\": *[0-9.e+-]*" "$1" 2>/dev/null || true; } | head -1 | sed 's/.*: *//'; }

# load DIR EP KEY CONNS RATE: one load client in the background.
load() {
	"$CL" load --endpoint "$2" --client-key "$3" -c "$4" -r "$5" -T "$T" \
		--drain-timeout 90s --out "$1/$3" > "$1/$3.out" 2> "$1/$3.err" &
	PIDS+=($!)
}

# arm DIR KIND: one arm in WORK/DIR.
arm() {
	local dir=$WORK/$1 kind=$2 pid="" ep rpc
	mkdir -p "$dir"
	"$CL" testnet up --dir "$dir/testnet" > "$dir/nodes.txt" 2> "$dir/testnet.err"
	rpc=$(awk '$1=="validator01"{print $4}' "$dir/nodes.txt")
	ep="ws://${rpc#http://}/websocket"
	if [ "$kind" != direct ]; then
		local extra=()
		[ "$kind" = bucket ] && extra=(--no-queue --rate "${SAT}/s" --burst "$((SAT / 10))")
		if [ "${kind#sentinel:}" != "$kind" ]; then
			local v="SENTINEL_FLAGS_${kind#sentinel:}"
			# shellcheck disable=SC2206 # a list of flags
			extra=(${!v:-})
		fi
		# shellcheck disable=SC2086 # SENTINEL_FLAGS is a list of flags
		"$CL" sentinel --upstream "$rpc" --listen 127.0.0.1:26667 --metrics 127.0.0.1:26668 \
			--read-rate 0 --max-conns 0 --pace-trace "$dir/pace.csv" "${extra[@]}" ${SENTINEL_FLAGS:-} 2> "$dir/sentinel.err" &
		pid=$!
		for _ in $(seq 50); do curl -sf http://127.0.0.1:26668/metrics > /dev/null && break; sleep 0.1; done
		ep="ws://127.0.0.1:26667/websocket"
	fi
	PIDS=()
	if [ "$MODE" = latency ]; then
		load "$dir" "$ep" steady 2 "$(awk -v l="$LAT" 'BEGIN{print l/2}')"
	else
		load "$dir" "$ep" greedy "$GREEDY_CONNS" "$GREEDY_RATE"
		for k in $SMALL; do load "$dir" "$ep" "$k" 1 "$SMALL_RATE"; done
	fi
	for p in "${PIDS[@]}"; do wait "$p" || true; done
	if [ -n "$pid" ]; then
		curl -s http://127.0.0.1:26668/metrics | grep '^sentinel_' > "$dir/sentinel.metrics" || true
		kill -INT "$pid"; wait "$pid" || true
	fi
	"$CL" testnet down "$dir/testnet" > /dev/null 2>&1 || true
	report "$1" "$kind"
}

# report DIR KIND: the figures of one arm; appends "KIND GOODPUT BLOCKP99
# OBSP99" to WORK/figures.txt.
report() {
	local name=$1 kind=$2 dir=$WORK/$1
	local good=0 lost=0 line="" p99=""
	for k in $CLIENTS; do
		local s=$dir/$k/summary.json
		local sent committed refused missing tps
		sent=$(figure "$s" sent_txs); committed=$(figure "$s" committed_txs)
		# refused: the sentinel's explicit refusals (refused_txs) and the
		# node's rejections (rejected_txs; older summaries count both there)
		refused=$(awk -v a="$(figure "$s" refused_txs)" -v b="$(figure "$s" rejected_txs)" 'BEGIN{print a+b}')
		missing=$(figure "$s" missing_txs)
		tps=$(figure "$s" committed_tps)
		good=$(awk -v a="$good" -v b="${tps:-0}" 'BEGIN{print a+b}')
		lost=$(awk -v a="$lost" -v b="${missing:-0}" 'BEGIN{print a+b}')
		line+=$(printf '  %-7s sent %6s committed %5.1f %%  refused %6s  silent %s\n' "$k" "${sent:-?}" \
			"$(awk -v c="${committed:-0}" -v s="${sent:-0}" 'BEGIN{print (s > 0) ? 100*c/s : 0}')" "${refused:-0}" \
			"${missing:-0}")$'\n'
		case $k in small*) p99+="${p99:+ }$(figure "$s" observed_latency_p99_ms)" ;; esac
	done
	local bi=${dir%/}/$(echo "$CLIENTS" | cut -d' ' -f1)/summary.json
	local b50 b99 o50 o99 blk
	b50=$(figure "$bi" block_latency_p50_ms); b99=$(figure "$bi" block_latency_p99_ms)
	o50=$(figure "$bi" observed_latency_p50_ms); o99=$(figure "$bi" observed_latency_p99_ms)
	blk=$(figure "$bi" block_interval_mean_s)
	if [ "$MODE" = latency ]; then
		printf '%s (%s): committed %.0f tx/s, silent losses %s, block latency p50 %s p99 %s ms, observed p50 %s p99 %s ms, block interval %s s\n' \
			"$name" "$kind" "$good" "$lost" "$b50" "$b99" "$o50" "$o99" "${blk:-?}"
	else
		printf '%s (%s): goodput %.0f tx/s (%.0f %% of %s), silent losses %s, small clients p99 observed latency (ms): %s\n' \
			"$name" "$kind" "$good" "$(awk -v g="$good" -v s="$SAT" 'BEGIN{print 100*g/s}')" "$SAT" "$lost" "$p99"
	fi
	printf '%s' "$line"
	for k in $CLIENTS; do
		{ tr -d '\n' < "$dir/$k/summary.json" | grep -o '"rejected": *{[^}]*}' | tr -s ' ' | sed "s/^/    $k refusals: /" | cut -c1-240; } 2>/dev/null || true
	done
	if [ -f "$dir/sentinel.metrics" ]; then
		grep -E '^sentinel_(refused_total|forwarded_total|node_errors_total|lost_total)' "$dir/sentinel.metrics" | sed 's/^/    /' || true
		waits "$dir/sentinel.metrics"
	fi
	echo "$kind $good ${b99:-nan} ${o99:-nan}" >> "$WORK/figures.txt"
}

# waits METRICS: the queue-wait histogram's p50, p99 and share over 1 ms
# (bucket upper bounds: the quantile is at most that).
waits() {
	awk '/^sentinel_queue_wait_seconds_bucket/ {
		match($0, /le="[^"]*"/); le = substr($0, RSTART + 4, RLENGTH - 5); n++; b[n] = le; c[n] = $NF
	}
	/^sentinel_queue_wait_seconds_count/ { tot = $NF }
	END {
		if (tot == 0) exit
		for (i = 1; i <= n; i++) {
			if (p50 == "" && c[i] >= 0.5 * tot) p50 = b[i]
			if (p99 == "" && c[i] >= 0.99 * tot) p99 = b[i]
			if (b[i] + 0 <= 0.001) under = c[i]
		}
		printf "    queue wait: %d txs, p50 ≤ %s s, p99 ≤ %s s, %.2f %% over 1 ms\n", tot, p50, p99, 100 * (tot - under) / tot
	}' "$1"
}

# summary: each kind's means; the sentinel against the direct arms.
summary() {
	awk -v mode="$MODE" '
	{ n[$1]++; g[$1] += $2; b[$1] += $3; o[$1] += $4; list[$1] = list[$1] sprintf(" %.0f", $2) }
	END {
		for (k in n) {
			if (mode == "latency")
				printf "%s: %d arms, mean block latency p99 %.0f ms, observed p99 %.0f ms\n", k, n[k], b[k]/n[k], o[k]/n[k]
			else
				printf "%s: %d arms, goodput%s tx/s, mean %.0f\n", k, n[k], list[k], g[k]/n[k]
		}
		if (n["direct"]) for (k in n) if (k != "direct") {
			if (mode == "latency")
				printf "%s adds to p99: block %+.0f ms, observed %+.0f ms (means of its arms minus the direct ones)\n",
					k, b[k]/n[k] - b["direct"]/n["direct"], o[k]/n[k] - o["direct"]/n["direct"]
			else
				printf "goodput through %s: %.1f %% of the direct arms (the saturation measured beside it)\n",
					k, 100 * (g[k]/n[k]) / (g["direct"]/n["direct"])
		}
	}' "$WORK/figures.txt"
}

rm -f "$WORK/figures.txt"
i=0
for a in $ARMS; do
	i=$((i + 1))
	case $a in direct | sentinel | bucket | sentinel:*) ;; *) echo "unknown arm $a (want direct, sentinel, sentinel:NAME or bucket)" >&2; exit 2 ;; esac
	if [ -n "${REPORT:-}" ]; then
		d=$i-$a
		[ -d "$WORK/$d" ] || d=$a # a work directory of the older layout
		report "$d" "$a"
	else
		arm "$i-$a" "$a"
	fi
done
echo
summary
