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
	// QABeyondNotSignificant: worse by the threshold or more, but the
	// repeats do not show it significant (or single runs gave no
	// between-run noise to judge it against).
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
// "regression", "worse, within 10 %", "beyond 10 %, not significant",
// "pass", "better", "not judged".
func (v QAVerdict) Text(thresholdPct float64) string {
	th := fmtNum(thresholdPct)
	switch v {
	case QAWorseWithin:
		return "worse, within " + th + " %"
	case QABeyondNotSignificant:
		return "beyond " + th + " %, not significant"
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
	if row.Better == analysis.Neutral.String() || !row.InDictionary || cell.Delta == nil || *cell.Delta == 0 {
		return QAPass
	}
	worse := (row.Better == analysis.HigherIsBetter.String()) != (*cell.Delta > 0)
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
		f := results.QAFigure{ID: row.ID, Title: row.Title, Unit: row.Unit, Baseline: row.Baseline, Candidate: cell.Value,
			DeltaPct: cell.DeltaPct, P: cell.P, Verdict: string(JudgeQA(row, cell, alpha)), Reason: cell.Reason}
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
	s += fmt.Sprintf("; worse within %s %%: %d, beyond %s %% but not significant: %d, better: %d (%d figures judged)",
		th, n[QAWorseWithin], th, n[QABeyondNotSignificant], n[QABetter], len(figs)-n[QANotJudged])
	return s
}
