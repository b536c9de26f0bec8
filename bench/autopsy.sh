#!/usr/bin/env bash
# Block autopsy known answers: how often the autopsy names the right
# cause of a slow height when the cause is known. For each perturbation
# of validator03 (kill, pause, disconnect, restart, wipe), N runs (default
# 3) of the default testnet at 100 tx/s for 45 s, each perturbing
# validator03 three times (at 5 s, then every 12 s, down 4 s); and N
# healthy runs. Prints, per action, the slow heights (autopsy.csv) and the
# share blamed on validator03: its perturbation or an effect of it
# (proposer_absent, votes_late, node_lagging naming it; the goal: ≥ 90 %
# over tens of slow heights), and for the healthy runs the share of
# heights that were slow (the goal: ≤ 1 %).
#
#   flock /tmp/cometlab-nodes.lock bench/autopsy.sh [N] [cometlab run flags…]
#
# About 1 minute per run (N × 6 runs). Run it on a quiet machine: a busy
# host makes healthy heights slow too (the autopsy then says
# host_contention, which counts as wrong here).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-3}
shift || true
WORK=$(mktemp -d /tmp/cometlab-autopsy.XXXXXX)
go build -o "$WORK/cometlab" ./cmd/cometlab
echo "work directory: $WORK"

# tally DIR...: slow heights, right ones, host_contention ones, heights
# (blocks) over the runs.
tally() {
	local slow=0 right=0 host=0 heights=0 d
	for d in "$@"; do
		[ -f "$d/autopsy.csv" ] || continue
		slow=$(( slow + $(tail -n +2 "$d/autopsy.csv" | wc -l) ))
		right=$(( right + $(tail -n +2 "$d/autopsy.csv" | awk -F, '($5=="proposer_absent"||$5=="perturbation"||$5=="votes_late"||$5=="node_lagging") && $6 ~ /validator03/' | wc -l) ))
		host=$(( host + $(tail -n +2 "$d/autopsy.csv" | awk -F, '$5=="host_contention"' | wc -l) ))
		heights=$(( heights + $(tail -n +2 "$d/blocks.csv" | wc -l) ))
	done
	echo "$slow $right $host $heights"
}

for action in kill pause disconnect restart wipe healthy; do
	dirs=()
	for i in $(seq 1 "$N"); do
		d="$WORK/$action-$i"
		flags=()
		[ "$action" = healthy ] || flags=(--perturb "validator03:$action@5s,down=4s,every=12s,count=3")
		[ "$action" = restart ] && flags=(--perturb "validator03:restart@5s,every=12s,count=3")
		"$WORK/cometlab" run -r 100 -T 45s "${flags[@]}" "$@" --out "$d" > "$d.out" 2>&1 || true
		dirs+=("$d")
	done
	read -r slow right host heights <<< "$(tally "${dirs[@]}")"
	if [ "$action" = healthy ]; then
		printf '%-10s %3d runs: %d of %d heights slow (%.1f %%)\n' "$action" "$N" "$slow" "$heights" \
			"$(awk -v a="$slow" -v b="$heights" 'BEGIN{print b ? 100*a/b : 0}')"
	else
		printf '%-10s %3d runs: %d slow heights, %d blamed on validator03 (%.0f %%), %d on host contention, of %d heights\n' \
			"$action" "$N" "$slow" "$right" "$(awk -v a="$right" -v b="$slow" 'BEGIN{print b ? 100*a/b : 0}')" "$host" "$heights"
	fi
done
