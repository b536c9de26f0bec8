package analysis

import (
	"math"
	"testing"
)

// TestDataGrowthPerHour: the slope over the load window, in MiB/h: a
// steady 1 MiB per minute is 60 MiB/h, samples outside the window do not
// count, a pruned store's saw-tooth that keeps its size grows by ~0, and
// fewer than two samples give NaN.
func TestDataGrowthPerHour(t *testing.T) {
	const s, m = int64(1e9), float64(1 << 20)
	line := func(n int, perS float64) ([]int64, []float64) {
		var ts []int64
		var vs []float64
		for i := range n {
			ts = append(ts, int64(i)*s)
			vs = append(vs, 100*m+float64(i)*perS)
		}
		return ts, vs
	}
	t1, v1 := line(121, m/60)
	saw := make([]float64, 120)
	for i := range saw {
		saw[i] = 50*m + float64(i%10)*m // grows 9 MiB, pruned back, again
	}
	t2, _ := line(120, 0)
	// walked every 10 s, the samples between repeat the last size: the
	// slope of the walks alone (1 MiB/min), not of the stale repeats
	stale := make([]float64, 121)
	for i := range stale {
		stale[i] = v1[i-i%10]
	}
	for _, tt := range []struct {
		name      string
		t         []int64
		v         []float64
		from, to  int64
		want, tol float64
	}{
		{"1 MiB/min", t1, v1, 0, 120 * s, 60, 0.01},
		{"window only", t1, append(append([]float64{}, v1[:60]...), make([]float64, 61)...), 0, 59 * s, 60, 0.01},
		// last − first would say 9 MiB in 2 min, 270 MiB/h
		{"saw-tooth", t2, saw, 0, 119 * s, 0, 30},
		{"one sample", t1, v1, 10 * s, 10 * s, math.NaN(), 0},
		{"walked every 10 s", t1, stale, 0, 120 * s, 60, 0.01},
		// walked once in the window: one size, no slope (not 0 MiB/h)
		{"one walk", t1, stale, 1 * s, 9 * s, math.NaN(), 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := dataGrowthPerHour(tt.t, tt.v, tt.from, tt.to)
			switch {
			case math.IsNaN(tt.want):
				if !math.IsNaN(got) {
					t.Errorf("got %v, want NaN", got)
				}
			case math.Abs(got-tt.want) > tt.tol:
				t.Errorf("got %.3f MiB/h, want %.3f", got, tt.want)
			}
		})
	}
}
