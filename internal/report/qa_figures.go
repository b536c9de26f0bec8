package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/compare"
	"github.com/cometlab/cometlab/internal/results"
)

// qaFigures is a test's table: the headline figures, then every other
// figure whose verdict is not a pass, each with its unit, its n per
// side, both sides' values, Δ with its unit, Δ %, the interval of Δ, p,
// the method's 10 % rule and significance each in a word, and the
// verdict they make together.
func (m mdWriter) qaFigures(rec results.QARecord, figs []results.QAFigure) {
	var rows [][]string
	hidden, rates := 0, false
	for _, f := range figs {
		v := compare.QAVerdict(f.Verdict)
		if !f.Headline && (v == compare.QAPass || v == compare.QANotJudged) {
			hidden++
			continue
		}
		rates = rates || f.Rate != nil
		rows = append(rows, qaFigureRow(f, rec.ThresholdPct))
	}
	th := fmtFloat(rec.ThresholdPct)
	m.table([]string{"figure", "unit", "n", rec.Labels[0], rec.Labels[1], "Δ", "Δ %", "interval of Δ", "p", th + " % rule",
		"significance", "verdict"}, "llrrrrrrrlll", rows)
	m.f("n: the runs of each side (baseline v candidate); values are the means over them. Interval: of Δ at %s %% "+
		"confidence, widened (Bonferroni) over the test's figures where p is Holm-adjusted; p: the test's (`compare.md` names it), "+
		"Holm-adjusted over the test's figures. %s %% rule: the method's rule as published, a difference of more than %[2]s %%. "+
		"The verdict: a **regression** is worse by more than %[2]s %% and significant; **undecided** is worse by more than %[2]s %% "+
		"and not significant (more rounds decide it, within the budget); **worse, within %[2]s %%** is significant but under the rule's "+
		"threshold.", fmtFloat(100*(1-rec.Alpha)), th)
	if rates {
		m.f(" A count (slow heights, blocks after round 0, rejected transactions) is judged as a rate: events of exposure summed over " +
			"a side's runs (\"6 of 130\": 6 slow heights in 130 heights), Δ the change of the rate, Δ %% and the interval those of " +
			"the ratio of the rates, p the conditional binomial test of two rates (or the runs' spread, when they vary more).")
	}
	m.f(" Every figure is defined in the [data dictionary](#data-dictionary).\n\n")
	if hidden > 0 {
		m.f("%d other figures passed or are not judged (see the comparison).\n\n", hidden)
	}
}

// qaFigureRow is one figure's row of qaFigures.
func qaFigureRow(f results.QAFigure, thresholdPct float64) []string {
	dm := metricFor(f.ID)
	if dm.Unit == "" {
		dm.Unit = f.Unit
	}
	v := compare.QAVerdict(f.Verdict)
	verdict := compare.QAFigureVerdictText(f, thresholdPct)
	if v == compare.QARegression || v == compare.QAWorseWithin || v == compare.QABeyondNotSignificant {
		verdict = "**" + verdict + "**"
	}
	sig := f.Significance
	if sig == "" {
		sig = "—"
	}
	n := fmt.Sprintf("%d v %d", f.NBase, f.NCand)
	if f.NBase == 0 && f.NCand == 0 {
		n = "—" // a record written before the QA kept n
	}
	if f.Delta == nil && f.Baseline != nil && f.Candidate != nil {
		d := *f.Candidate - *f.Baseline
		f.Delta = &d
	}
	if r := f.Rate; r != nil {
		b, c := r.Rates()
		return []string{f.Title, unitText(dm) + " per " + r.Per, n,
			groupDigits(r.BaseCount) + " of " + groupDigits(r.BaseExposure), groupDigits(r.CandCount) + " of " + groupDigits(r.CandExposure),
			signedRate(c - b), ratePct(*r), ratioInterval(*r), pText(f.P), compare.QARuleText(f.Rule, thresholdPct), sig, verdict}
	}
	delta, ci := "—", "—"
	if f.Delta != nil {
		delta = signedMean(dm, *f.Delta, max(f.NBase, f.NCand))
		switch u := unitText(dm); u {
		case "":
		case analysis.UnitPct:
			delta += " points" // of a share: a change of 1 % of a core is not 1 % of the baseline
		default:
			delta += " " + u
		}
	}
	if f.CILo != nil && f.CIHi != nil {
		k := max(f.NBase, f.NCand)
		ci = "[" + signedMean(dm, *f.CILo, k) + ", " + signedMean(dm, *f.CIHi, k) + "]"
	}
	p := pText(f.P)
	if p == "" {
		p = "—"
	}
	return []string{f.Title, unitText(dm), n, qaMean(dm, f.Baseline, f.NBase), qaMean(dm, f.Candidate, f.NCand), delta,
		qaPct(f.Delta, f.DeltaPct), ci, p, compare.QARuleText(f.Rule, thresholdPct), sig, verdict}
}

// unitText is a unit as a table's unit column writes it ("" for a ratio).
func unitText(m analysis.Metric) string {
	if m.Unit == analysis.UnitRatio {
		return ""
	}
	return m.Unit
}

func qaMean(m analysis.Metric, v *float64, n int) string {
	if v == nil {
		return "—"
	}
	return formatMean(m, *v, n)
}

// qaPct formats Δ %, "0 %" for no change and "n/a (baseline 0)" when the
// baseline is 0.
func qaPct(d, p *float64) string {
	switch {
	case d == nil:
		return "—"
	case *d == 0:
		return "0 %"
	case p == nil || math.IsNaN(*p):
		return "n/a (baseline 0)"
	}
	return strings.Replace(fmt.Sprintf("%+.1f %%", *p), "-", "−", 1)
}

// signedMean is signed for a difference of means over n runs.
func signedMean(m analysis.Metric, v float64, n int) string {
	s := formatMean(m, v, n)
	if strings.Trim(s, "-0.,") == "" {
		return "0"
	}
	if v > 0 {
		s = "+" + s
	}
	return strings.Replace(s, "-", "−", 1)
}

// signedRate formats a difference of rates to 3 significant digits.
func signedRate(d float64) string {
	if d == 0 {
		return "0"
	}
	s := strconv.FormatFloat(d, 'g', 3, 64)
	if d > 0 {
		s = "+" + s
	}
	return strings.Replace(s, "-", "−", 1)
}

func ratePct(r results.Rate) string {
	if r.BaseCount == 0 && r.CandCount == 0 {
		return "0 %"
	}
	if d, ok := r.DeltaPct(); ok {
		return strings.Replace(fmt.Sprintf("%+.1f %%", d), "-", "−", 1)
	}
	return "n/a (baseline 0)"
}

// ratioInterval is the interval of a rate ratio: "ratio 0.81 … 1.35",
// "… ∞" when unbounded.
func ratioInterval(r results.Rate) string {
	lo, hi := "0", "∞"
	if r.Lo != nil {
		lo = strconv.FormatFloat(*r.Lo, 'g', 3, 64)
	}
	if r.Hi != nil {
		hi = strconv.FormatFloat(*r.Hi, 'g', 3, 64)
	}
	return "ratio " + lo + " … " + hi
}

// qaSafetyViolation opens a step's section with its safety violation:
// one line when short, else its head and a list of its parts, one per run
// or side (the parts of the summary that start with a run's directory,
// tests/…, or a side's label), so that a dozen runs' findings read as a
// list rather than as one paragraph.
func (m mdWriter) qaSafetyViolation(rec results.QARecord, summary string) {
	if len([]rune(summary)) <= 160 {
		m.f("**Safety violation:** %s\n\n", summary)
		return
	}
	head, rest, _ := strings.Cut(summary, ": ")
	starts := func(p string) bool {
		if strings.HasPrefix(p, results.QATestsDir+"/") {
			return true
		}
		for _, l := range rec.Labels {
			if strings.HasPrefix(p, l+": ") {
				return true
			}
		}
		return false
	}
	var items []string
	for _, p := range strings.Split(rest, "; ") {
		if len(items) == 0 || starts(p) {
			items = append(items, p)
			continue
		}
		items[len(items)-1] += "; " + p
	}
	m.f("**Safety violation:** %s:\n\n", head)
	for _, it := range items {
		m.f("- %s\n", it)
	}
	m.f("\n")
}

// foldCell keeps a table cell short: a text longer than 160 characters
// becomes its first clause (to the first ": " or "; ", cut at a word
// within 120 characters) and a link to anchor, where the whole text is.
func foldCell(s, anchor string) string {
	if len([]rune(s)) <= 160 {
		return s
	}
	head := s
	if i := strings.IndexAny(s, ":;"); i > 0 {
		head = s[:i]
	}
	if r := []rune(head); len(r) > 120 {
		head = string(r[:120])
		if i := strings.LastIndex(head, " "); i > 0 {
			head = head[:i]
		}
		head += " …"
	}
	return head + " ([details](#" + anchor + "))"
}

// headingID is the id goldmark's auto heading ID gives a heading: lower
// case, spaces as hyphens, other punctuation dropped.
func headingID(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}
