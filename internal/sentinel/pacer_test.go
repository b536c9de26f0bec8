package sentinel

import (
	"testing"
	"time"
)

func TestPacerRules(t *testing.T) {
	cfg := PaceConfig{Target: 100, Min: 10, Max: 10_000, Initial: 100, Increase: 20, Decrease: 0.5, Cooldown: time.Second}
	type step struct {
		at        time.Duration
		mempool   int64
		height    int64
		forwarded int64
		want      float64
	}
	s := time.Second
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"slow start doubles once per cooldown while binding", []step{
			{0, 0, 1, 0, 100}, {s, 0, 1, 100, 200}, {s + s/2, 0, 1, 250, 200}, {2 * s, 0, 1, 350, 400}}},
		{"not binding holds (ceiling 2×sent)", []step{
			{0, 0, 1, 0, 100}, {s, 0, 1, 100, 200}, {2 * s, 0, 1, 150, 200}}},
		{"slow start ends over half the target: decrease from the rate sent", []step{
			{0, 0, 1, 0, 100}, {s, 0, 1, 100, 200}, {2 * s, 60, 1, 300, 100}}},
		{"decrease from the commit rate once measured", []step{
			// Heights 1→2→3: 200 forwarded, mempool +40 over 2 s: commit 80/s.
			{0, 0, 1, 0, 100}, {s, 20, 2, 100, 200}, {3 * s, 60, 3, 300, 40}}},
		{"cooldown: no second decrease within it", []step{
			{0, 0, 1, 0, 100}, {s, 150, 1, 100, 50}, {s + s/2, 200, 1, 150, 50}}},
		{"over target but shrinking: hold", []step{
			{0, 300, 1, 0, 100}, {s, 200, 1, 100, 100}}},
		{"additive increase after the first decrease", []step{
			{0, 0, 1, 0, 100}, {s, 150, 1, 100, 50}, {2 * s, 50, 1, 150, 70}, {3 * s, 40, 1, 220, 90}}},
		{"floor", []step{
			{0, 0, 1, 0, 100}, {s, 150, 1, 5, 10}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewPacer(cfg)
			for i, st := range tc.steps {
				got := p.Observe(Observation{At: st.at, Mempool: st.mempool, Height: st.height, Forwarded: st.forwarded})
				if got != st.want {
					t.Fatalf("step %d: rate %g, want %g (commit %g)", i, got, st.want, p.CommitRate())
				}
			}
		})
	}
}
