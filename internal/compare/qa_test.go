package compare

import (
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
)

// TestJudgeQA: the method's 10 % rule beside significance, every
// combination of the two, in both directions of better.
func TestJudgeQA(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	lower := Row{ID: "block_latency_p50_ms", Better: analysis.LowerIsBetter.String(), InDictionary: true}
	higher := Row{ID: "committed_tps", Better: analysis.HigherIsBetter.String(), InDictionary: true}
	neutral := Row{ID: "blocks", Better: analysis.Neutral.String(), InDictionary: true}
	excl := &Interval{Lo: 5, Hi: 30}  // excludes 0
	incl := &Interval{Lo: -5, Hi: 30} // holds 0
	for _, tt := range []struct {
		name string
		row  Row
		cell Cell
		want QAVerdict
	}{
		// beyond the threshold × significant
		{"beyond, significant: regression", lower, Cell{Delta: f(20), DeltaPct: f(20), P: f(0.001), Beyond: true, Tested: true, Verdict: Worse}, QARegression},
		{"beyond, not significant", lower, Cell{Delta: f(20), DeltaPct: f(20), P: f(0.3), CI: incl, Beyond: true, Tested: true, Verdict: NoChange}, QABeyondNotSignificant},
		{"beyond, untested", lower, Cell{Delta: f(20), DeltaPct: f(20), Beyond: true, Verdict: NoChange}, QABeyondNotSignificant},
		{"beyond, single runs without noise", lower, Cell{Delta: f(20), DeltaPct: f(20), Beyond: true, Tested: true, P: f(0.001), Verdict: NoiseUnknown}, QABeyondNotSignificant},
		{"within, significant by p", lower, Cell{Delta: f(5), DeltaPct: f(5), P: f(0.01), Tested: true, Verdict: NoChange}, QAWorseWithin},
		{"within, significant by the interval", lower, Cell{Delta: f(5), DeltaPct: f(5), CI: excl, Tested: true, Verdict: NoChange}, QAWorseWithin},
		{"within, not significant", lower, Cell{Delta: f(5), DeltaPct: f(5), P: f(0.2), CI: incl, Tested: true, Verdict: NoChange}, QAPass},
		{"within, untested", lower, Cell{Delta: f(5), DeltaPct: f(5), Verdict: NoChange}, QAPass},
		// higher is better: a drop is worse
		{"throughput down, beyond, significant", higher, Cell{Delta: f(-200), DeltaPct: f(-25), P: f(0.001), Beyond: true, Tested: true, Verdict: Worse}, QARegression},
		{"throughput down, within, significant", higher, Cell{Delta: f(-20), DeltaPct: f(-2.5), P: f(0.001), Tested: true, Verdict: NoChange}, QAWorseWithin},
		{"throughput down, beyond, not significant", higher, Cell{Delta: f(-200), DeltaPct: f(-25), P: f(0.4), Beyond: true, Tested: true, Verdict: NoChange}, QABeyondNotSignificant},
		// the better direction is never a problem
		{"latency down, significant, beyond", lower, Cell{Delta: f(-20), DeltaPct: f(-20), P: f(0.001), Beyond: true, Tested: true, Verdict: Better}, QABetter},
		{"latency down, within, significant", lower, Cell{Delta: f(-5), DeltaPct: f(-5), P: f(0.001), Tested: true, Verdict: NoChange}, QAPass},
		{"latency down, beyond, not significant", lower, Cell{Delta: f(-20), DeltaPct: f(-20), P: f(0.3), Beyond: true, Tested: true, Verdict: NoChange}, QAPass},
		{"throughput up, single runs", higher, Cell{Delta: f(200), DeltaPct: f(25), Beyond: true, Verdict: NoiseUnknown}, QAPass},
		// what the comparison does not judge
		{"no change", lower, Cell{Delta: f(0), DeltaPct: f(0), Verdict: NoChange}, QAPass},
		{"neutral", neutral, Cell{Delta: f(20), DeltaPct: f(50), Verdict: NotJudged}, QANotJudged},
		{"missing", lower, Cell{Verdict: Missing}, QANotJudged},
		{"not comparable", lower, Cell{Delta: f(20), DeltaPct: f(20), Verdict: NotComparable}, QANotJudged},
		{"heavy-tailed extreme", lower, Cell{Delta: f(20), DeltaPct: f(20), Beyond: true, Verdict: NotJudged}, QANotJudged},
		{"unknown figure", Row{ID: "x", Better: analysis.Neutral.String()}, Cell{Delta: f(1), DeltaPct: f(99), P: f(0.001), Verdict: NoChange}, QAPass},
		// a safety violation or a crash is always beyond
		{"safety violation", lower, Cell{Delta: f(1), Beyond: true, Verdict: Worse}, QARegression},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := JudgeQA(tt.row, tt.cell, 0.05); got != tt.want {
				t.Errorf("JudgeQA = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestQAVerdictText: each verdict as the report writes it, with the
// threshold.
func TestQAVerdictText(t *testing.T) {
	for v, want := range map[QAVerdict]string{QARegression: "regression", QAWorseWithin: "worse, within 10 %",
		QABeyondNotSignificant: "undecided", QAPass: "pass", QABetter: "better", QANotJudged: "not judged"} {
		if got := v.Text(10); got != want {
			t.Errorf("%s: %q, want %q", v, got, want)
		}
	}
	if got := QAWorseWithin.Text(7.5); got != "worse, within 7.5 %" {
		t.Errorf("threshold 7.5: %q", got)
	}
}

// TestQAFigures: a comparison of repeats judged by the rule end to end:
// a latency 30 % higher in every run is a regression, a committed rate 3 %
// lower in every run is worse within the threshold, the headline figures
// come first.
func TestQAFigures(t *testing.T) {
	run := func(lat, tps float64) Run {
		return Run{Metrics: map[string]float64{"block_latency_p50_ms": lat, "committed_tps": tps, "blocks": 10}}
	}
	base := Side{Label: "base", Runs: []Run{run(1000, 400), run(1010, 401), run(990, 399)}}
	cand := Side{Label: "cand", Runs: []Run{run(1300, 388), run(1310, 389), run(1290, 387)}}
	c, err := Sides(base, []Side{cand}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	figs := QAFigures(c)
	got := map[string]string{}
	for _, f := range figs {
		got[f.ID] = f.Verdict
	}
	if got["block_latency_p50_ms"] != string(QARegression) || got["committed_tps"] != string(QAWorseWithin) || got["blocks"] != string(QANotJudged) {
		t.Errorf("verdicts %v", got)
	}
	if !figs[0].Headline || figs[0].ID != "block_latency_p50_ms" || figs[len(figs)-1].Headline {
		t.Errorf("order %+v", figs)
	}
	s := QASummary(figs, 10)
	if !strings.HasPrefix(s, "1 regression(s): [Block latency p50]") || !strings.Contains(s, "worse within 10 %: 1, undecided (worse by over 10 %, not significant): 0, better: 0 (2 figures judged)") {
		t.Errorf("summary %q", s)
	}
	if s := QASummary([]results.QAFigure{{Verdict: string(QAPass)}}, 10); !strings.HasPrefix(s, "no regression;") {
		t.Errorf("summary %q", s)
	}
}
