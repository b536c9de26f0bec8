package compare

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/aclements/go-moremath/stats"
	"github.com/cometlab/cometlab/internal/analysis"
	"gonum.org/v1/gonum/stat/distuv"
)

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

// poolSamples concatenates samples, renumbering clusters so that clusters of
// different runs stay apart.
func poolSamples(ss []DistSample) DistSample {
	var out DistSample
	clustered := false
	for _, s := range ss {
		clustered = clustered || s.Cluster != nil
	}
	var next int32
	for _, s := range ss {
		out.Values = append(out.Values, s.Values...)
		if !clustered {
			continue
		}
		var top int32 = -1
		for i := range s.Values {
			c := int32(i)
			if s.Cluster != nil {
				c = s.Cluster[i]
			}
			out.Cluster = append(out.Cluster, next+c)
			top = max(top, c)
		}
		next += top + 1
	}
	return out
}

// clusterMeans returns the mean of each cluster (the values themselves
// when the sample is not clustered).
func clusterMeans(s DistSample) []float64 {
	if s.Cluster == nil {
		return slices.Clone(s.Values)
	}
	sum := map[int32]float64{}
	n := map[int32]int{}
	for i, v := range s.Values {
		sum[s.Cluster[i]] += v
		n[s.Cluster[i]]++
	}
	keys := make([]int32, 0, len(sum))
	for k := range sum {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]float64, len(keys))
	for i, k := range keys {
		out[i] = sum[k] / float64(n[k])
	}
	return out
}

// Stat names a statistic of a distribution: "mean", "stddev", "min",
// "max" or "pNN" (the NN-th percentile, NN in 0…100, as Percentile).
type Stat string

// Stats every comparison computes for a distribution.
const (
	StatMean   Stat = "mean"
	StatMedian Stat = "p50"
	StatP99    Stat = "p99"
)

// percentile returns NN for "pNN" and whether s is a percentile.
func (s Stat) percentile() (float64, bool) {
	if !strings.HasPrefix(string(s), "p") {
		return 0, false
	}
	p, err := strconv.ParseFloat(string(s[1:]), 64)
	return p, err == nil && p >= 0 && p <= 100
}

// resamplable reports whether a bootstrap interval of s is meaningful:
// not for min and max, which a resample can never exceed.
func (s Stat) resamplable() bool {
	_, pct := s.percentile()
	return pct || s == StatMean || s == "stddev"
}

// Of returns the statistic of the values (NaN when it cannot be computed).
func (s Stat) Of(values []float64) float64 {
	switch s {
	case StatMean:
		return analysis.Mean(values)
	case "stddev":
		return analysis.StdDev(values)
	case "min":
		return analysis.Min(values)
	case "max":
		return analysis.Max(values)
	}
	if p, ok := s.percentile(); ok {
		sorted := slices.Clone(values)
		slices.Sort(sorted)
		return analysis.Percentile(sorted, p)
	}
	return math.NaN()
}

// Interval is a confidence interval [Lo, Hi].
type Interval struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
}

// Excludes reports whether x lies outside the interval.
func (iv Interval) Excludes(x float64) bool { return x < iv.Lo || x > iv.Hi }

// bootstrapCap is the largest number of values of one side that the
// bootstrap resamples; a larger sample is replaced by a seeded random
// subset of this size (see bootstrapDiff).
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
		if p, ok := s.percentile(); ok {
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

// bootstrapDiff returns, for each statistic, a percentile-bootstrap
// confidence interval (at level conf) for stat(cand) − stat(base). Each of
// b resamples draws, independently on each side, as many clusters as the
// side has, with replacement (a cluster bootstrap; for an unclustered
// sample, the ordinary bootstrap). The generator r makes it deterministic.
//
// A side with more than bootstrapCap values is first replaced by a random
// subset of bootstrapCap values; the interval is then shifted by the
// difference between the full-sample and the subset estimates, so it is
// centred on the full-sample Δ. An interval that cannot be computed (an
// empty side, or a statistic undefined on the resamples) is reported as
// ok[i] = false.
func bootstrapDiff(base, cand DistSample, ss []Stat, b int, conf float64, r *rand.Rand) (ivs []Interval, ok []bool) {
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
		ivs[i] = Interval{Lo: analysis.Percentile(diffs[i], 100*alpha) + shift[i], Hi: analysis.Percentile(diffs[i], 100*(1-alpha)) + shift[i]}
		ok[i] = true
	}
	return ivs, ok
}

// mannWhitneyP returns the two-sided p-value of the Mann–Whitney U test of
// x against y (exact for small samples, normal approximation with tie and
// continuity correction otherwise), 1 when every value is equal, and false
// when a side is empty.
func mannWhitneyP(x, y []float64) (float64, bool) {
	if len(x) == 0 || len(y) == 0 {
		return 0, false
	}
	res, err := stats.MannWhitneyUTest(x, y, stats.LocationDiffers)
	if err == stats.ErrSamplesEqual {
		return 1, true
	}
	if err != nil || math.IsNaN(res.P) {
		return 0, false
	}
	return min(res.P, 1), true
}

// tTest returns a confidence interval (level conf) and a two-sided p-value
// for mean(y) − mean(x) from the per-run values x (baseline) and y
// (candidate), by Student's t:
//
//	Δ = ȳ − x̄;  both sides with ≥ 2 runs (Welch):
//	    se² = s²x/nx + s²y/ny,  ν = se⁴ / ((s²x/nx)²/(nx−1) + (s²y/ny)²/(ny−1))
//	one side with 1 run: its variance is taken to be the other side's s²:
//	    se² = s²·(1/nx + 1/ny),  ν = n − 1 of the other side
//	CI = Δ ± t(ν, 1−(1−conf)/2)·se,  p = 2·(1 − T_ν(|Δ|/se))
//
// When every run of each side gave the same value (se = 0), p is 1 if Δ is
// 0 and 0 otherwise. ok is false with fewer than 3 runs in all or an empty
// side.
func tTest(x, y []float64, conf float64) (iv Interval, p float64, ok bool) {
	nx, ny := len(x), len(y)
	if nx == 0 || ny == 0 || nx+ny < 3 {
		return iv, 0, false
	}
	mx, my := analysis.Mean(x), analysis.Mean(y)
	d := my - mx
	var se2, nu float64
	switch {
	case nx >= 2 && ny >= 2:
		vx, vy := sampleVariance(x)/float64(nx), sampleVariance(y)/float64(ny)
		se2 = vx + vy
		if se2 > 0 {
			nu = se2 * se2 / (vx*vx/float64(nx-1) + vy*vy/float64(ny-1))
		}
	case nx >= 2:
		se2 = sampleVariance(x) * (1/float64(nx) + 1/float64(ny))
		nu = float64(nx - 1)
	default:
		se2 = sampleVariance(y) * (1/float64(nx) + 1/float64(ny))
		nu = float64(ny - 1)
	}
	if se2 <= 0 || math.IsNaN(se2) {
		p = 0
		if d == 0 {
			p = 1
		}
		return Interval{Lo: d, Hi: d}, p, true
	}
	se := math.Sqrt(se2)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: nu}
	q := t.Quantile(1 - (1-conf)/2)
	p = 2 * t.Survival(math.Abs(d)/se)
	return Interval{Lo: d - q*se, Hi: d + q*se}, min(p, 1), true
}

// sampleVariance is the sample variance (n − 1), 0 for fewer than 2 values.
func sampleVariance(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	s := analysis.StdDev(xs)
	return s * s
}

// twoProportionP returns the two-sided p-value of the pooled two-proportion
// z test of x1 of n1 against x2 of n2:
//
//	p̂ = (x1 + x2)/(n1 + n2),  z = (x2/n2 − x1/n1) / √(p̂(1 − p̂)(1/n1 + 1/n2))
//
// 1 when p̂ is 0 or 1 (no variation), false when a denominator is not
// positive or a count exceeds it.
func twoProportionP(x1, n1, x2, n2 float64) (float64, bool) {
	if n1 <= 0 || n2 <= 0 || x1 < 0 || x2 < 0 || x1 > n1 || x2 > n2 {
		return 0, false
	}
	ph := (x1 + x2) / (n1 + n2)
	se := math.Sqrt(ph * (1 - ph) * (1/n1 + 1/n2))
	if se == 0 {
		return 1, true
	}
	z := (x2/n2 - x1/n1) / se
	return min(2*distuv.UnitNormal.Survival(math.Abs(z)), 1), true
}
