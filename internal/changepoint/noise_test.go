package changepoint

import (
	"math"
	"slices"
	"testing"
)

// TestNoiseFloor: the floor estimates the noise's coefficient of
// variation (its own spread is about 10 % of it at 200 points, 5 % at
// 1,000), and a step or two outliers hardly move it (a 20 % step on
// half the series scales the noise of that half, and the median, by 1.1).
func TestNoiseFloor(t *testing.T) {
	flat := NoiseFloor(noisy(200, 0.03, 1))
	tests := []struct {
		name string
		xs   []float64
		want float64
		tol  float64 // relative
	}{
		{"3 % noise", noisy(1000, 0.03, 1), 0.03, 0.15},
		{"1 % noise", noisy(1000, 0.01, 2), 0.01, 0.15},
		{"3 % noise, 20 % step", shift(noisy(200, 0.03, 1), 100, 0.20), flat, 0.05},
		{"3 % noise, two outliers", func() []float64 {
			xs := noisy(200, 0.03, 1)
			xs[50], xs[150] = 2000, 500
			return xs
		}(), flat, 0.05},
		{"constant", slices.Repeat([]float64{5}, 10), 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := NoiseFloor(tt.xs)
			if math.Abs(got-tt.want) > tt.tol*tt.want {
				t.Errorf("NoiseFloor = %.4f, want %.4f ± %.0f %%", got, tt.want, 100*tt.tol)
			}
		})
	}
	for _, xs := range [][]float64{nil, {1, 2}, {-1, 0, 1}} {
		if got := NoiseFloor(xs); !math.IsNaN(got) {
			t.Errorf("NoiseFloor(%v) = %g, want NaN", xs, got)
		}
	}
	// Exact: the successive differences of 10, 11, 10, 11, 10 are all 1.
	if got, want := NoiseFloor([]float64{10, 11, 10, 11, 10}), 1.4826/math.Sqrt2/10; math.Abs(got-want) > 1e-15 {
		t.Errorf("NoiseFloor(10, 11, …) = %g, want %g", got, want)
	}
}
