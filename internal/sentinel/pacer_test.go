package sentinel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

func TestPacerRules(t *testing.T) {
	cfg := PaceConfig{Target: 100, Blocks: 2, Min: 10, Max: 10_000, Initial: 100, Increase: 20, Decrease: 0.5,
		Alpha: 0.5, Cooldown: time.Second}
	type step struct {
		at              time.Duration
		mempool, height int64
		forwarded, full int64
		want            float64
	}
	s := time.Second
	for _, tc := range []struct {
		name  string
		set   func(*PaceConfig) // changes cfg for the case, when set
		steps []step
	}{
		{"slow start doubles once per cooldown while binding", nil, []step{
			{0, 0, 1, 0, 0, 100}, {s, 0, 1, 100, 0, 200}, {s + s/2, 0, 1, 250, 0, 200}, {2 * s, 0, 1, 350, 0, 400}}},
		{"not binding holds (ceiling 2×sent)", nil, []step{
			{0, 0, 1, 0, 0, 100}, {s, 0, 1, 100, 0, 200}, {2 * s, 0, 1, 150, 0, 200}}},
		{"a full mempool backs off; ending slow start, from half the rate", nil, []step{
			{0, 0, 1, 0, 0, 100}, {s, 50, 1, 80, 20, 25}}},
		{"over Target and growing backs off", nil, []step{
			{0, 0, 1, 0, 0, 100}, {s, 90, 1, 100, 0, 200}, {2 * s, 120, 1, 230, 0, 50}}},
		{"over Target but shrinking holds", nil, []step{
			{0, 300, 1, 0, 0, 100}, {s, 200, 1, 100, 0, 100}}},
		{"cooldown: no second backoff within it", nil, []step{
			{0, 0, 1, 0, 0, 100}, {s, 0, 1, 50, 1, 25}, {s + s/2, 0, 1, 75, 2, 25}}},
		{"additive increase, per second, after the first backoff", nil, []step{
			{0, 0, 1, 0, 0, 100}, {s, 0, 1, 50, 5, 25}, {2 * s, 0, 1, 100, 5, 45}, {2*s + s/2, 0, 1, 150, 5, 55}}},
		{"window: the rate stays at Max over Target, on a full mempool, through blocks", func(c *PaceConfig) { c.Window = true }, []step{
			{0, 0, 1, 0, 0, 10_000}, {s, 300, 1, 100, 20, 10_000}, {2 * s, 400, 2, 230, 40, 10_000}, {3 * s, 0, 3, 500, 40, 10_000}}},
		{"floor", nil, []step{
			{0, 0, 1, 0, 0, 100}, {s, 0, 1, 50, 1, 25}, {2 * s, 0, 1, 100, 2, 12.5},
			{3 * s, 0, 1, 120, 3, 10}, {4 * s, 0, 1, 130, 4, 10}}},
		// Heights 1→2→3: the window 1 s→2 s commits 100 − 10 = 90 tx/s in a
		// 1 s block: T = 2 × 90 × 1 = 180. The 3 s window commits 500 − 390
		// = 110: c = 100, T = 200; the trough, 400, is over T and above the
		// last one (10): sustained growth, back off.
		{"sustained growth: a trough over the working target and rising backs off", target1000, []step{
			{0, 0, 1, 0, 0, 100}, {s, 0, 2, 100, 0, 200}, {2 * s, 10, 3, 200, 0, 200},
			{2*s + s/2, 300, 3, 390, 0, 200}, // over T within a block: hold
			{3 * s, 400, 4, 700, 0, 50}}},
		{"a swell within a block under T is not a backoff", target1000, []step{
			{0, 0, 1, 0, 0, 100}, {s, 0, 2, 100, 0, 200}, {2 * s, 10, 3, 200, 0, 200},
			{2*s + s/2, 150, 3, 340, 0, 400}}},
		// c = 90 from 2 s; the first backoff (2.5 s) ends slow start from
		// max(c, rate/2) = 100; the next (3.5 s) goes from c.
		{"after slow start a backoff goes from the averaged commit rate", func(c *PaceConfig) { c.Target, c.Increase = 1000, 200 }, []step{
			{0, 0, 1, 0, 0, 100}, {s, 0, 2, 100, 0, 200}, {2 * s, 10, 3, 200, 0, 200},
			{2*s + s/2, 10, 3, 250, 1, 50}, {3 * s, 10, 3, 300, 1, 150}, {3*s + s/2, 10, 3, 380, 2, 45}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cfg
			if tc.set != nil {
				tc.set(&c)
			}
			p := NewPacer(c)
			for i, st := range tc.steps {
				got := p.Observe(Observation{At: st.at, Mempool: st.mempool, Height: st.height, Forwarded: st.forwarded, Full: st.full})
				if got != st.want {
					t.Fatalf("step %d: rate %g, want %g (commit %g, target %d)", i, got, st.want, p.CommitRate(), p.WorkingTarget())
				}
			}
		})
	}
}

func target1000(c *PaceConfig) { c.Target = 1000 }

// TestPacerEstimates checks the averaged commit rate and block interval
// against a known answer: a node committing 1,000 tx/s in blocks every
// 1.3 s (±0.2 s), polled every 250 ms (±50 ms) — each window's own figure
// is off by the polling jitter, the average is close.
func TestPacerEstimates(t *testing.T) {
	for _, window := range []bool{false, true} {
		t.Run(fmt.Sprintf("window=%v", window), func(t *testing.T) { testPacerEstimates(t, window) })
	}
}

func testPacerEstimates(t *testing.T, window bool) {
	rng := rand.New(rand.NewPCG(1, 2))
	const rate = 1000.0
	cfg := DefaultPaceConfig()
	cfg.Window = window
	p := NewPacer(cfg)
	var commits []float64 // block times (s)
	for c := 0.5; c < 60; c += 1.1 + 0.4*rng.Float64() {
		commits = append(commits, c)
	}
	h, last := int64(1), 0.0
	for at := 0.0; at < 60; at += 0.2 + 0.1*rng.Float64() {
		for int(h-1) < len(commits) && commits[h-1] <= at {
			last = commits[h-1]
			h++
		}
		p.Observe(Observation{At: time.Duration(at * float64(time.Second)), Height: h,
			Forwarded: int64(rate * at), Mempool: int64(rate * (at - last))})
	}
	if c := p.CommitRate(); math.Abs(c-rate) > 0.05*rate {
		t.Errorf("commit rate %.0f tx/s, want %.0f ± 5 %%", c, rate)
	}
	if i := p.BlockInterval().Seconds(); math.Abs(i-1.3) > 0.1 {
		t.Errorf("block interval %.2f s, want 1.3 ± 0.1", i)
	}
	if got, want := p.WorkingTarget(), int64(2*rate*1.3); math.Abs(float64(got-want)) > 0.1*float64(want) {
		t.Errorf("working target %d, want %d ± 10 %%", got, want)
	}
}
