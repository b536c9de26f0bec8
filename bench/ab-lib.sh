#!/usr/bin/env bash
# Helpers of the bench scripts that read `cometlab ab` experiments
# (timescale.sh, release-known.sh), sourced after the script defines
# figure RUN ID: one figure of a run's summary.json ("" when absent).

# ratios AB FIGURE LABEL: the paired ratios candidate ÷ baseline of each
# round of the experiment AB, one a line (rounds where either is missing or
# the baseline is 0 left out).
ratios() {
	local ab=$1 id=$2 label=$3 n
	n=$(jq '.pairs' "$ab/ab.json")
	for r in $(seq 1 "$n"); do
		local b c
		b=$(figure "$ab/runs/$(printf '%02d' "$r")-base" "$id")
		c=$(figure "$ab/runs/$(printf '%02d' "$r")-$label" "$id")
		[ -n "$b" ] && [ -n "$c" ] && awk -v b="$b" -v c="$c" 'BEGIN { if (b != 0) printf "%.6f\n", c / b; else if (c == 0) print 1 }'
	done
}

# interval: the mean of the numbers on stdin and its 95 % t interval
# ("mean [lo, hi]"; the mean alone for one number, "—" for none).
interval() {
	awk '
	BEGIN { split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 2.201 2.179 2.160 2.145 2.131 2.120 2.110 2.101 2.093 2.086", t, " ") }
	{ x[NR] = $1; s += $1 }
	END {
		if (NR == 0) { print "—"; exit }
		m = s / NR
		if (NR == 1) { printf "%.3f", m; exit }
		for (i = 1; i <= NR; i++) v += (x[i] - m) ^ 2
		se = sqrt(v / (NR - 1) / NR)
		q = (NR - 1 <= 20) ? t[NR - 1] : 1.96
		printf "%.3f [%.3f, %.3f]", m, m - q * se, m + q * se
	}'
}
