package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
)

// aaModel draws one run's figures for simulated A/A experiments: every
// dictionary metric around 100 with a coefficient of variation cv from run
// to run, except that the adoption quantiles from 0.80 to 1.00 are one
// number (the 4th node of a 4-node network), the extremes of a run are
// heavy-tailed (lognormal, σ = 0.5), and the loss counts are 0.
type aaModel struct {
	cv    float64
	shift map[string]float64 // candidate only: relative change of these metrics
}

// aaMetrics are the dictionary's metrics with how aaModel draws them.
var aaMetrics = func() []struct {
	analysis.Metric
	kind int
} {
	var ms []struct {
		analysis.Metric
		kind int
	}
	for _, d := range analysis.Dictionary() {
		kind := aaNormal
		switch {
		case lossCount(d.ID) || d.Violation: // 0 in every healthy run
			kind = aaLoss
		case strings.HasPrefix(d.ID, "adoption_p") && d.ID >= "adoption_p80" && !strings.Contains(d.ID, "_p99"):
			kind = aaSameTail
		case heavyTailed(d.ID):
			kind = aaHeavy
		}
		ms = append(ms, struct {
			analysis.Metric
			kind int
		}{d, kind})
	}
	return ms
}()

const (
	aaNormal = iota
	aaLoss
	aaSameTail
	aaHeavy
)

func (m aaModel) run(rng *rand.Rand, label string, i int, cand bool) Run {
	r := Run{Dir: fmt.Sprintf("%s-%d", label, i), Metrics: map[string]float64{},
		Run: results.Run{ID: fmt.Sprintf("%s-%d", label, i), Status: results.StatusComplete,
			Load: results.Load{Connections: 1, Rate: 100, Size: 1024, DurationS: 60, Pacing: "even"}}}
	tail := 100 * (1 + m.cv*rng.NormFloat64())
	for _, d := range aaMetrics {
		v := 100 * (1 + m.cv*rng.NormFloat64())
		switch d.kind {
		case aaLoss:
			v = 0
		case aaSameTail:
			v = tail
		case aaHeavy:
			v = 100 * math.Exp(0.5*rng.NormFloat64())
		}
		if cand {
			v *= 1 + m.shift[d.ID]
		}
		r.Metrics[d.ID] = v
	}
	return r
}

// simulateAA runs experiments A/A (or A/B with model shifts) comparisons
// of n runs a side and returns the share with any metric worse or better,
// and the share whose uncorrected per-metric t tests would have called one
// (what the repeated-run path did before the family-wise correction).
func simulateAA(t *testing.T, model aaModel, n, experiments int, seed uint64) (flagged, uncorrected float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	var any, raw int
	for e := range experiments {
		base, cand := Side{Label: "base"}, Side{Label: "cand"}
		for i := range n {
			base.Runs = append(base.Runs, model.run(rng, "base", i, false))
			cand.Runs = append(cand.Runs, model.run(rng, "cand", i, true))
		}
		res, err := Sides(base, []Side{cand}, Options{Seed: uint64(e)})
		if err != nil {
			t.Fatal(err)
		}
		if changed(res.Verdict) {
			any++
		}
		for _, row := range res.Metrics {
			if row.Better == analysis.Neutral.String() || !row.InDictionary {
				continue
			}
			bv, cv := metricValues(base, row.ID), metricValues(cand, row.ID)
			d := stdMean(cv) - stdMean(bv)
			if _, p, ok := tTest(bv, cv, 0.95); ok && p < DefaultAlpha && math.Abs(100*d/stdMean(bv)) >= DefaultThresholdPct {
				raw++
				break
			}
		}
	}
	return float64(any) / float64(experiments), float64(raw) / float64(experiments)
}

func stdMean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// TestRepeatsFamilyWise: comparing a setup with itself with repeats calls
// any metric worse or better in at most α of the experiments (3, 5 and 10
// runs a side), where judging each metric at α, as before, flagged far
// more; and a 15 % change of block latency is still found.
func TestRepeatsFamilyWise(t *testing.T) {
	const experiments = 150
	// α plus three standard errors of a share estimated from 150 draws.
	limit := DefaultAlpha + 3*math.Sqrt(DefaultAlpha*(1-DefaultAlpha)/experiments)
	aa := aaModel{cv: 0.15}
	for _, n := range []int{3, 5, 10} {
		flagged, uncorrected := simulateAA(t, aa, n, experiments, 1)
		t.Logf("A/A, %2d runs a side, cv 15 %%: any metric called changed in %.1f %% of %d experiments (per-metric t tests: %.1f %%)",
			n, 100*flagged, experiments, 100*uncorrected)
		if flagged > limit {
			t.Errorf("%d runs a side: %.3f of A/A experiments flagged, want ≤ α = %v (+ sampling error: %.3f)", n, flagged, DefaultAlpha, limit)
		}
		if uncorrected <= limit {
			t.Errorf("%d runs a side: uncorrected tests flagged only %.3f: the simulation cannot tell the correction from none", n, uncorrected)
		}
	}
	// Power: block latency (mean, p50, p90, p95, p99) 15 % higher, 5 %
	// run-to-run noise.
	shift := map[string]float64{}
	for _, id := range []string{"block_latency_mean_ms", "block_latency_p50_ms", "block_latency_p90_ms", "block_latency_p95_ms", "block_latency_p99_ms"} {
		shift[id] = 0.15
	}
	for _, n := range []int{3, 5, 10} {
		power, _ := simulateAA(t, aaModel{cv: 0.05, shift: shift}, n, 100, 2)
		t.Logf("A/B, %2d runs a side, cv 5 %%: a 15 %% block latency change found in %.0f %% of experiments", n, 100*power)
		if n == 10 && power < 0.8 {
			t.Errorf("10 runs a side find a 15 %% latency change in %.2f of experiments, want ≥ 0.8", power)
		}
	}
}

// TestSameNumberJudgedOnce: metrics whose values are the same in every run
// are judged once, at the first; the others say where.
func TestSameNumberJudgedOnce(t *testing.T) {
	mk := func(label string, vals ...float64) Side {
		s := Side{Label: label}
		for i, v := range vals {
			s.Runs = append(s.Runs, Run{Dir: fmt.Sprint(label, i), Run: results.Run{Status: results.StatusComplete},
				Metrics: map[string]float64{"adoption_p80_ms": v, "adoption_p90_ms": v, "adoption_p100_ms": v}})
		}
		return s
	}
	res, err := Sides(mk("b", 100, 101, 99), []Side{mk("c", 150, 151, 149)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	verdicts := map[string]Cell{}
	for _, r := range res.Metrics {
		verdicts[r.ID] = r.Candidates[0]
	}
	if c := verdicts["adoption_p80_ms"]; c.Verdict != Worse || !strings.Contains(c.Test, "Holm over 1 metrics") {
		t.Errorf("adoption_p80_ms: %s (%s), want worse, judged alone", c.Verdict, c.Test)
	}
	for _, id := range []string{"adoption_p90_ms", "adoption_p100_ms"} {
		if c := verdicts[id]; c.Verdict != NotJudged || !strings.Contains(c.Reason, "the same values as adoption_p80_ms") {
			t.Errorf("%s: %s (%s), want judged once at adoption_p80_ms", id, c.Verdict, c.Reason)
		}
	}
}
