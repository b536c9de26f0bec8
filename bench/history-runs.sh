# shellcheck shell=bash
# make_runs CL WORK N: the synthetic history of bench/history.sh and
# bench/serve.sh. N run directories under WORK/runs (r00000 …), each a copy
# of the recorded fixture run (testdata/runs/small, analysed once by the
# cometlab binary CL for a real summary.json of every figure) with its own
# id, a start time one hour after the one before from 2026-01-01, and
# every figure scaled by a factor drawn from 0.9–1.1. Optional, from the
# environment: SHIFT_AT=K and SHIFT=F scale the figures of the runs from
# K on by F too (a step for the change points to find); RELEASE_EVERY=M
# gives every M runs a new release (v0.38.26, v0.38.27, …). Sourced, run
# from the repository's root.
make_runs() {
	local cl=$1 work=$2 n=$3
	local tpl="$work/template"
	mkdir -p "$tpl" "$work/runs"
	cp testdata/runs/small/* "$tpl/"
	"$cl" analyze "$tpl" >/dev/null
	rm -f "$tpl"/report.* "$tpl"/autopsy.csv "$tpl"/stages.csv
	echo "template: $(grep -c '^    "' "$tpl/summary.json") summary lines, $(du -sk "$tpl" | cut -f1) KiB a run"
	local start i d ts rel
	start=$(date +%s.%N)
	for i in $(seq 0 $((n - 1))); do
		d="$work/runs/r$(printf %05d "$i")"
		mkdir "$d"
		cp "$tpl"/*.csv "$tpl"/manifest.toml "$d/"
		ts=$(date -u -d "@$((1767225600 + i * 3600))" +%Y-%m-%dT%H:%M:%SZ)
		rel=v0.38.26
		if [ -n "${RELEASE_EVERY:-}" ]; then rel="v0.38.$((26 + i / RELEASE_EVERY))"; fi
		sed -e "s/\"id\": \"[^\"]*\"/\"id\": \"run-$i\"/" -e "s/\"started\": \"[^\"]*\"/\"started\": \"$ts\"/" \
			-e "s/v0\.38\.26/$rel/g" "$tpl/run.json" >"$d/run.json"
		awk -v seed="$i" -v at="${SHIFT_AT:--1}" -v shift="${SHIFT:-1}" 'BEGIN { srand(seed); f = 0.9 + 0.2 * rand(); if (at >= 0 && seed >= at) f *= shift }
			/"metrics": \{/ { m = 1; print; next }
			m && /^  \}/ { m = 0 }
			m && match($0, /: -?[0-9.e+-]+,?$/) {
				v = substr($0, RSTART + 2); comma = (v ~ /,$/) ? "," : ""; sub(/,$/, "", v)
				printf "%s: %.6g%s\n", substr($0, 1, RSTART - 1), v * f, comma; next }
			{ print }' "$tpl/summary.json" >"$d/summary.json"
	done
	echo "made $n run directories in $(echo "$(date +%s.%N) - $start" | bc) s ($(du -sm "$work/runs" | cut -f1) MB)"
}
