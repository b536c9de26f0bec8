package report

import (
	"strconv"
	"strings"

	"github.com/cometlab/cometlab/internal/saturation"
)

// qaSweep is a step run as a sweep of one setting (the vote-extension
// sizes) at one load: a row per value with the cell's figures (the mean
// over its repeats) and whether it kept up.
func (m mdWriter) qaSweep(rec saturation.SweepRecord) {
	key := ""
	if len(rec.Grid.Params) > 0 {
		key = rec.Grid.Params[0].Key
	}
	var rows [][]string
	for _, t := range saturation.Tables(rec.GridCells()) {
		for _, r := range t.Rates {
			for _, c := range t.Conns {
				cell := t.Cell(c, r)
				if cell == nil {
					continue
				}
				row := []string{strings.TrimPrefix(t.Group, key+"="), strconv.Itoa(cell.Runs)}
				if cell.Runs == 0 {
					rows = append(rows, append(row, "—", "—", "—", "—", "not run yet"))
					continue
				}
				kept := "yes"
				if cell.Saturated {
					kept = "no ✗"
				}
				rows = append(rows, append(row, groupDigits(cell.TPS.Mean), groupDigits(cell.LatencyMeanMS.Mean)+" ms",
					groupDigits(cell.LatencyP99MS.Mean)+" ms", strconv.FormatFloat(cell.Ratio.Mean, 'f', 4, 64), kept))
			}
		}
	}
	if len(rows) == 0 {
		return
	}
	m.table([]string{key, "runs", "committed tx/s", "latency mean", "latency p99", "throughput ratio", "kept up"}, "lrrrrrl", rows)
}
