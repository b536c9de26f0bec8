package sequential

import "testing"

// TestStepCounts: a count over an exposure is looked at as a rate. The
// paired t-test calls 0, 0, 0 against 2, 2, 2 worse at the first look
// (zero variance: p = 0); as rates, 0 of 120 heights against 6 of 120 is
// p = 2·½⁶ ≈ 0.031, short of an O'Brien–Fleming look's level, so more
// pairs are wanted; ten pairs, 0 of 400 against 20 of 400, decide it.
func TestStepCounts(t *testing.T) {
	rep := func(v float64, n int) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = v
		}
		return out
	}
	cfg := Config{MaxPairs: 10}
	for _, tt := range []struct {
		name       string
		base, cand []float64
		exposure   bool
		want       Outcome
		stop       bool
	}{
		{"paired t: zero variance decides at once", rep(0, 3), rep(2, 3), false, Worse, true},
		{"as rates: 3 pairs are not enough", rep(0, 3), rep(2, 3), true, Undecided, false},
		{"as rates: 10 pairs decide", rep(0, 10), rep(2, 10), true, Worse, true},
		{"as rates: no event on either side", rep(0, 2), rep(0, 2), true, Equivalent, true},
		{"as rates: the same rate, many events", rep(400, 10), rep(400, 10), true, Equivalent, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := Metric{ID: "slow_heights", Better: LowerIsBetter, ThresholdPct: 10, Base: tt.base, Cand: tt.cand}
			if tt.exposure {
				m.BaseExposure, m.CandExposure = rep(40, len(tt.base)), rep(40, len(tt.cand))
			}
			d, err := Step(cfg, []Metric{m})
			if err != nil {
				t.Fatal(err)
			}
			if got := d.Metrics[0]; got.Outcome != tt.want || d.Stop != tt.stop {
				t.Errorf("%s (stop %v) at p %v, level %v; want %s (stop %v)", got.Outcome, d.Stop, got.P, got.Level, tt.want, tt.stop)
			}
		})
	}
	m := Metric{ID: "x", Base: rep(1, 3), Cand: rep(1, 3), BaseExposure: rep(1, 2), CandExposure: rep(1, 3)}
	if _, err := Step(cfg, []Metric{m}); err == nil {
		t.Error("exposures of another length are refused")
	}
}
