package changepoint

import (
	"math"
	"slices"

	"github.com/cometlab/cometlab/internal/stats"
)

// NoiseFloor returns a robust estimate of the point-to-point noise of the
// series xs as a coefficient of variation (a fraction: 0.03 is 3 %), from
// the median absolute successive difference:
//
//	d_i = x_{i+1} − x_i  (i = 0 … n−2)
//	σ̂ = 1.4826 · median|d_i| / √2
//	NoiseFloor = σ̂ / |median(xs)|
//
// For independent normal noise of standard deviation σ, d_i has standard
// deviation √2·σ and median|d_i| = 0.6745·√2·σ, so σ̂ estimates σ
// (1.4826 = 1/0.6745). A step in the mean changes one d_i and an outlier
// two, which the median ignores, so neither inflates the floor, where the
// standard deviation or the MAD of the values would count a step as
// noise. A slow trend adds its slope to every d_i and does inflate it.
//
// It returns NaN with fewer than 3 points or a median of 0, and is not
// defined for non-finite values. A caller's minimum magnitude is then
// max(k·NoiseFloor(xs), floor) for some k (check for NaN first: Go's max
// returns NaN when an argument is NaN).
func NoiseFloor(xs []float64) float64 {
	if len(xs) < 3 {
		return math.NaN()
	}
	d := make([]float64, len(xs)-1)
	for i := range d {
		d[i] = math.Abs(xs[i+1] - xs[i])
	}
	slices.Sort(d)
	sorted := slices.Sorted(slices.Values(xs))
	med := stats.Percentile(sorted, 50)
	if med == 0 {
		return math.NaN()
	}
	return 1.4826 * stats.Percentile(d, 50) / math.Sqrt2 / math.Abs(med)
}
