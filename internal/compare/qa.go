package compare

import (
	"fmt"
	"slices"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
)

// QAVerdict is the QA method's judgement of one figure: CometBFT's rule
// (a difference over the threshold, 10 % by default, is a regression)
// beside the significance of the difference over the repeats, each
// outcome named rather than folded into another.
type QAVerdict string

// QA verdicts of a figure.
const (
	// QARegression: worse by the threshold or more, and significant.
	QARegression QAVerdict = "regression"
	// QAWorseWithin: significantly worse, but by less than the threshold.
	QAWorseWithin QAVerdict = "worse_within"
	// QABeyondNotSignificant: undecided — worse by the threshold or
	// more, but the repeats do not show it significant (or single runs
	// gave no between-run noise to judge it against); more rounds may
	// decide it (QAMoreRounds).
	QABeyondNotSignificant QAVerdict = "beyond_not_significant"
	// QAPass: no difference that matters in the worse direction.
	QAPass QAVerdict = "pass"
	// QABetter: better by the threshold or more, and significant.
	QABetter QAVerdict = "better"
	// QANotJudged: a neutral figure, one missing on a side, one whose
	// loads differ, or an extreme that repeats cannot judge.
	QANotJudged QAVerdict = "not_judged"
)

// Text is the verdict as a report writes it, with the threshold (%):
// "regression", "worse, within 10 %", "undecided", "pass", "better",
// "not judged".
func (v QAVerdict) Text(thresholdPct float64) string {
	th := fmtNum(thresholdPct)
	switch v {
	case QAWorseWithin:
		return "worse, within " + th + " %"
	case QABeyondNotSignificant:
		return "undecided"
	case QANotJudged:
		return "not judged"
	}
	return string(v)
}

// JudgeQA is the QA verdict of one candidate's cell of a row, from what
// the comparison found (Sides, with its family correction) and its
// significance level alpha:
//
//   - a neutral, missing, incomparable or unjudged figure is not judged;
//   - a cell compare called worse is a regression when its change
//     reached the threshold (Beyond; a safety violation and a crash are
//     always beyond), better when compare called it better;
//   - otherwise, in the worse direction: beyond the threshold but not
//     significant (no test, or p ≥ alpha and an interval holding 0, or
//     single runs whose within-run evidence calls it changed with no
//     between-run noise to judge it against) is "beyond, not
//     significant"; under the threshold but significant (p < alpha or an
//     interval excluding 0, after the Holm correction) is "worse, within";
//   - anything else passes (no change, a better direction without
//     significance, or noise).
func JudgeQA(row Row, cell Cell, alpha float64) QAVerdict {
	switch cell.Verdict {
	case Missing, NotComparable, NotJudged:
		return QANotJudged
	case Worse:
		if cell.Beyond {
			return QARegression
		}
		return QAWorseWithin
	case Better:
		return QABetter
	}
	if row.Better == analysis.Neutral.String() || !row.InDictionary || cell.Delta == nil {
		return QAPass
	}
	d := *cell.Delta
	if cell.Rate != nil {
		b, c := cell.Rate.Rates()
		d = c - b // a count's direction is its rate's
	}
	if d == 0 {
		return QAPass
	}
	worse := (row.Better == analysis.HigherIsBetter.String()) != (d > 0)
	if !worse {
		return QAPass
	}
	if cell.Verdict == NoiseUnknown || cell.Beyond {
		return QABeyondNotSignificant
	}
	sig := (cell.P != nil && *cell.P < alpha) || (cell.CI != nil && cell.CI.Excludes(0))
	if sig {
		return QAWorseWithin
	}
	return QAPass
}

// The method's 10 % rule as published, in a word (QAFigure.Rule): the
// change of a judged figure is over the threshold in the worse or the
// better direction, or within it.
const (
	QARuleWorse  = "worse_over"
	QARuleBetter = "better_over"
	QARuleWithin = "within"
)

// The significance of a judged figure's change over the repeats, in a
// word (QAFigure.Significance).
const (
	QASignificant    = "significant"
	QANotSignificant = "not significant"
	// QAUntested: no test (single runs without a measured noise, a
	// figure with no evidence).
	QAUntested = "untested"
)

// QARule is the method's rule alone on one candidate's cell: over the
// threshold (and floor; a count's rate ratio) in the worse or better
// direction, or within it; "" for a figure the QA does not judge.
func QARule(row Row, cell Cell) string {
	switch cell.Verdict {
	case Missing, NotComparable:
		return ""
	}
	if row.Better == analysis.Neutral.String() || !row.InDictionary || cell.Delta == nil {
		return ""
	}
	if !cell.Beyond {
		return QARuleWithin
	}
	d := *cell.Delta
	if cell.Rate != nil {
		b, c := cell.Rate.Rates()
		d = c - b
	}
	if (row.Better == analysis.HigherIsBetter.String()) == (d > 0) {
		return QARuleBetter
	}
	return QARuleWorse
}

// QASignificance is whether the cell's change is significant at alpha
// (its p, Holm-adjusted where the comparison corrected it, or its
// interval excluding 0), in a word; "" for a figure the QA does not judge.
func QASignificance(row Row, cell Cell, alpha float64) string {
	if QARule(row, cell) == "" {
		return ""
	}
	switch {
	case cell.Verdict == NoiseUnknown || cell.P == nil && cell.CI == nil:
		return QAUntested
	case cell.P != nil && *cell.P < alpha || cell.CI != nil && cell.CI.Excludes(0):
		return QASignificant
	}
	return QANotSignificant
}

// QARuleText is a rule word as the report writes it, with the threshold
// (%): "worse by over 10 %", "better by over 10 %", "within 10 %", "—".
func QARuleText(rule string, thresholdPct float64) string {
	th := fmtNum(thresholdPct)
	switch rule {
	case QARuleWorse:
		return "worse by over " + th + " %"
	case QARuleBetter:
		return "better by over " + th + " %"
	case QARuleWithin:
		return "within " + th + " %"
	}
	return "—"
}

// QAHeadline are the figures a QA report shows for every test, in this
// order (the published reports' plots: latency, throughput, blocks per
// minute, rounds, mempool, peers, memory, CPU and load, block size);
// every other figure appears only when its verdict is not a pass.
var QAHeadline = []string{
	"block_latency_p50_ms", "block_latency_p99_ms", "block_latency_mean_ms", "committed_tps", "throughput_ratio",
	"blocks_per_s_mean", "block_interval_mean_s", "rounds_max", "blocks_multi_round",
	"mempool_size_mean_txs", "mempool_size_max_txs", "peers_min",
	"rss_max_mib", "cpu_mean_pct", "load1_max", "block_size_mean_bytes",
}

// QAFigures judges every row of c (candidate 0 against the baseline) by
// JudgeQA at the comparison's alpha: one figure per row, the headline
// figures (QAHeadline) first and marked.
func QAFigures(c Result) []results.QAFigure {
	alpha := c.Method.Thresholds.Alpha
	if alpha <= 0 {
		alpha = DefaultAlpha
	}
	var head, rest []results.QAFigure
	for _, row := range c.Metrics {
		if len(row.Candidates) == 0 {
			continue
		}
		cell := row.Candidates[0]
		f := qaFigure(row, cell, alpha)
		if f.Reason == "" && cell.Verdict == NoChange {
			f.Reason = "no change"
		}
		if slices.Contains(QAHeadline, row.ID) {
			f.Headline = true
			head = append(head, f)
			continue
		}
		rest = append(rest, f)
	}
	slices.SortStableFunc(head, func(a, b results.QAFigure) int {
		return slices.Index(QAHeadline, a.ID) - slices.Index(QAHeadline, b.ID)
	})
	return append(head, rest...)
}

// qaFigure is one row's candidate cell as the QA records it.
func qaFigure(row Row, cell Cell, alpha float64) results.QAFigure {
	f := results.QAFigure{ID: row.ID, Title: row.Title, Unit: row.Unit, Baseline: row.Baseline, Candidate: cell.Value,
		NBase: max(len(row.BaselineRuns), one(row.Baseline)), NCand: max(len(cell.Runs), one(cell.Value)),
		Delta: cell.Delta, DeltaPct: cell.DeltaPct, P: cell.P, Test: cell.Test, Rate: cell.Rate,
		Rule: QARule(row, cell), Significance: QASignificance(row, cell, alpha),
		Verdict: string(JudgeQA(row, cell, alpha)), Reason: cell.Reason}
	if cell.CI != nil {
		f.CILo, f.CIHi = ptr(cell.CI.Lo), ptr(cell.CI.Hi)
	}
	return f
}

// one is 1 for a value and 0 for none: a side's n without its runs.
func one(v *float64) int {
	if v == nil {
		return 0
	}
	return 1
}

// QACount counts the figures of each QA verdict.
func QACount(figs []results.QAFigure) map[QAVerdict]int {
	n := map[QAVerdict]int{}
	for _, f := range figs {
		n[QAVerdict(f.Verdict)]++
	}
	return n
}

// QASummary says in one phrase what a test's figures found: the
// regressions named (at most three), then the counts of the figures worse
// within the threshold and beyond it but not significant.
func QASummary(figs []results.QAFigure, thresholdPct float64) string {
	n := QACount(figs)
	var named []string
	for _, f := range figs {
		if QAVerdict(f.Verdict) == QARegression && len(named) < 3 {
			named = append(named, f.Title)
		}
	}
	s := "no regression"
	if r := n[QARegression]; r > 0 {
		s = fmt.Sprintf("%d regression(s): %v", r, named)
		if r > len(named) {
			s += " …"
		}
	}
	th := fmtNum(thresholdPct)
	s += fmt.Sprintf("; worse within %s %%: %d, undecided (worse by over %s %%, not significant): %d, better: %d (%d figures judged)",
		th, n[QAWorseWithin], th, n[QABeyondNotSignificant], n[QABetter], len(figs)-n[QANotJudged])
	return s
}
