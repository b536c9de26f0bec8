package compare

import (
	"fmt"

	"github.com/cometlab/cometlab/internal/analysis"
)

// judge sets the cell's verdict and reason from its change (material:
// beyond the threshold and floor) and its evidence (P, CI).
func (c *comparer) judge(cell *Cell, m analysis.Metric, d float64, material bool, beyond, within string) {
	cell.Verdict = NoChange
	cell.Beyond, cell.Tested = material, cell.P != nil || cell.CI != nil
	switch {
	case !material && d == 0:
		cell.Reason = "no change"
		return
	case !material:
		cell.Reason = within
		return
	case cell.P == nil && cell.CI == nil:
		cell.Reason = beyond + ", but single runs give no noise estimate for this figure: repeat the runs to judge it"
		return
	}
	sig := (cell.P != nil && *cell.P < c.opts.Thresholds.Alpha) || (cell.CI != nil && cell.CI.Excludes(0))
	if !sig {
		cell.Reason = beyond + ", but not significant (" + c.evidenceText(*cell) + ")"
		return
	}
	good := (m.Better == analysis.HigherIsBetter) == (d > 0)
	cell.Verdict = Worse
	if good {
		cell.Verdict = Better
	}
	cell.Reason = beyond + " and significant (" + c.evidenceText(*cell) + ")"
}

func (c *comparer) evidenceText(cell Cell) string {
	var parts []string
	if cell.P != nil {
		parts = append(parts, "p "+fmtP(*cell.P))
	}
	if cell.CI != nil {
		if cell.CI.Excludes(0) {
			parts = append(parts, "the interval excludes 0")
		} else {
			parts = append(parts, "the interval includes 0")
		}
	}
	s := parts[0]
	for _, p := range parts[1:] {
		s += "; " + p
	}
	return s
}

// fmtNum formats a threshold without trailing zeros.
func fmtNum(v float64) string { return fmt.Sprint(v) }

// fmtP formats a p-value with its relation: "= 0.0312", "< 0.0001".
func fmtP(p float64) string {
	if p < 1e-4 {
		return "< 0.0001"
	}
	return "= " + fmt.Sprintf("%.3g", p)
}

// ViolationWorse reports whether a candidate of r has more safety
// violations than the baseline (a metric marked Violation judged worse):
// ab's sequential verdict, which tests other figures, must not hide it.
func ViolationWorse(r Result) bool {
	for _, row := range r.Metrics {
		if m, ok := analysis.Lookup(row.ID); !ok || !m.Violation {
			continue
		}
		for _, c := range row.Candidates {
			if c.Verdict == Worse {
				return true
			}
		}
	}
	return false
}
