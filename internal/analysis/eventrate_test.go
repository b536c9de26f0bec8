package analysis

import (
	"math"
	"testing"
)

// commitsWithHalt returns commits every 1.2 s over [0, 60 s) but none in
// (20 s, 40 s): a 20-s halt.
func commitsWithHalt() (t []int64, v []float64) {
	const ms = int64(1e6)
	for at := int64(0); at < 60_000*ms; at += 1200 * ms {
		if at > 20_000*ms && at < 40_000*ms {
			continue
		}
		t, v = append(t, at), append(v, float64(len(t)+1))
	}
	return t, v
}

// TestEventRatesHalt checks that the blocks-per-minute series of a chain
// that halted for 20 s reaches 0 during the halt (with a 10-s window),
// (from 10 s after its last commit to the next), and reads 50 blocks/min
// (one every 1.2 s) before and after it; the rates at the commits alone
// (SlidingRates) have no point in the halt.
func TestEventRatesHalt(t *testing.T) {
	const s = int64(1e9)
	ts, vs := commitsWithHalt()
	at, rate := EventRates(ts, vs, 10*s)
	if len(at) != len(rate) {
		t.Fatalf("%d times, %d rates", len(at), len(rate))
	}
	var zero, inHalt int
	for i := range at {
		perMin := rate[i] * 60
		switch x := float64(at[i]) / float64(s); {
		case x > 20 && x < 40:
			inHalt++
			if perMin == 0 {
				zero++
			}
			if x > 30 && perMin != 0 {
				t.Errorf("at %.1f s: %.1f blocks/min, want 0 (the window of 10 s holds no commit)", x, perMin)
			}
		case x >= 12 && x <= 20, x >= 52:
			if math.Abs(perMin-50) > 0.01 {
				t.Errorf("at %.1f s: %.2f blocks/min, want 50", x, perMin)
			}
		}
		if i > 0 && at[i] <= at[i-1] {
			t.Errorf("times not ascending at %d: %d after %d", i, at[i], at[i-1])
		}
	}
	if zero < 2 {
		t.Errorf("%d of %d points in the halt at 0 blocks/min, want ≥ 2 (from 30 s, and before the next commit)", zero, inHalt)
	}
	for i, r := range SlidingRates(ts, vs, 10*s) {
		if x := float64(ts[i]) / float64(s); x > 20 && x < 40 {
			t.Errorf("SlidingRates has a point in the halt: %.1f s, %v", x, r)
		}
	}
}

func TestEventRates(t *testing.T) {
	nan := math.NaN()
	const s = int64(1e9)
	tests := []struct {
		name     string
		t        []int64
		v        []float64
		width    int64
		wantAt   []int64
		wantRate []float64
	}{
		{"steady: as SlidingRates", []int64{0, s, 2 * s, 3 * s}, []float64{1, 2, 3, 4}, 2 * s, []int64{0, s, 2 * s, 3 * s}, []float64{nan, 1, 1, 1}},
		{"a halt of 2 windows", []int64{0, s, 2 * s, 6 * s, 7 * s}, []float64{1, 2, 3, 4, 5}, 2 * s,
			// halt points every 0.2 s from 2.2 s until the window is empty
			// (4.2 s), then one before the next commit; at 6 s one commit
			// in the window (1 per 2 s), at 7 s two.
			[]int64{0, s, 2 * s, 2200e6, 2400e6, 2600e6, 2800e6, 3000e6, 3200e6, 3400e6, 3600e6, 3800e6, 4000e6, 4200e6, 5800e6, 6 * s, 7 * s},
			[]float64{nan, 1, 1, 1, 1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5, 0.5, 0, 0, 0.5, 1}},
		{"a halt of hours: one point after the window is empty", []int64{0, s, 2 * s, 7200 * s}, []float64{1, 2, 3, 4}, 2 * s,
			[]int64{0, s, 2 * s, 2200e6, 2400e6, 2600e6, 2800e6, 3000e6, 3200e6, 3400e6, 3600e6, 3800e6, 4000e6, 4200e6, 7200*s - 200e6, 7200 * s},
			[]float64{nan, 1, 1, 1, 1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5, 0.5, 0, 0, 0.5}},
		{"a counter of transactions", []int64{0, s, 2 * s}, []float64{10, 30, 60}, 2 * s, []int64{0, s, 2 * s}, []float64{nan, 20, 25}},
		{"empty", nil, nil, s, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			at, rate := EventRates(tt.t, tt.v, tt.width)
			if len(at) != len(tt.wantAt) || !nanEqual(rate, tt.wantRate) {
				t.Fatalf("got %v %v, want %v %v", at, rate, tt.wantAt, tt.wantRate)
			}
			for i := range at {
				if at[i] != tt.wantAt[i] {
					t.Fatalf("times %v, want %v", at, tt.wantAt)
				}
			}
		})
	}
}
