package analysis

import (
	"math"
	"slices"
)

// Mean returns the arithmetic mean Σx / n, or NaN when xs is empty.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// StdDev returns the sample (unbiased) standard deviation
//
//	sqrt( (Σ(x − m)² − (Σ(x − m))²/n) / (n − 1) ),  m = Mean(xs)
//
// using the corrected two-pass algorithm, as gonum's stat.StdDev does (and
// so CometBFT's loadtime report). It returns NaN when n < 2.
func StdDev(xs []float64) float64 {
	if len(xs) < 2 {
		return math.NaN()
	}
	return stdDev(xs, Mean(xs))
}

func stdDev(xs []float64, mean float64) float64 {
	var ss, comp float64
	for _, x := range xs {
		d := x - mean
		ss += d * d
		comp += d
	}
	n := float64(len(xs))
	return math.Sqrt((ss - comp*comp/n) / (n - 1))
}

// Min returns the smallest value, or NaN when xs is empty.
func Min(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	m := xs[0]
	for _, x := range xs[1:] {
		if x < m {
			m = x
		}
	}
	return m
}

// Max returns the largest value, or NaN when xs is empty.
func Max(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	m := xs[0]
	for _, x := range xs[1:] {
		if x > m {
			m = x
		}
	}
	return m
}

// Percentile returns the p-th percentile (0 ≤ p ≤ 100) of sorted, which
// must be in ascending order, by linear interpolation between the closest
// ranks (numpy's default "linear" method, Hyndman & Fan type 7):
//
//	h = (n − 1)·p/100,  Q(p) = x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋])
//
// p is clamped to [0, 100]. It returns NaN when sorted is empty or p is NaN.
func Percentile(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 || math.IsNaN(p) {
		return math.NaN()
	}
	p = min(max(p, 0), 100)
	h := float64(n-1) * p / 100
	lo := int(h)
	if lo >= n-1 {
		return sorted[n-1]
	}
	frac := h - float64(lo)
	return sorted[lo] + frac*(sorted[lo+1]-sorted[lo])
}

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
	d.Mean = Mean(sorted)
	d.StdDev = StdDev(sorted)
	return d
}

// Percentile returns the p-th percentile (0 ≤ p ≤ 100) of the sample; see
// the function Percentile for the method.
func (d Distribution) Percentile(p float64) float64 {
	if d.sketch != nil {
		return d.sketch.Percentile(p)
	}
	return Percentile(d.sorted, p)
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
