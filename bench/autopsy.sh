#!/usr/bin/env bash
# Block autopsy known answers: how often the autopsy names the right
# cause of a slow height when the cause is known. For each perturbation
# of validator03 (kill, pause, disconnect, restart, wipe), N runs (default
# 3) of the default testnet at 100 tx/s for 45 s, each perturbing
# validator03 three times (at 5 s, then every 12 s, down 4 s); N runs in
# which validator03 is slow without being perturbed: its e2e app
# (v1.0.1) sleeps 1.5 s in PrepareProposal (slowapp) or in FinalizeBlock
# (slowexec), or it is 1 s away from the others, one way (far, zones); N
# overloads (100 tx/s for 20 s, then 3,000 tx/s: the mempools fill); and
# N healthy runs. Prints, per case, the slow heights (autopsy.csv) and the
# share with a right verdict (perturbations: the perturbation,
# proposer_absent, votes_late or node_lagging, naming validator03;
# slowapp: proposal_late on validator03; slowexec: execution on
# validator03; far: proposal_late, votes_late or node_lagging on
# validator03; overload: mempool_full, any node; the goal: ≥ 90 % over
# tens of slow heights), and for the healthy runs the share of heights
# that were slow (the goal: ≤ 1 %).
#
#   flock /tmp/cometlab-nodes.lock bench/autopsy.sh [N] [cometlab run flags…]
#   CASES="slowexec overload" bench/autopsy.sh 3     # some cases only
#
# About 1 minute per run (N × 10 runs). Run it on a quiet machine: a busy
# host makes healthy heights slow too (the autopsy then says
# host_contention, which counts as wrong here).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-3}
shift || true
WORK=$(mktemp -d /tmp/cometlab-autopsy.XXXXXX)
go build -o "$WORK/cometlab" ./cmd/cometlab
echo "work directory: $WORK"

# tally CAUSES NODE DIR...: slow heights, those blamed on NODE (an awk
# regex) with one of CAUSES (an awk regex), host_contention ones, heights
# (blocks) over the runs.
tally() {
	local causes=$1 node=$2 slow=0 right=0 host=0 heights=0 d
	shift 2
	for d in "$@"; do
		[ -f "$d/autopsy.csv" ] || continue
		slow=$(( slow + $(tail -n +2 "$d/autopsy.csv" | wc -l) ))
		right=$(( right + $(tail -n +2 "$d/autopsy.csv" | awk -F, -v c="^($causes)\$" -v n="$node" '$5 ~ c && $6 ~ n' | wc -l) ))
		host=$(( host + $(tail -n +2 "$d/autopsy.csv" | awk -F, '$5=="host_contention"' | wc -l) ))
		heights=$(( heights + $(tail -n +2 "$d/blocks.csv" | wc -l) ))
	done
	echo "$slow $right $host $heights"
}

# The slow nodes' manifests: validator03's own e2e app delay in
# PrepareProposal (slowapp) or FinalizeBlock (slowexec), and validator03
# alone in a zone 1 s (one way) from the others' (far).
cat > "$WORK/slowapp.toml" <<'TOML'
cometbft_version = "v1.0.1"
app = "e2e"
[node.validator01]
[node.validator02]
[node.validator03]
app = { prepare_proposal_delay = "1500ms" }
[node.validator04]
TOML
sed 's/prepare_proposal_delay/finalize_block_delay/' "$WORK/slowapp.toml" > "$WORK/slowexec.toml"
printf 'From/to,near,far\nnear,0,1000\nfar,1000,0\n' > "$WORK/far.csv"
cat > "$WORK/far.toml" <<'TOML'
[zones]
matrix = "far.csv"
[node.validator01]
zone = "near"
[node.validator02]
zone = "near"
[node.validator03]
zone = "far"
[node.validator04]
zone = "near"
TOML

for action in ${CASES:-kill pause disconnect restart wipe slowapp slowexec far overload healthy}; do
	dirs=()
	causes="perturbation|proposer_absent|votes_late|node_lagging" node=validator03
	for i in $(seq 1 "$N"); do
		d="$WORK/$action-$i"
		flags=()
		case "$action" in
		healthy) ;;
		restart) flags=(--perturb "validator03:restart@5s,every=12s,count=3") ;;
		slowapp) flags=(--manifest "$WORK/slowapp.toml"); causes="proposal_late" ;;
		slowexec) flags=(--manifest "$WORK/slowexec.toml"); causes="execution" ;;
		overload) flags=(--shape ramp --steps 100,3000 --step 20s); causes="mempool_full" node=. ;;
		far) flags=(--manifest "$WORK/far.toml"); causes="proposal_late|votes_late|node_lagging" ;;
		*) flags=(--perturb "validator03:$action@5s,down=4s,every=12s,count=3") ;;
		esac
		"$WORK/cometlab" run -r 100 -T 45s "${flags[@]}" "$@" --out "$d" > "$d.out" 2>&1 || true
		dirs+=("$d")
	done
	read -r slow right host heights <<< "$(tally "$causes" "$node" "${dirs[@]}")"
	if [ "$action" = healthy ]; then
		printf '%-10s %3d runs: %d of %d heights slow (%.1f %%)\n' "$action" "$N" "$slow" "$heights" \
			"$(awk -v a="$slow" -v b="$heights" 'BEGIN{print b ? 100*a/b : 0}')"
	else
		printf '%-10s %3d runs: %d slow heights, %d right (%.0f %%), %d on host contention, of %d heights\n' \
			"$action" "$N" "$slow" "$right" "$(awk -v a="$right" -v b="$slow" 'BEGIN{print b ? 100*a/b : 0}')" "$host" "$heights"
	fi
done
