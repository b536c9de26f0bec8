#!/usr/bin/env bash
# RELEASES.md's scenarios, each run RUNS times (default 3) on the default
# testnet, for their run-to-run spread:
#
#   partition 50/50 and 75/25   cometlab run -r 100 -T 30s --partition SPLIT@10s,duration=10s
#   absent stake                cometlab run -r 100 -T 30s with absent = ["validator04"], and without
#   evidence                    cometlab run -r 100 -T 10s with evidence = 2
#
# and prints, per run, the scenario's figures from summary.json and the
# host's other work (host_other_cpu_mean_pct: the figures are only
# comparable on a quiet host). About 10 minutes at RUNS=3.
#
#   flock /tmp/cometlab-nodes.lock bench/scenarios.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
WORK=$(mktemp -d /tmp/cometlab-scenarios.XXXXXX)
go build -o "$WORK/cometlab" ./cmd/cometlab
echo "work directory: $WORK"
echo 'absent = ["validator04"]' >"$WORK/absent.toml"
echo 'evidence = 2' >"$WORK/evidence.toml"

# figure DIR ID: one figure of the run's summary.json ("—" when absent).
figure() { grep -o "\"$2\": *[-0-9.e+]*" "$1/summary.json" | head -1 | sed 's/.*: *//' | grep . || echo "—"; }
# show NAME DIR ID…: one line of the run's figures.
show() {
	local name=$1 dir=$2
	shift 2
	local line
	line=$(printf '%-22s' "$name")
	for id in "$@" host_other_cpu_mean_pct; do line+=" $id=$(figure "$dir" "$id")"; done
	echo "$line"
}
for i in $(seq 1 "$RUNS"); do
	for split in 50/50 75/25; do
		d="$WORK/partition-${split/\//-}-$i"
		"$WORK/cometlab" run -r 100 -T 30s --partition "$split@10s,duration=10s" --out "$d" >"$d.out" 2>&1 || true
		show "partition $split #$i" "$d" partition_halted partition_halt_s partition_heights partition_rounds partition_recover_s \
			partition_caught_up_s liveness_gap_max_s partition_lost_txs safety_violations
	done
	for absent in none validator04; do
		d="$WORK/absent-$absent-$i"
		m=()
		[ "$absent" = none ] || m=(--manifest "$WORK/absent.toml")
		"$WORK/cometlab" run "${m[@]}" -r 100 -T 30s --out "$d" >"$d.out" 2>&1 || true
		show "absent=$absent #$i" "$d" blocks_multi_round absent_multi_round_share absent_proposer_heights block_interval_mean_s \
			block_latency_p50_ms safety_violations
	done
	d="$WORK/evidence-$i"
	"$WORK/cometlab" run --manifest "$WORK/evidence.toml" -r 100 -T 10s --out "$d" >"$d.out" 2>&1 || true
	show "evidence=2 #$i" "$d" evidence_injected evidence_injected_committed evidence_committed safety_violations
done
