#!/usr/bin/env bash
# Sentinel benchmark: the experiment of issue 13. On the default testnet
# (saturation ~1,450 tx/s), one greedy client sends at 10× the saturation
# point and four small clients at 2 % of it each, every one a separate
# `cometlab load --endpoint … --client-key NAME` process, run three ways:
#
#   direct    the clients talk to validator01's RPC
#   sentinel  through `cometlab sentinel` (fair queue, AIMD pacing, defaults)
#   bucket    through `cometlab sentinel --no-queue --rate SAT/s` (pacing and
#             fairness off: a per-client token bucket, the proxyd/nginx baseline)
#
# Each arm starts a fresh testnet (`cometlab testnet up`), runs the clients
# for T, lets each read the chain back (its own transactions, by run id),
# and stops everything. It prints, per arm: goodput (committed tx/s, all
# clients), per-client committed %, refused (explicit, with the reason),
# silent losses (missing_txs: neither committed nor refused) and p99
# observed latency of the small clients.
#
#   flock /tmp/cometlab-nodes.lock bench/sentinel.sh [T] [SAT]
#
# ARMS="sentinel bucket" runs only those arms; REPORT=WORKDIR prints the
# figures of an earlier run's work directory again. The sentinel arms run
# with --read-rate 0 --max-conns 0: the five clients' read-backs come from
# one IP without a key and would otherwise be refused by the read limits.
#
# T defaults to 60s, SAT (tx/s) to 1450. About 3 × (T + 1–2 min). The nodes
# are CPU-bound: figures from a shared machine are noisy; say so.
set -euo pipefail
cd "$(dirname "$0")/.."
T=${1:-60s}
SAT=${2:-1450}
if [ -z "${REPORT:-}" ]; then
	WORK=$(mktemp -d /tmp/cometlab-sentinel.XXXXXX)
	go build -o "$WORK/cometlab" ./cmd/cometlab
	CL=$WORK/cometlab
	echo "work directory: $WORK  (T=$T, saturation $SAT tx/s)"
fi

GREEDY_CONNS=10
GREEDY_RATE=$(awk -v s="$SAT" -v c="$GREEDY_CONNS" 'BEGIN{print 10*s/c}')
SMALL_RATE=$(awk -v s="$SAT" 'BEGIN{print 0.02*s}')
SMALL="small1 small2 small3 small4"

# figure FILE ID: one figure of a summary.json (empty when absent).
figure() { { grep -o "\"$2\": *[0-9.e+-]*" "$1" 2>/dev/null || true; } | head -1 | sed 's/.*: *//'; }

arm() {
	local name=$1 dir=$WORK/$1 pid="" ep rpc
	shift
	mkdir -p "$dir"
	"$CL" testnet up --dir "$dir/testnet" > "$dir/nodes.txt" 2> "$dir/testnet.err"
	rpc=$(awk '$1=="validator01"{print $4}' "$dir/nodes.txt")
	ep="ws://${rpc#http://}/websocket"
	if [ "$name" != direct ]; then
		"$CL" sentinel --upstream "$rpc" --listen 127.0.0.1:26667 --metrics 127.0.0.1:26668 \
			--read-rate 0 --max-conns 0 --pace-trace "$dir/pace.csv" "$@" 2> "$dir/sentinel.err" &
		pid=$!
		for _ in $(seq 50); do curl -sf http://127.0.0.1:26668/metrics > /dev/null && break; sleep 0.1; done
		ep="ws://127.0.0.1:26667/websocket"
	fi
	local pids=()
	"$CL" load --endpoint "$ep" --client-key greedy -c "$GREEDY_CONNS" -r "$GREEDY_RATE" -T "$T" \
		--drain-timeout 90s --out "$dir/greedy" > "$dir/greedy.out" 2> "$dir/greedy.err" & pids+=($!)
	for k in $SMALL; do
		"$CL" load --endpoint "$ep" --client-key "$k" -c 1 -r "$SMALL_RATE" -T "$T" \
			--drain-timeout 90s --out "$dir/$k" > "$dir/$k.out" 2> "$dir/$k.err" & pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p" || true; done
	if [ -n "$pid" ]; then
		curl -s http://127.0.0.1:26668/metrics | grep '^sentinel_' > "$dir/sentinel.metrics" || true
		kill -INT "$pid"; wait "$pid" || true
	fi
	"$CL" testnet down "$dir/testnet" > /dev/null 2>&1 || true

	report "$name" "$dir"
}

# report NAME DIR: the figures of one arm from its run directories.
report() {
	local name=$1 dir=$2
	local good=0 lost=0 line="" p99=""
	for k in greedy $SMALL; do
		local s=$dir/$k/summary.json
		local sent committed refused missing tps
		sent=$(figure "$s" sent_txs); committed=$(figure "$s" committed_txs)
		refused=$(figure "$s" rejected_txs); missing=$(figure "$s" missing_txs)
		tps=$(figure "$s" committed_tps)
		good=$(awk -v a="$good" -v b="${tps:-0}" 'BEGIN{print a+b}')
		lost=$(awk -v a="$lost" -v b="${missing:-0}" 'BEGIN{print a+b}')
		line+=$(printf '  %-7s sent %6s committed %5.1f %%  refused %6s  silent %s\n' "$k" "${sent:-?}" \
			"$(awk -v c="${committed:-0}" -v s="${sent:-0}" 'BEGIN{print (s > 0) ? 100*c/s : 0}')" "${refused:-0}" \
			"${missing:-0}")$'\n'
		if [ "$k" != greedy ]; then p99+="${p99:+ }$(figure "$s" observed_latency_p99_ms)"; fi
	done
	printf '%s: goodput %.0f tx/s (%.0f %% of %s), silent losses %s, small clients p99 observed latency (ms): %s\n' \
		"$name" "$good" "$(awk -v g="$good" -v s="$SAT" 'BEGIN{print 100*g/s}')" "$SAT" "$lost" "$p99"
	printf '%s' "$line"
	for k in greedy $SMALL; do
		{ tr -d '\n' < "$dir/$k/summary.json" | grep -o '"rejected": *{[^}]*}' | tr -s ' ' | sed "s/^/    $k refusals: /" | cut -c1-240; } 2>/dev/null || true
	done
	if [ -f "$dir/sentinel.metrics" ]; then
		grep -E '^sentinel_(refused_total|forwarded_total|node_errors_total|lost_total)' "$dir/sentinel.metrics" | sed 's/^/    /' || true
	fi
}

if [ -n "${REPORT:-}" ]; then
	# Print the figures of an earlier run again: REPORT=WORKDIR.
	for a in ${ARMS:-direct sentinel bucket}; do report "$a" "$REPORT/$a"; done
	exit 0
fi
for a in ${ARMS:-direct sentinel bucket}; do
	case $a in
	direct) arm direct ;;
	sentinel) arm sentinel ;;
	bucket) arm bucket --no-queue --rate "${SAT}/s" --burst "$((SAT / 10))" ;;
	esac
done
