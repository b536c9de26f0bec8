package compare

import (
	"math"
	"testing"
)

// TestPositionEffects: a known answer. Second runs 5, 7 and 9 % slower than
// the first: mean 7 %, s = 2, t(0.975; 2) = 4.302653 → 7 ± 4.9683.
func TestPositionEffects(t *testing.T) {
	run := func(v float64) Run { return Run{Metrics: map[string]float64{"block_latency_mean_ms": v}} }
	firsts := []Run{run(100), run(200), run(1000)}
	seconds := []Run{run(105), run(214), run(1090)}
	got := PositionEffects(firsts, seconds, []string{"block_latency_mean_ms", "committed_tps"}, 0.95)
	if len(got) != 1 {
		t.Fatalf("got %+v, want one metric (committed_tps has no values)", got)
	}
	p := got[0]
	half := 4.302653 * 2 / math.Sqrt(3)
	if p.Pairs != 3 || math.Abs(p.MeanPct-7) > 1e-9 || math.Abs(p.LoPct-(7-half)) > 1e-4 || math.Abs(p.HiPct-(7+half)) > 1e-4 {
		t.Errorf("got %+v, want 7 ± %.4f over 3 pairs", p, half)
	}
	if !p.Excludes0() {
		t.Error("an interval of 2.0…12.0 % excludes 0")
	}
}
