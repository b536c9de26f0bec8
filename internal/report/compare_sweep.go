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

// SweepCellCompare is one cell of a sweep comparison.
type SweepCellCompare struct {
	ID string `json:"id"`
	// Dir is the cell's comparison directory relative to the sweep
	// comparison's (CellDir); "" when the cell was not compared.
	Dir string `json:"dir,omitempty"`
	// Missing names the sides (labels) whose sweep has no such cell.
	Missing []string `json:"missing,omitempty"`
	// Problems are runs of the cell that could not be read (a failed
	// cell), skipped.
	Problems   []string           `json:"problems,omitempty"`
	Comparison *compare.Result    `json:"-"`
	Verdict    compare.Verdict    `json:"verdict,omitempty"`
	Candidates []compare.SideInfo `json:"candidates,omitempty"`
}

// SweepCompare is compare.json of a sweep comparison.
type SweepCompare struct {
	Baseline   string             `json:"baseline"`
	Candidates []string           `json:"candidates"`
	Verdict    compare.Verdict    `json:"verdict"`
	Cells      []SweepCellCompare `json:"cells"`
}

// sweepKeyIDs are the metrics whose Δ % the sweep overview shows.
var sweepKeyIDs = []string{"throughput_ratio", "committed_tps", "block_latency_p50_ms", "block_latency_p99_ms"}

// WriteSweepCompare writes the overview of a sweep comparison into dir
// (compare.md, compare.html, compare.json): per cell, each candidate's
// verdict and the Δ % of the key figures, with a link to the cell's own
// comparison (written with WriteCompare into dir/CellDir(id)). The
// verdict is worse when any cell's is; cells some sweep lacks are listed.
func WriteSweepCompare(dir string, s SweepCompare, command string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	s.Verdict = compare.NoChange
	for i := range s.Cells {
		c := &s.Cells[i]
		if c.Comparison == nil {
			continue
		}
		c.Verdict, c.Candidates = c.Comparison.Verdict, c.Comparison.Candidates
		switch {
		case c.Verdict == compare.Worse:
			s.Verdict = compare.Worse
		case c.Verdict == compare.Better && s.Verdict != compare.Worse:
			s.Verdict = compare.Better
		}
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
		case c.Comparison == nil && len(c.Missing) > 0:
			unmatched = append(unmatched, fmt.Sprintf("`%s` (not in %s)", c.ID, strings.Join(c.Missing, ", ")))
			continue
		case c.Comparison == nil:
			unmatched = append(unmatched, fmt.Sprintf("`%s` (no readable run: %s)", c.ID, strings.Join(c.Problems, "; ")))
			continue
		}
		row := []string{fmt.Sprintf("[%s](%s/%s)", c.ID, c.Dir, results.CompareMD)}
		for ci, side := range c.Comparison.Candidates {
			row = append(row, fmt.Sprintf("%s (%d worse, %d better)", VerdictText(side.Verdict), side.Worse, side.Better))
			for _, id := range sweepKeyIDs {
				i := slices.IndexFunc(c.Comparison.Metrics, func(r compare.Row) bool { return r.ID == id })
				if i < 0 {
					row = append(row, "—")
					continue
				}
				cell := c.Comparison.Metrics[i].Candidates[ci]
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
