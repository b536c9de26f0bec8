package compare

import (
	"math"
	"slices"

	moremath "github.com/aclements/go-moremath/stats"
	"github.com/cometlab/cometlab/internal/stats"
)

// The distributions, statistics and cluster bootstrap are the stats
// package's (shared with the recovery figures of a perturbed run); compare
// uses them under its own names.
type (
	DistSample = stats.DistSample
	Stat       = stats.Stat
	Interval   = stats.Interval
)

// Stats every comparison computes for a distribution.
const (
	StatMean   = stats.StatMean
	StatMedian = stats.StatMedian
	StatP99    = stats.StatP99
)

var bootstrapDiff = stats.BootstrapDiff

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

// mannWhitneyP returns the two-sided p-value of the Mann–Whitney U test of
// x against y (exact for small samples, normal approximation with tie and
// continuity correction otherwise), 1 when every value is equal, and false
// when a side is empty.
func mannWhitneyP(x, y []float64) (float64, bool) {
	if len(x) == 0 || len(y) == 0 {
		return 0, false
	}
	res, err := moremath.MannWhitneyUTest(x, y, moremath.LocationDiffers)
	if err == moremath.ErrSamplesEqual {
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
	mx, my := stats.Mean(x), stats.Mean(y)
	d := my - mx
	var se2, nu float64
	switch {
	case nx >= 2 && ny >= 2:
		vx, vy := stats.Variance(x)/float64(nx), stats.Variance(y)/float64(ny)
		se2 = vx + vy
		if se2 > 0 {
			nu = se2 * se2 / (vx*vx/float64(nx-1) + vy*vy/float64(ny-1))
		}
	case nx >= 2:
		se2 = stats.Variance(x) * (1/float64(nx) + 1/float64(ny))
		nu = float64(nx - 1)
	default:
		se2 = stats.Variance(y) * (1/float64(nx) + 1/float64(ny))
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
	q := stats.TQuantile(1-(1-conf)/2, nu)
	p = 2 * stats.TSurvival(math.Abs(d)/se, nu)
	return Interval{Lo: d - q*se, Hi: d + q*se}, min(p, 1), true
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
	return min(2*stats.NormalSurvival(math.Abs(z)), 1), true
}
