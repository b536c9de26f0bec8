package analysis

import (
	"math"
	"slices"

	"github.com/cometlab/cometlab/internal/stats"
)

// Distribution describes a sample: its size, extremes, mean and sample
// standard deviation, and a sorted copy for percentile queries (sort once,
// query many).
type Distribution struct {
	N      int
	Min    float64 // NaN when N == 0
	Max    float64 // NaN when N == 0
	Mean   float64 // NaN when N == 0
	StdDev float64 // sample standard deviation; NaN when N < 2
	sorted []float64
	sketch *Sketch // past its ExactCap: percentiles from its histogram
}

// Describe summarises xs, which it does not modify. It costs one copy and
// one sort: O(n log n).
func Describe(xs []float64) Distribution {
	s := slices.Clone(xs)
	slices.Sort(s)
	return DescribeSorted(s)
}

// DescribeSorted is Describe for a slice already in ascending order, which
// it keeps (no copy).
func DescribeSorted(sorted []float64) Distribution {
	d := Distribution{N: len(sorted), sorted: sorted}
	if d.N == 0 {
		d.Min, d.Max, d.Mean, d.StdDev = math.NaN(), math.NaN(), math.NaN(), math.NaN()
		return d
	}
	d.Min, d.Max = sorted[0], sorted[d.N-1]
	d.Mean = stats.Mean(sorted)
	d.StdDev = stats.StdDev(sorted)
	return d
}

// Percentile returns the p-th percentile (0 ≤ p ≤ 100) of the sample; see
// stats.Percentile for the method.
func (d Distribution) Percentile(p float64) float64 {
	if d.sketch != nil {
		return d.sketch.Percentile(p)
	}
	return stats.Percentile(d.sorted, p)
}

// Sorted returns the sample in ascending order; nil when a sketch past
// its exact cap holds it. The caller must not modify it.
func (d Distribution) Sorted() []float64 { return d.sorted }

// WindowCounts sums events into n consecutive windows of width ns starting
// at start: window k holds the events with start + k·width ≤ t <
// start + (k+1)·width. weights[i] is event i's weight; nil weights count
// each event once. Events outside every window are ignored. With width = 1 s
// the result is a per-second rate series (tm-bench's tx/s and blocks/s).
func WindowCounts(times []int64, weights []float64, start, width int64, n int) []float64 {
	out := make([]float64, max(n, 0))
	if width <= 0 {
		return out
	}
	for i, t := range times {
		if t < start {
			continue
		}
		k := (t - start) / width
		if k >= int64(n) {
			continue
		}
		w := 1.0
		if weights != nil {
			w = weights[i]
		}
		out[k] += w
	}
	return out
}
