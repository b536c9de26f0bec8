package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/cometlab/cometlab/internal/results"
)

// QAPlanText writes the plan of a QA for a terminal (qa --plan): each
// step with its estimate, then each group of runs (side, what, count ×
// duration, the settings changed), or why the step does not run; then
// the total and what a budget gave up.
func QAPlanText(w io.Writer, p results.QAPlan) {
	fmt.Fprintf(w, "Each run takes its load's duration plus %s of overhead (%s).\n\n", fmtS(p.OverheadS), p.OverheadFrom)
	runs := 0
	for i, st := range p.Steps {
		switch {
		case st.Skip != "":
			fmt.Fprintf(w, "%d. %s: %s\n", i+1, st.Title, st.Skip)
			continue
		case len(st.Runs) == 0:
			fmt.Fprintf(w, "%d. %s: no runs, chosen from the saturation step\n", i+1, st.Title)
			continue
		}
		fmt.Fprintf(w, "%d. %s, ≈ %s:\n", i+1, st.Title, fmtS(st.EstimateS))
		var b bytes.Buffer
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, r := range st.Runs {
			runs += r.Count
			fmt.Fprintf(tw, "   %s: %s\t%s\t%s\n", r.Side, r.What, planCount(r), strings.Join(r.Changes, " "))
		}
		_ = tw.Flush()
		for _, line := range strings.SplitAfter(b.String(), "\n") {
			fmt.Fprint(w, strings.TrimRight(line, " \n")+strings.Repeat("\n", strings.Count(line, "\n")))
		}
	}
	fmt.Fprintf(w, "\nTotal: %d runs, ≈ %s", runs, fmtS(p.EstimateS))
	if p.BudgetS > 0 {
		fmt.Fprintf(w, " (budget %s)", fmtS(p.BudgetS))
	}
	fmt.Fprintln(w, ".")
	if len(p.GaveUp) > 0 {
		fmt.Fprintf(w, "Given up for the budget: %s.\n", strings.Join(p.GaveUp, "; "))
	}
}

// qaPlan is the plan as a table of the report's setup.
func (m mdWriter) qaPlan(p results.QAPlan) {
	m.f("Each run was estimated at its load's duration plus %s of overhead (%s).\n\n", fmtS(p.OverheadS), p.OverheadFrom)
	var rows [][]string
	for _, st := range p.Steps {
		if st.Skip != "" {
			rows = append(rows, []string{st.Title, "—", st.Skip})
			continue
		}
		var parts []string
		for _, r := range st.Runs {
			s := fmt.Sprintf("%s: %s, %s", r.Side, r.What, planCount(r))
			if len(r.Changes) > 0 {
				s += " (" + codeSpan(strings.Join(r.Changes, " ")) + ")"
			}
			parts = append(parts, s)
		}
		if len(parts) == 0 {
			parts = []string{"chosen from the saturation step"}
		}
		rows = append(rows, []string{st.Title, "≈ " + fmtS(st.EstimateS), cell(strings.Join(parts, "; "))})
	}
	m.table([]string{"step", "estimate", "runs"}, "lrl", rows)
	m.f("Estimated in all: %s", fmtS(p.EstimateS))
	if p.BudgetS > 0 {
		m.f(" (budget %s)", fmtS(p.BudgetS))
	}
	m.f(".")
	if len(p.GaveUp) > 0 {
		m.f(" Given up for the budget: %s.", strings.Join(p.GaveUp, "; "))
	}
	m.f("\n\n")
}

// planCount is "N × D", with the most runs when N is an estimate.
func planCount(r results.QAPlanRun) string {
	s := fmt.Sprintf("%d × %s", r.Count, fmtS(r.DurationS))
	if r.MaxCount > r.Count {
		s += fmt.Sprintf(" (at most %d)", r.MaxCount)
	}
	return s
}

// fmtS writes seconds as a duration rounded to what a plan needs: whole
// seconds under ten minutes, whole minutes above.
func fmtS(s float64) string {
	d := time.Duration(s * float64(time.Second))
	if d >= 10*time.Minute {
		return strings.TrimSuffix(d.Round(time.Minute).String(), "0s")
	}
	return d.Round(time.Second).String()
}
