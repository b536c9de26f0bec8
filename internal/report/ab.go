package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/compare"
	"github.com/cometlab/cometlab/internal/sequential"
	"gonum.org/v1/gonum/stat/distuv"
)

// ABSequential is what the top of an A/B experiment run with --repeat
// auto shows: its settings, the decision for every candidate and the
// verdict they give.
type ABSequential struct {
	// Labels are the sides, the baseline first.
	Labels     []string
	Pairs      int
	MaxPairs   int
	Decisions  []sequential.Decision // one per candidate
	Verdict    compare.Verdict
	Method     string
	Alpha      float64 // 0 means compare.DefaultAlpha
	FamilyWise bool
	Stop       string   // "all" or "worse"
	Judged     []string // the metrics judged; empty means all
}

// ABSequentialMarkdown is the top of an auto experiment's report: its
// verdict in one sentence per candidate, naming the metrics that decided
// it and the pairs each needed, then every metric's decision.
func ABSequentialMarkdown(s ABSequential) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## A/B verdict: %s after %d pairs (sequential)\n\n", strings.ToUpper(VerdictText(s.Verdict)), s.Pairs)
	for ci, d := range s.Decisions {
		fmt.Fprintf(&b, "- %s\n", abSentence(s.Labels[ci+1], s.Labels[0], d))
	}
	fmt.Fprintf(&b, "\nMethod: %s; α = %s per metric%s, at most %d pairs, stop when %s. "+
		"A metric is decided worse or better when its paired difference is significant at the level the spending function gives "+
		"that look and at least its threshold, equivalent when its interval lies within ±threshold. This verdict, not the tables "+
		"below (compare's fixed-sample view of all the runs, which makes no allowance for the repeated looks), is the exit code's.\n\n",
		s.Method, abAlpha(cmp.Or(s.Alpha, compare.DefaultAlpha)), s.familyText(), s.MaxPairs, s.stopText())
	for ci, d := range s.Decisions {
		if len(s.Decisions) > 1 {
			fmt.Fprintf(&b, "### %s\n\n", s.Labels[ci+1])
		}
		b.WriteString("| metric | outcome | decided at pair | mean Δ | threshold | p | level of the look |\n|---|---|---:|---:|---:|---:|---:|\n")
		rs := slices.Clone(d.Metrics)
		slices.SortStableFunc(rs, func(a, b sequential.Result) int {
			return cmp.Compare(abOutcomeRank(a.Outcome), abOutcomeRank(b.Outcome))
		})
		for _, r := range rs {
			at := "—"
			if r.DecidedAt > 0 {
				at = fmt.Sprint(r.DecidedAt)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %.3g | %.3g |\n", abMetricTitle(r.ID), r.Outcome, at,
				abSigned(r.ID, r.MeanDiff), FormatMetric(r.ID, r.Threshold), r.P, r.Level)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func (s ABSequential) familyText() string {
	if s.FamilyWise {
		return " divided among the judged metrics (Bonferroni)"
	}
	return ""
}

func (s ABSequential) stopText() string {
	t := "every judged metric is decided"
	if s.Stop == "worse" {
		t = "a metric is decided worse (or every one is decided)"
	}
	if len(s.Judged) > 0 {
		t += " (judged: " + strings.Join(s.Judged, ", ") + ")"
	}
	return t
}

// abOutcomeRank orders the decisions of a table: the changes first.
func abOutcomeRank(o sequential.Outcome) int {
	return map[sequential.Outcome]int{sequential.Worse: 0, sequential.Better: 1, sequential.Changed: 2,
		sequential.Equivalent: 3, sequential.Undecided: 4}[o]
}

// abSentence says what a candidate's decision is, naming at most three
// metrics decided worse (or better) with the pairs they needed.
func abSentence(cand, base string, d sequential.Decision) string {
	by := map[sequential.Outcome][]sequential.Result{}
	for _, r := range d.Metrics {
		by[r.Outcome] = append(by[r.Outcome], r)
	}
	name := func(rs []sequential.Result) string {
		var parts []string
		for _, r := range rs {
			parts = append(parts, fmt.Sprintf("%s (%s, at pair %d)", abMetricTitle(r.ID), abSigned(r.ID, r.MeanDiff), r.DecidedAt))
		}
		return analysis.JoinFew(parts, 3, "and %d more")
	}
	counts := fmt.Sprintf("%d equivalent, %d undecided", len(by[sequential.Equivalent]), len(by[sequential.Undecided]))
	who := fmt.Sprintf("**%s** against %s", cand, base)
	switch {
	case len(by[sequential.Worse]) > 0:
		return fmt.Sprintf("%s: **worse** in %s; %d better, %s.", who, name(by[sequential.Worse]), len(by[sequential.Better]), counts)
	case len(by[sequential.Better]) > 0:
		return fmt.Sprintf("%s: **better** in %s; none worse, %s.", who, name(by[sequential.Better]), counts)
	}
	return fmt.Sprintf("%s: **no metric decided worse or better**; %s.", who, counts)
}

func abMetricTitle(id string) string {
	if m, ok := analysis.Lookup(id); ok {
		if m.Unit != "" && m.Unit != "txs" && m.Unit != "count" {
			return m.Title + " (" + m.Unit + ")"
		}
		return m.Title
	}
	return id
}

func abSigned(id string, v float64) string {
	s := FormatMetric(id, math.Abs(v))
	switch {
	case strings.Trim(s, "0.,") == "":
		return "0"
	case v < 0:
		return "−" + s
	}
	return "+" + s
}

// ABNoiseMarkdown is the top of an A/A calibration's report: the false
// alarms of single-run comparisons over its pairs, before and after the
// noise, and every metric's noise.
func ABNoiseMarkdown(n compare.Noise) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## A/A calibration: the between-run noise of this setup (%d pairs)\n\n", n.Pairs)
	if fa := n.FalseAlarms; fa != nil && fa.Pairs > 0 {
		abFalseAlarms(&b, fa, n.Alpha)
	}
	abPosition(&b, n.Position)
	fmt.Fprintf(&b, "Per metric: the mean over every run, the between-run coefficient of variation, the RMS of the pairs' Δ %%, the "+
		"**noise floor** a single-run change must exceed to be significant (t(1 − α/2; pairs) × RMS), and the smallest change an A/B "+
		"of %d pairs detects with 80 %% power. Saved as `noise.json`: pass it to `cometlab compare --noise`.\n\n", n.Pairs)
	family := 0
	for _, m := range n.Metrics {
		if m.DiffRMSPct > 0 || m.DiffRMS > 0 {
			family++
		}
	}
	fmt.Fprintf(&b, "A single-run `compare` corrects for judging about %d metrics at once (Holm): the change it first calls significant "+
		"must exceed the floor \"with Holm\", t(1 − α/(2·%d); pairs) × RMS.\n\n", family, family)
	b.WriteString("| metric | mean | CV | Δ % RMS | single-run floor | with Holm | detectable with these pairs |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, dm := range analysis.Dictionary() {
		m, ok := n.Metrics[dm.ID]
		if !ok {
			continue
		}
		pct := func(v float64) string {
			if m.RelPairs < m.Pairs {
				return "—"
			}
			return fmt.Sprintf("%.1f %%", v)
		}
		holm := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(max(m.RelPairs, 1))}.Quantile(1-n.Alpha/(2*float64(max(family, 1)))) * m.DiffRMSPct
		fmt.Fprintf(&b, "| %s | %s | %.1f %% | %s | %s | %s | %s |\n", abMetricTitle(dm.ID), FormatMetric(dm.ID, m.Mean), m.CVPct,
			pct(m.DiffRMSPct), pct(m.FloorPct), pct(holm), pct(m.MDEPct))
	}
	b.WriteString("\n")
	return b.String()
}

// abFalseAlarms writes the A/A section's false alarms: the rates before
// and after the noise, and the metrics flagged.
func abFalseAlarms(b *strings.Builder, fa *compare.FalseAlarms, alpha float64) {
	mb, ma := fa.MetricRates()
	fmt.Fprintf(b, "Both sides ran the same spec, so every metric called worse or better is a false alarm. Each pair compared as "+
		"two single runs (`cometlab compare A B`):\n\n")
	fmt.Fprintf(b, "- **with the within-run tests alone** (compare without `--noise`): a false alarm in **%d of %d pairs (%.0f %%)**; "+
		"%.1f %% of the %d metric judgements per pair;\n", fa.Before, fa.Pairs, 100*fa.RateBefore(), 100*mb, fa.Judged)
	fmt.Fprintf(b, "- **against the noise of the other %d pairs** (`compare --noise`, leave one out): **%d of %d pairs (%.0f %%)**; "+
		"%.1f %% of the metric judgements (α = %s per metric).\n\n", fa.Pairs-1, fa.After, fa.Pairs, 100*fa.RateAfter(), 100*ma, abAlpha(alpha))
	if len(fa.PerMetricBefore)+len(fa.PerMetricAfter) == 0 {
		return
	}
	b.WriteString("| metric flagged | pairs flagged, within-run | pairs flagged, against the noise |\n|---|---:|---:|\n")
	ids := slices.Sorted(func(yield func(string) bool) {
		seen := map[string]bool{}
		for _, m := range []map[string]int{fa.PerMetricBefore, fa.PerMetricAfter} {
			for id := range m {
				if !seen[id] {
					seen[id] = true
					if !yield(id) {
						return
					}
				}
			}
		}
	})
	slices.SortStableFunc(ids, func(a, b string) int {
		return cmp.Compare(fa.PerMetricBefore[b]+fa.PerMetricAfter[b], fa.PerMetricBefore[a]+fa.PerMetricAfter[a])
	})
	for _, id := range ids {
		fmt.Fprintf(b, "| %s | %d | %d |\n", abMetricTitle(id), fa.PerMetricBefore[id], fa.PerMetricAfter[id])
	}
	b.WriteString("\n")
}

func abAlpha(a float64) string { return fmt.Sprint(a) }

// abPosition writes the position effect: how the second run of a round
// differed from the first, per main metric, with its interval.
func abPosition(b *strings.Builder, ps []compare.PositionEffect) {
	if len(ps) == 0 {
		return
	}
	b.WriteString("**Position effect**: the second run of a round against the first (both the same setup), mean Δ % over the " +
		"rounds with its interval. An interval that excludes 0 is an effect of the order, which a counterbalanced or random order " +
		"cancels out of an A/B.\n\n| metric | rounds | second vs first | interval | |\n|---|---:|---:|---:|---|\n")
	for _, p := range ps {
		shown := "not shown"
		if p.Excludes0() {
			shown = "**an effect**"
		}
		fmt.Fprintf(b, "| %s | %d | %+.1f %% | %+.1f … %+.1f %% | %s |\n", abMetricTitle(p.Metric), p.Pairs, p.MeanPct, p.LoPct, p.HiPct, shown)
	}
	b.WriteString("\n")
}
