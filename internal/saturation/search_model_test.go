package saturation

import (
	"fmt"
	"strings"
	"testing"
)

// model is a network whose knee K is fixed: a run at rate r passes when r
// ≤ K, probes too (≤ short·K when short > 0), and a failing run estimates
// min(f·K, r) (an overloaded network commits at most what it is sent),
// whatever its length.
type model struct{ knee, f, short float64 }

// search runs the whole search against m.
func (m model) search(cfg SearchConfig) []Observation {
	var obs []Observation
	for range 100 {
		s, done := cfg.Next(obs)
		if done {
			break
		}
		k := m.knee
		if s.DurationS < cfg.DurationS && m.short > 0 {
			k = m.short * m.knee
		}
		o := Observation{Rate: s.Rate, DurationS: s.DurationS, Pass: s.Rate <= k}
		if !o.Pass {
			o.Estimate = min(m.f*m.knee, s.Rate)
		}
		obs = append(obs, o)
	}
	return obs
}

// kneeTable starts a table of model networks: label, then a column per
// knee.
func kneeTable(label string, width int) *strings.Builder {
	var tab strings.Builder
	fmt.Fprintf(&tab, "%-*s", width, label)
	for _, k := range modelKnees {
		fmt.Fprintf(&tab, " %9s", fmt.Sprintf("%g×", k))
	}
	return &tab
}

var (
	modelBias  = []float64{0.5, 0.7, 1, 1.4, 2}
	modelKnees = []float64{1.5, 2, 3, 5, 7, 10, 15, 20, 30, 50} // × the start
)

// TestSearchModelNetworks checks that the default search resolves the
// saturation point to ±5 % within its 8 runs on model networks whose
// estimates are 2 × too low to 2 × too high, for knees 1.5 to 50 × the
// start rate, and logs the runs and the final ± of each (go test -v).
func TestSearchModelNetworks(t *testing.T) {
	cfg := DefaultSearch(200, 60)
	tab := kneeTable("f \\ K", 6)
	worst := 0
	for _, f := range modelBias {
		fmt.Fprintf(tab, "\n%-6g", f)
		for _, k := range modelKnees {
			obs := model{knee: k * cfg.Start, f: f}.search(cfg)
			out := cfg.Conclude(obs)
			worst = max(worst, len(obs))
			fmt.Fprintf(tab, " %d: ±%4.1f%%", len(obs), 100*out.HalfWidth/max(out.Saturation, 1))
			if out.Status != OutcomeResolved || len(obs) > cfg.MaxRuns {
				t.Errorf("knee %g × start, estimates × %g: %d runs: %s", k, f, len(obs), out.Summary)
			}
		}
	}
	t.Logf("runs used and final ± (worst %d runs):\n%s", worst, tab.String())
}

// TestSearchModelDense runs the model networks on knees 1 % apart from
// 1.5 to 50 × the start. The only knees the default search cannot resolve
// within 8 runs lie just above the fourth probe's pass S = 3200 (16 ×
// the start), where 4 full-length runs are left: a bracket [S, 4S] of
// ln 4 / ln q ≈ 14 resolution steps takes 4 bisections, and when all four
// fail the lowest pass is the short S, which does not count. No stepper
// does better there whatever the estimates; the band is (S, 1.1·S].
func TestSearchModelDense(t *testing.T) {
	cfg := DefaultSearch(200, 60)
	unresolved, n := 0, 0
	for _, f := range modelBias {
		for k := 1.5; k <= 50; k *= 1.01 {
			knee := k * cfg.Start
			out := cfg.Conclude(model{knee: knee, f: f}.search(cfg))
			n++
			if out.Status == OutcomeResolved {
				continue
			}
			unresolved++
			if knee <= 3200 || knee > 3520 {
				t.Errorf("knee %.0f, estimates × %g: %s", knee, f, out.Summary)
			}
		}
	}
	t.Logf("%d of %d unresolved, all just above the probe at 3200", unresolved, n)
}

// TestSearchReportedPath replays the reported search: probes at 200 and
// 800 passed, the one at 3200 estimated 757 tx/s, and the knee was near
// 1,100 (the quiet host's 1,080 ± 54). The old rule crept 643 → 710 →
// 784 → 866 and ended at ±40 %; now the run after the probe bisects.
func TestSearchReportedPath(t *testing.T) {
	cfg := DefaultSearch(200, 60)
	for _, knee := range []float64{1050, 1080, 1100, 1150} {
		m := model{knee: knee, f: 757 / knee}
		obs := m.search(cfg)
		if obs[2].Rate != 3200 || obs[2].Pass || obs[2].Estimate < 756 || obs[2].Estimate > 758 {
			t.Fatalf("knee %v: the probe at 3200 is %+v", knee, obs[2])
		}
		out := cfg.Conclude(obs)
		if out.Status != OutcomeResolved || len(obs) > cfg.MaxRuns {
			t.Errorf("knee %v: %d runs: %s", knee, len(obs), out.Summary)
		}
		t.Logf("knee %v: %d runs: %s", knee, len(obs), out.Summary)
	}
}

// TestSearchModelShortKnee runs model networks whose short probes pass up
// to 1.8 and 2 × the full-length knee K (the mempool hides the backlog
// for a probe's length), with estimates K·f, f = 0.7, 1, 1.4. Every one
// whose highest passing probe S is at most K resolves within the 8 runs.
// Those with S > K (S = 800 for K = 2 and 3 × the start, 3200 for 10 and
// 15 ×, 12800 for 50 ×) resolve unless listed in shortKneeUnresolved, each
// for one of these reasons:
//
//   - e: no estimate contradicts S (f·K·q ≥ S): the evidence is that of a
//     network whose probes are right and whose knee lies at the estimate,
//     above S; bisection keeps S as the bottom and runs it at full length
//     last, when nothing is left to search below it.
//   - b: a full-length failure contradicts S, but the runs left cannot
//     both run S at full length and bisect [S, H]: the evidence so far is
//     exactly that of a network with right probes and estimates 0.5 or
//     0.7 × a knee above S (10 × with f = 1 is 20 × with f = 0.5, which
//     TestSearchModelNetworks resolves), so the search keeps S.
//   - c: S failed at full length, leaving 3 runs for a knee anywhere
//     below it while the estimates are 0.7 or 1.4 × the knee: the runs
//     step by q from the estimate, which no pass or failure refutes in
//     time.
//   - p: no full-length run fails; only the probe's estimate contradicts
//     S, and probes' estimates do not (with 3 runs left it could not be
//     tested anyway); the passes below the estimate step by q.
//
// These are limits of this search, not proofs that no stepper could
// resolve them: each would cost networks with right probes their runs.
func TestSearchModelShortKnee(t *testing.T) {
	cfg := DefaultSearch(200, 60)
	tab := kneeTable("s, f \\ K", 9)
	for _, short := range []float64{1.8, 2} {
		for _, f := range []float64{0.7, 1, 1.4} {
			fmt.Fprintf(tab, "\n%-9s", fmt.Sprintf("%g, %g", short, f))
			for _, k := range modelKnees {
				obs := model{knee: k * cfg.Start, f: f, short: short}.search(cfg)
				out := cfg.Conclude(obs)
				fmt.Fprintf(tab, " %d: %5s", len(obs), outcomeCell(out))
				why, excused := shortKneeUnresolved[fmt.Sprintf("%g %g %g", short, f, k)]
				ok := out.Status == OutcomeResolved && len(obs) <= cfg.MaxRuns
				if !ok && !excused {
					t.Errorf("knee %g × start, probes to %g × it, estimates × %g: %d runs: %s", k, short, f, len(obs), out.Summary)
				}
				if ok && excused {
					t.Logf("knee %g × start, probes to %g × it, estimates × %g now resolves (listed for %q)", k, short, f, why)
				}
			}
		}
	}
	t.Logf("runs used and outcome (%d listed unresolved):\n%s", len(shortKneeUnresolved), tab.String())
}

// shortKneeUnresolved lists the networks of TestSearchModelShortKnee
// ("s f K") that the search does not resolve, with the reason.
var shortKneeUnresolved = map[string]string{
	"1.8 0.7 3": "c", "1.8 0.7 10": "b", "1.8 0.7 15": "b", "1.8 0.7 50": "p",
	"1.8 1 10": "b", "1.8 1 15": "e",
	"1.8 1.4 3": "e", "1.8 1.4 10": "b", "1.8 1.4 15": "e",
	"2 0.7 2": "c", "2 0.7 3": "c", "2 0.7 10": "b", "2 0.7 15": "b", "2 0.7 50": "p",
	"2 1 10": "b", "2 1 15": "e",
	"2 1.4 2": "c", "2 1.4 3": "e", "2 1.4 10": "b", "2 1.4 15": "e",
}

// outcomeCell is an outcome in a table cell: the final ± when resolved.
func outcomeCell(o Outcome) string {
	if o.Status == OutcomeResolved {
		return fmt.Sprintf("±%.1f%%", 100*o.HalfWidth/o.Saturation)
	}
	return map[string]string{OutcomeBracketed: "wide", OutcomeNoPass: "nopass"}[o.Status]
}
