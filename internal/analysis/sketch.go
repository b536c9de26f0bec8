package analysis

import (
	"math"
	"slices"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/cometlab/cometlab/internal/stats"
)

// Sketch is a distribution of values (nanoseconds, or any integer unit)
// whose memory does not grow with the number of values: it keeps the
// values themselves up to ExactCap of them, and past that an HDR
// histogram (github.com/HdrHistogram/hdrhistogram-go) of 3 significant
// digits, one for the values ≥ 0 and one for the negative ones.
//
// Error bound. Up to ExactCap values every figure is exact (as Describe).
// Past it, count, min, max and mean are exact and the standard deviation
// is Welford's (exact up to rounding); a percentile is computed as
// Percentile does (linear interpolation between the closest ranks,
// Hyndman & Fan type 7), each rank's value read from the histogram as the
// middle of its bucket. An HDR bucket of 3 significant digits spans at
// most 2⁻¹⁰ of its values (1,024 sub-buckets per power of 2), so each
// rank's value, and hence the percentile, is within 2⁻¹¹ ≈ 0.05 % of the
// exact one (and within 1 ns below 2,048 ns). Values beyond ±10 days
// are counted at ±10 days (min and max stay exact).
type Sketch struct {
	// ExactCap is how many values are kept exactly before switching to
	// the histogram; 0 means DefaultExactCap, a negative value none.
	ExactCap int

	exact    []float64
	pos, neg *hdrhistogram.Histogram
	n        int64
	min, max float64
	mean, m2 float64 // Welford's running mean and sum of squared deviations
	sum      float64
	sorted   bool
}

// DefaultExactCap is the number of values a Sketch keeps exactly: 1 MiB
// of float64.
const DefaultExactCap = 1 << 17

// sketchMax is the largest value the histograms track: 10 days in ns.
const sketchMax = int64(10 * 24 * 3600 * 1e9)

func (s *Sketch) limit() int {
	switch {
	case s.ExactCap == 0:
		return DefaultExactCap
	case s.ExactCap < 0:
		return 0
	}
	return s.ExactCap
}

// Add adds one value.
func (s *Sketch) Add(v float64) {
	if math.IsNaN(v) {
		return
	}
	if s.n == 0 || v < s.min {
		s.min = v
	}
	if s.n == 0 || v > s.max {
		s.max = v
	}
	s.n++
	s.sum += v
	d := v - s.mean
	s.mean += d / float64(s.n)
	s.m2 += d * (v - s.mean)
	if s.pos == nil && len(s.exact) < s.limit() {
		s.exact = append(s.exact, v)
		s.sorted = false
		return
	}
	if s.pos == nil {
		s.spill()
	}
	s.record(v, 1)
}

// spill moves the exact values into the histograms.
func (s *Sketch) spill() {
	s.pos = hdrhistogram.New(1, sketchMax, 3)
	s.neg = hdrhistogram.New(1, sketchMax, 3)
	for _, x := range s.exact {
		s.record(x, 1)
	}
	s.exact = nil
}

func (s *Sketch) record(v float64, n int64) {
	h := s.pos
	if v < 0 {
		h, v = s.neg, -v
	}
	x := int64(math.Round(min(v, float64(sketchMax))))
	_ = h.RecordValues(x, n) // x is within [0, sketchMax]: never an error
}

// Merge adds the values of o to s.
func (s *Sketch) Merge(o *Sketch) {
	if o.n == 0 {
		return
	}
	if o.pos == nil {
		for _, x := range o.exact {
			s.Add(x)
		}
		return
	}
	if s.pos == nil {
		s.spill()
	}
	s.pos.Merge(o.pos)
	s.neg.Merge(o.neg)
	if s.n == 0 || o.min < s.min {
		s.min = o.min
	}
	if s.n == 0 || o.max > s.max {
		s.max = o.max
	}
	// Chan et al.'s parallel update of mean and m2.
	n := s.n + o.n
	d := o.mean - s.mean
	s.m2 += o.m2 + d*d*float64(s.n)*float64(o.n)/float64(n)
	s.mean += d * float64(o.n) / float64(n)
	s.n = n
	s.sum += o.sum
}

// N returns the number of values added.
func (s *Sketch) N() int64 { return s.n }

// Exact tells whether every figure of the sketch is exact (no more
// values than its ExactCap were added).
func (s *Sketch) Exact() bool { return s.pos == nil }

func (s *Sketch) sortExact() {
	if !s.sorted {
		slices.Sort(s.exact)
		s.sorted = true
	}
}

// Describe returns the distribution of the values, as Describe of them
// all would, within the sketch's error bound once it is past ExactCap
// (its Percentile then reads the histogram).
func (s *Sketch) Describe() Distribution {
	if s.pos == nil {
		s.sortExact()
		return DescribeSorted(s.exact)
	}
	d := Distribution{N: int(s.n), Min: s.min, Max: s.max, Mean: s.sum / float64(s.n), StdDev: math.Sqrt(s.m2 / float64(s.n-1)), sketch: s}
	return d
}

// Percentile returns the p-th percentile (0 ≤ p ≤ 100) of the values,
// as Percentile of them sorted would (within the error bound past
// ExactCap); NaN when there is none.
func (s *Sketch) Percentile(p float64) float64 {
	if s.pos == nil {
		s.sortExact()
		return stats.Percentile(s.exact, p)
	}
	if s.n == 0 || math.IsNaN(p) {
		return math.NaN()
	}
	p = min(max(p, 0), 100)
	h := float64(s.n-1) * p / 100
	lo := int64(h)
	if lo >= s.n-1 {
		return s.max
	}
	v := s.Ranks([]int64{lo, lo + 1})
	return v[0] + (h-float64(lo))*(v[1]-v[0])
}

// Ranks returns the values of the given ranks (0 = the smallest; they
// must be ascending and below N), exact within ExactCap, else the middle
// of the histogram bucket that holds each rank (the smallest and largest
// rank give the exact min and max).
func (s *Sketch) Ranks(ranks []int64) []float64 {
	out := make([]float64, len(ranks))
	if s.pos == nil {
		s.sortExact()
		for i, r := range ranks {
			out[i] = s.exact[r]
		}
		return out
	}
	k := 0
	var seen int64
	s.Each(func(v float64, count int64) bool {
		for k < len(ranks) && ranks[k] < seen+count {
			out[k] = v
			k++
		}
		seen += count
		return k < len(ranks)
	})
	for i, r := range ranks {
		switch r {
		case 0:
			out[i] = s.min
		case s.n - 1:
			out[i] = s.max
		}
		out[i] = min(max(out[i], s.min), s.max)
	}
	return out
}

// Each calls fn with the values in ascending order and how many times
// each was added, until fn returns false: the values themselves within
// ExactCap, else the middle of each non-empty histogram bucket.
func (s *Sketch) Each(fn func(v float64, count int64) bool) {
	if s.pos == nil {
		s.sortExact()
		for i := 0; i < len(s.exact); {
			j := i + 1
			for j < len(s.exact) && s.exact[j] == s.exact[i] {
				j++
			}
			if !fn(s.exact[i], int64(j-i)) {
				return
			}
			i = j
		}
		return
	}
	neg := s.neg.Distribution()
	for i := len(neg) - 1; i >= 0; i-- {
		if b := neg[i]; b.Count > 0 && !fn(-mid(b), b.Count) {
			return
		}
	}
	for _, b := range s.pos.Distribution() {
		if b.Count > 0 && !fn(mid(b), b.Count) {
			return
		}
	}
}

// mid is the middle of an HDR bucket [From, To] (both inclusive).
func mid(b hdrhistogram.Bar) float64 {
	return (float64(b.From) + float64(b.To)) / 2
}
