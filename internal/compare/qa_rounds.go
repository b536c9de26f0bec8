package compare

import (
	"fmt"
	"math"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/sequential"
)

// QALook is the sequential rule's look at a QA test's undecided figures
// (over the threshold, not significant) after its rounds so far: whether
// another round is wanted, and each undecided figure's decision.
type QALook struct {
	// Rounds are the rounds (pairs of runs) so far, Budget the most the
	// test may run.
	Rounds int `json:"rounds"`
	Budget int `json:"budget"`
	// More is true when some figure is still undecided and the budget
	// allows another round.
	More bool `json:"more"`
	// Figures are the decisions of the undecided figures, by id
	// (sequential.Step over their paired rounds: ab's rule).
	Figures map[string]sequential.Result `json:"figures,omitempty"`
}

// QAMoreRounds takes the sequential look ab takes (sequential.Step:
// O'Brien–Fleming alpha spending over a horizon of budget rounds, paired
// t over the rounds, TOST for equivalence, α split over the looked-at
// figures) at the figures of figs that JudgeQA left undecided
// (QABeyondNotSignificant), from c — the comparison of the test's rounds
// so far, baseline runs and candidate runs in round order. A count
// figure (CountExposure) is looked at as a rate over its runs' exposures.
//
// More is true when a figure is still undecided and rounds < budget: run
// another round, compare again, then call QAMoreRounds again; when More
// is false, ApplyQALook gives the figures their final verdicts. A
// figure whose rounds cannot be paired (missing in a run) is undecided
// and wants rounds as the others do.
func QAMoreRounds(c Result, figs []results.QAFigure, budget int) (QALook, error) {
	rows := map[string]Row{}
	rounds := math.MaxInt
	for _, r := range c.Metrics {
		rows[r.ID] = r
		if len(r.Candidates) > 0 && len(r.BaselineRuns) > 0 {
			rounds = min(rounds, len(r.BaselineRuns), len(r.Candidates[0].Runs))
		}
	}
	if rounds == math.MaxInt {
		rounds = min(len(c.Baseline.Runs), len(c.Candidates[0].Runs))
	}
	look := QALook{Rounds: rounds, Budget: budget, Figures: map[string]sequential.Result{}}
	var ms []sequential.Metric
	undecided := 0
	for _, f := range figs {
		if QAVerdict(f.Verdict) != QABeyondNotSignificant {
			continue
		}
		undecided++
		if m, ok := qaSeqMetric(c.Method.Thresholds, rows, f.ID, rounds); ok {
			ms = append(ms, m)
		}
	}
	if undecided == 0 {
		return look, nil
	}
	if len(ms) == 0 || rounds < 2 || budget < 2 {
		look.More = rounds < budget
		return look, nil
	}
	alpha := c.Method.Thresholds.Alpha
	if alpha <= 0 {
		alpha = DefaultAlpha
	}
	d, err := sequential.Step(sequential.Config{Alpha: alpha, MaxPairs: max(budget, rounds), FamilyWise: true}, ms)
	if err != nil {
		return look, fmt.Errorf("the sequential look: %w", err)
	}
	for _, r := range d.Metrics {
		look.Figures[r.ID] = r
	}
	decided := 0
	for _, r := range d.Metrics {
		if r.Outcome != sequential.Undecided {
			decided++
		}
	}
	look.More = decided < undecided && rounds < budget
	return look, nil
}

// qaSeqMetric is figure id's paired rounds as the sequential rule takes
// them; ok is false when they cannot be paired.
func qaSeqMetric(th Thresholds, rows map[string]Row, id string, rounds int) (sequential.Metric, bool) {
	row, ok := rows[id]
	if !ok || len(row.Candidates) == 0 || len(row.BaselineRuns) != rounds || len(row.Candidates[0].Runs) != rounds {
		return sequential.Metric{}, false
	}
	pct, floor, _ := th.For(id)
	m := sequential.Metric{ID: id, ThresholdPct: pct, MinDelta: floor, Base: row.BaselineRuns, Cand: row.Candidates[0].Runs,
		Better: sequential.LowerIsBetter}
	if row.Better == analysis.HigherIsBetter.String() {
		m.Better = sequential.HigherIsBetter
	}
	if exposure, _, isCount := rateOf(id); isCount {
		e, ok := rows[exposure]
		if !ok || len(e.Candidates) == 0 || len(e.BaselineRuns) != rounds || len(e.Candidates[0].Runs) != rounds {
			return sequential.Metric{}, false
		}
		m.BaseExposure, m.CandExposure, m.MinDelta = e.BaselineRuns, e.Candidates[0].Runs, 0
	}
	return m, true
}

// ApplyQALook returns figs with the decisions of look: a figure the
// sequential rule called worse is a regression, better is better,
// equivalent (within the threshold, by TOST) passes; one still undecided
// once no more rounds are wanted (look.More false) is "undecided after N
// rounds" (UndecidedAfter = look.Rounds). Figures the look did not take
// are returned as they were.
func ApplyQALook(figs []results.QAFigure, look QALook) []results.QAFigure {
	out := make([]results.QAFigure, len(figs))
	copy(out, figs)
	for i := range out {
		f := &out[i]
		if QAVerdict(f.Verdict) != QABeyondNotSignificant {
			continue
		}
		r, ok := look.Figures[f.ID]
		switch {
		case ok && r.Outcome == sequential.Worse:
			f.Verdict = string(QARegression)
			f.Reason = fmt.Sprintf("worse by the sequential rule after %d rounds (p %.3g at level %.3g): %s", r.DecidedAt, r.P, r.Level, f.Reason)
			f.Significance = sequentialSignificance(r)
		case ok && r.Outcome == sequential.Better:
			f.Verdict = string(QABetter)
			f.Reason = fmt.Sprintf("better by the sequential rule after %d rounds (p %.3g at level %.3g)", r.DecidedAt, r.P, r.Level)
			f.Significance = sequentialSignificance(r)
		case ok && r.Outcome == sequential.Equivalent:
			f.Verdict = string(QAPass)
			f.Reason = fmt.Sprintf("within the threshold by the sequential rule's equivalence test after %d rounds", r.DecidedAt)
			f.Significance = fmt.Sprintf("within the threshold by the sequential rule (%d rounds)", r.DecidedAt)
		}
	}
	if !look.More {
		return QAFinal(out, look.Rounds)
	}
	return out
}

// QAFinal is figs once the test runs no more rounds (its budget spent,
// or no round more came, or a report judging the rounds it has): a
// figure still undecided says after how many (UndecidedAfter = rounds),
// whatever the look would have wanted.
func QAFinal(figs []results.QAFigure, rounds int) []results.QAFigure {
	out := make([]results.QAFigure, len(figs))
	copy(out, figs)
	for i := range out {
		if QAVerdict(out[i].Verdict) == QABeyondNotSignificant && out[i].UndecidedAfter == 0 {
			out[i].UndecidedAfter = rounds
		}
	}
	return out
}

// sequentialSignificance is the significance column of a figure the
// sequential rule decided: the fixed-sample test over all the test's
// figures (Holm) left it "not significant", the sequential test of the
// undecided figures alone decided it, and the row says which.
func sequentialSignificance(r sequential.Result) string {
	return fmt.Sprintf("significant by the sequential rule (p %.3g at level %.3g, %d rounds)", r.P, r.Level, r.DecidedAt)
}

// QAFigureVerdictText is a figure's verdict as the report writes it:
// QAVerdict.Text, and "undecided after N rounds" for a figure the
// budget of rounds left undecided.
func QAFigureVerdictText(f results.QAFigure, thresholdPct float64) string {
	if QAVerdict(f.Verdict) == QABeyondNotSignificant && f.UndecidedAfter > 0 {
		return fmt.Sprintf("undecided after %d rounds", f.UndecidedAfter)
	}
	return QAVerdict(f.Verdict).Text(thresholdPct)
}

// QAJudge is a QA test's judgement after its rounds so far, in one call:
// QAFigures of c, the sequential look at the undecided figures
// (QAMoreRounds, within budget rounds) and its decisions applied
// (ApplyQALook). The QA runner calls it after each round: while
// look.More, it runs another round and calls it again; otherwise figs
// are the test's final figures.
func QAJudge(c Result, budget int) (figs []results.QAFigure, look QALook, err error) {
	figs = QAFigures(c)
	look, err = QAMoreRounds(c, figs, budget)
	if err != nil {
		return figs, look, err
	}
	return ApplyQALook(figs, look), look, nil
}
