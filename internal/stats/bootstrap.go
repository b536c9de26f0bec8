package stats

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// The cluster bootstrap that compare and the recovery figures (analysis)
// use for their confidence intervals.

// DistSample is one distribution of one run (or of the pooled runs of a
// side): values, and for each value the cluster it belongs to. Values of
// one cluster are not independent — the transactions of one block share
// its commit time — so resampling and rank tests treat a cluster as the
// unit. A nil Cluster means every value is its own cluster.
type DistSample struct {
	Values  []float64
	Cluster []int32
}

// Len returns the number of values.
func (s DistSample) Len() int { return len(s.Values) }

// Stat names a statistic of a distribution: "mean", "stddev", "min",
// "max" or "pNN" (the NN-th percentile, NN in 0…100, as Percentile).
type Stat string

// Stats every comparison computes for a distribution.
const (
	StatMean   Stat = "mean"
	StatMedian Stat = "p50"
	StatP99    Stat = "p99"
)

// Percentile returns NN for "pNN" and whether s is a percentile.
func (s Stat) Percentile() (float64, bool) {
	if !strings.HasPrefix(string(s), "p") {
		return 0, false
	}
	p, err := strconv.ParseFloat(string(s[1:]), 64)
	return p, err == nil && p >= 0 && p <= 100
}

// Resamplable reports whether a bootstrap interval of s is meaningful:
// not for min and max, which a resample can never exceed.
func (s Stat) Resamplable() bool {
	_, pct := s.Percentile()
	return pct || s == StatMean || s == "stddev"
}

// Of returns the statistic of the values (NaN when it cannot be computed).
func (s Stat) Of(values []float64) float64 {
	switch s {
	case StatMean:
		return Mean(values)
	case "stddev":
		return StdDev(values)
	case "min":
		return Min(values)
	case "max":
		return Max(values)
	}
	if p, ok := s.Percentile(); ok {
		sorted := slices.Clone(values)
		slices.Sort(sorted)
		return Percentile(sorted, p)
	}
	return math.NaN()
}

// Interval is a confidence interval [Lo, Hi], in the unit of the figure
// it bounds.
type Interval struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
}

// Excludes reports whether x lies outside the interval.
func (iv Interval) Excludes(x float64) bool { return x < iv.Lo || x > iv.Hi }

// bootstrapCap is the largest number of values of one side that the
// bootstrap resamples; a larger sample is replaced by a seeded random
// subset of this size (see BootstrapDiff).
const bootstrapCap = 10_000

// bootSample is a sample prepared for the cluster bootstrap: its values
// sorted, each with its cluster index (0…k−1).
type bootSample struct {
	sorted  []float64
	cluster []int32 // cluster of sorted[i], dense 0…k−1
	k       int
}

func prepareBootstrap(s DistSample, r *rand.Rand) bootSample {
	idx := make([]int, len(s.Values))
	for i := range idx {
		idx[i] = i
	}
	if len(idx) > bootstrapCap {
		for i := range bootstrapCap { // partial Fisher–Yates
			j := i + r.IntN(len(idx)-i)
			idx[i], idx[j] = idx[j], idx[i]
		}
		idx = idx[:bootstrapCap]
	}
	clusterOf := func(i int) int32 {
		if s.Cluster == nil {
			return int32(i)
		}
		return s.Cluster[i]
	}
	slices.SortFunc(idx, func(a, b int) int {
		return cmp.Or(cmp.Compare(s.Values[a], s.Values[b]), cmp.Compare(clusterOf(a), clusterOf(b)), cmp.Compare(a, b))
	})
	dense := map[int32]int32{}
	w := bootSample{sorted: make([]float64, len(idx)), cluster: make([]int32, len(idx))}
	for i, j := range idx {
		w.sorted[i] = s.Values[j]
		c := clusterOf(j)
		d, ok := dense[c]
		if !ok {
			d = int32(len(dense))
			dense[c] = d
		}
		w.cluster[i] = d
	}
	w.k = len(dense)
	return w
}

// stats computes the statistics of the multiset in which every value of
// cluster c appears mult[c] times (mult nil: once), by one walk over the
// sorted values: percentiles exactly as Percentile computes them on the
// expanded multiset. out[i] is stat ss[i]; NaN when undefined.
func (w bootSample) stats(mult []int32, ss []Stat, out []float64) {
	var n int64
	var sum float64
	for i, v := range w.sorted {
		m := int64(1)
		if mult != nil {
			m = int64(mult[w.cluster[i]])
		}
		n += m
		sum += float64(m) * v
	}
	for i := range out {
		out[i] = math.NaN()
	}
	if n == 0 {
		return
	}
	mean := sum / float64(n)
	// Ranks wanted by the percentiles: x[⌊h⌋] and x[⌊h⌋+1] of the
	// expanded sorted multiset, h = (n − 1)·p/100.
	type want struct {
		i    int // index in ss
		lo   int64
		frac float64
		a, b float64
	}
	var wants []want
	for i, s := range ss {
		if p, ok := s.Percentile(); ok {
			h := float64(n-1) * p / 100
			lo := int64(h)
			wants = append(wants, want{i: i, lo: lo, frac: h - float64(lo)})
		}
	}
	var ss2 float64
	var rank int64 // ranks [rank, rank+m) hold the current value
	for i, v := range w.sorted {
		m := int64(1)
		if mult != nil {
			m = int64(mult[w.cluster[i]])
		}
		if m == 0 {
			continue
		}
		d := v - mean
		ss2 += float64(m) * d * d
		for j := range wants {
			wt := &wants[j]
			if wt.lo >= rank && wt.lo < rank+m {
				wt.a = v
			}
			if wt.lo+1 >= rank && wt.lo+1 < rank+m {
				wt.b = v
			}
		}
		rank += m
	}
	for _, wt := range wants {
		if wt.lo >= n-1 {
			out[wt.i] = wt.a
		} else {
			out[wt.i] = wt.a + wt.frac*(wt.b-wt.a)
		}
	}
	for i, s := range ss {
		switch s {
		case StatMean:
			out[i] = mean
		case "stddev":
			if n > 1 {
				out[i] = math.Sqrt(ss2 / float64(n-1))
			}
		}
	}
}

func sortedCopy(xs []float64) []float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s
}

// resample draws k clusters with replacement into mult.
func (w bootSample) resample(r *rand.Rand, mult []int32) {
	clear(mult)
	for range w.k {
		mult[r.IntN(w.k)]++
	}
}

// BootstrapDiff returns, for each statistic, a percentile-bootstrap
// confidence interval (at level conf) for stat(cand) − stat(base). Each of
// b resamples draws, independently on each side, as many clusters as the
// side has, with replacement (a cluster bootstrap; for an unclustered
// sample, the ordinary bootstrap). The generator r makes it deterministic.
// With Δ*_1 … Δ*_b the resampled differences (those that are not NaN) and
// α = (1 − conf)/2,
//
//	Lo = Percentile(Δ*, 100·α),  Hi = Percentile(Δ*, 100·(1 − α))
//
// in the unit of the values. It needs b ≥ 10 and at least b/2 defined
// differences.
//
// A side with more than bootstrapCap values is first replaced by a random
// subset of bootstrapCap values; the interval is then shifted by the
// difference between the full-sample and the subset estimates, so it is
// centred on the full-sample Δ. An interval that cannot be computed (an
// empty side, or a statistic undefined on the resamples) is reported as
// ok[i] = false.
func BootstrapDiff(base, cand DistSample, ss []Stat, b int, conf float64, r *rand.Rand) (ivs []Interval, ok []bool) {
	ivs, ok = make([]Interval, len(ss)), make([]bool, len(ss))
	if base.Len() == 0 || cand.Len() == 0 || b < 10 {
		return ivs, ok
	}
	wb, wc := prepareBootstrap(base, r), prepareBootstrap(cand, r)
	sb, sc := make([]float64, len(ss)), make([]float64, len(ss))
	wb.stats(nil, ss, sb)
	wc.stats(nil, ss, sc)
	shift := make([]float64, len(ss))
	if base.Len() > bootstrapCap || cand.Len() > bootstrapCap {
		fb, fc := make([]float64, len(ss)), make([]float64, len(ss))
		bootSample{sorted: sortedCopy(base.Values)}.stats(nil, ss, fb)
		bootSample{sorted: sortedCopy(cand.Values)}.stats(nil, ss, fc)
		for i := range ss {
			shift[i] = (fc[i] - fb[i]) - (sc[i] - sb[i])
		}
	}
	diffs := make([][]float64, len(ss))
	mb, mc := make([]int32, wb.k), make([]int32, wc.k)
	for range b {
		wb.resample(r, mb)
		wc.resample(r, mc)
		wb.stats(mb, ss, sb)
		wc.stats(mc, ss, sc)
		for i := range ss {
			if d := sc[i] - sb[i]; !math.IsNaN(d) {
				diffs[i] = append(diffs[i], d)
			}
		}
	}
	alpha := (1 - conf) / 2
	for i := range ss {
		if len(diffs[i]) < b/2 || math.IsNaN(shift[i]) {
			continue
		}
		slices.Sort(diffs[i])
		ivs[i] = Interval{Lo: Percentile(diffs[i], 100*alpha) + shift[i], Hi: Percentile(diffs[i], 100*(1-alpha)) + shift[i]}
		ok[i] = true
	}
	return ivs, ok
}
