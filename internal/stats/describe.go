package stats

import "math"

// Mean returns the arithmetic mean Σx / n, in the unit of xs, or NaN when
// xs is empty. The sum is taken in the order of xs.
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

// StdDev returns the sample (unbiased) standard deviation, in the unit of
// xs,
//
//	s = sqrt( (Σ(x − m)² − (Σ(x − m))²/n) / (n − 1) ),  m = Mean(xs)
//
// using the corrected two-pass algorithm, as gonum's stat.StdDev does (and
// so CometBFT's loadtime report). It returns NaN when n < 2.
func StdDev(xs []float64) float64 {
	if len(xs) < 2 {
		return math.NaN()
	}
	mean := Mean(xs)
	var ss, comp float64
	for _, x := range xs {
		d := x - mean
		ss += d * d
		comp += d
	}
	n := float64(len(xs))
	return math.Sqrt((ss - comp*comp/n) / (n - 1))
}

// Variance returns the sample (unbiased) variance s², in the square of the
// unit of xs: StdDev(xs) squared, so that Variance and StdDev always
// agree. It returns NaN when n < 2.
func Variance(xs []float64) float64 {
	s := StdDev(xs)
	return s * s
}

// RMS returns the root mean square sqrt(Σx² / n), in the unit of xs, or
// NaN when xs is empty.
func RMS(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x * x
	}
	return math.Sqrt(s / float64(len(xs)))
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

// Percentile returns the p-th percentile (0 ≤ p ≤ 100) of sorted, in the
// unit of its values, which must be in ascending order, by linear
// interpolation between the closest ranks (numpy's default "linear"
// method, Hyndman & Fan type 7):
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
