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
		forwarded int64
		want      float64
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"slow start doubles while binding", []step{
			{0, 0, 0, 100}, {time.Second, 0, 100, 200}, {2 * time.Second, 0, 300, 400}}},
		{"not binding holds (ceiling 2×sent)", []step{
			{0, 0, 0, 100}, {time.Second, 0, 100, 200}, {2 * time.Second, 0, 150, 200}}},
		{"backlog growing: decrease from the rate sent", []step{
			{0, 0, 0, 100}, {time.Second, 0, 100, 200}, {2 * time.Second, 150, 300, 100}}},
		{"cooldown: no second decrease within it", []step{
			{0, 0, 0, 100}, {time.Second, 150, 100, 50}, {1500 * time.Millisecond, 200, 150, 50}}},
		{"over target but shrinking: hold", []step{
			{0, 300, 0, 100}, {time.Second, 200, 100, 100}}},
		{"additive increase after the first decrease", []step{
			{0, 0, 0, 100}, {time.Second, 150, 100, 50}, {2 * time.Second, 50, 150, 70}, {3 * time.Second, 40, 220, 90}}},
		{"floor", []step{
			{0, 0, 0, 100}, {time.Second, 150, 5, 10}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewPacer(cfg)
			for i, s := range tc.steps {
				got := p.Observe(Observation{At: s.at, Mempool: s.mempool, Forwarded: s.forwarded})
				if got != s.want {
					t.Fatalf("step %d: rate %g, want %g", i, got, s.want)
				}
			}
		})
	}
}
