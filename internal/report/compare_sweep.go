package report

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/cometlab/cometlab/internal/compare"
	"github.com/cometlab/cometlab/internal/results"
)

// sweepKeyIDs are the metrics whose Δ % the sweep overview shows.
var sweepKeyIDs = []string{"throughput_ratio", "committed_tps", "block_latency_p50_ms", "block_latency_p99_ms"}

// WriteSweepCompare writes the overview of a sweep comparison into dir
// (compare.md, compare.html, compare.json): per cell, each candidate's
// verdict and the Δ % of the key figures, with a link to the cell's own
// comparison (written with WriteCompare into dir/results.CompareCellDir(id)),
// and the sweep's verdict (see compare.SweepResult.Conclude); cells some
// sweep lacks are listed.
func WriteSweepCompare(dir string, s compare.SweepResult, command string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	var b bytes.Buffer
	m := mdWriter{w: &b}
	title := fmt.Sprintf("sweep %s vs %s", strings.Join(s.Candidates, ", "), s.Baseline)
	m.f("# Comparison: %s\n\n**Verdict: %s.** Cells are matched by id; each links to its own comparison.\n\n", title, strings.ToUpper(VerdictText(s.Verdict)))
	if command != "" {
		m.f("```sh\n%s\n```\n\n", command)
	}
	head := []string{"cell"}
	for _, l := range s.Candidates {
		head = append(head, l+" verdict")
		for _, id := range sweepKeyIDs {
			head = append(head, "Δ % "+metricFor(id).Title)
		}
	}
	var rows [][]string
	var unmatched []string
	for _, c := range s.Cells {
		switch {
		case c.Result == nil && len(c.Missing) > 0:
			unmatched = append(unmatched, fmt.Sprintf("`%s` (not in %s)", c.ID, strings.Join(c.Missing, ", ")))
			continue
		case c.Result == nil:
			unmatched = append(unmatched, fmt.Sprintf("`%s` (no readable run: %s)", c.ID, strings.Join(c.Problems, "; ")))
			continue
		}
		row := []string{fmt.Sprintf("[%s](%s/%s)", c.ID, c.Dir, results.CompareMD)}
		for ci, side := range c.Result.Candidates {
			row = append(row, fmt.Sprintf("%s (%d worse, %d better)", VerdictText(side.Verdict), side.Worse, side.Better))
			for _, id := range sweepKeyIDs {
				i := slices.IndexFunc(c.Result.Metrics, func(r compare.Row) bool { return r.ID == id })
				if i < 0 {
					row = append(row, "—")
					continue
				}
				cell := c.Result.Metrics[i].Candidates[ci]
				t := pctText(cell)
				if cell.Verdict == compare.Worse || cell.Verdict == compare.Better {
					t = "**" + t + "** " + VerdictText(cell.Verdict)
				}
				row = append(row, t)
			}
		}
		rows = append(rows, row)
	}
	m.table(head, "l"+strings.Repeat("r", len(head)-1), rows)
	if len(unmatched) > 0 {
		m.f("Cells not compared: %s.\n\n", strings.Join(unmatched, ", "))
	}
	return writeCompareFiles(dir, "cometlab "+title, b.Bytes(), s)
}
