package changepoint

import (
	"math"

	"github.com/cometlab/cometlab/internal/stats"
)

// Segment describes the points of a series between two change points
// (or an end of the series): xs[Start : Start+N], with their mean and
// sample standard deviation, in the unit of the series.
type Segment struct {
	Start int     `json:"start"`
	N     int     `json:"n"`
	Mean  float64 `json:"mean"`
	SD    float64 `json:"sd"`
}

// segment returns the Segment of xs[start:end]; SD is NaN with one point.
func segment(xs []float64, start, end int) Segment {
	v := xs[start:end]
	return Segment{Start: start, N: len(v), Mean: stats.Mean(v), SD: stats.StdDev(v)}
}

// testP returns the p-value with which Detect judges a difference between
// the means of the segments a and b (each with N ≥ 2): the larger of
// Student's pooled t test and Welch's, so that the change must be
// significant by both. Student's test alone calls a lone outlier among the
// 3 points of a short side a change (it pools that side's large variance
// with the other's); Welch's alone calls a short side whose variance is
// small by chance a change (its ν then comes from the long side). Either
// p-value alone would have a false-alarm rate of its own; requiring both
// keeps the smaller (an intersection–union test).
func testP(a, b Segment) float64 {
	return max(studentP(a, b), welchP(a, b))
}

// studentP returns the two-sided p-value of Student's two-sample t test
// with pooled variance:
//
//	d = b.Mean − a.Mean,  ν = a.N + b.N − 2
//	s² = ((a.N − 1)·a.SD² + (b.N − 1)·b.SD²) / ν,  se² = s²·(1/a.N + 1/b.N)
//	p = 2·P(T_ν > |d|/se)
func studentP(a, b Segment) float64 {
	if a.N < 2 || b.N < 2 {
		return 1
	}
	nu := float64(a.N + b.N - 2)
	s2 := (float64(a.N-1)*a.SD*a.SD + float64(b.N-1)*b.SD*b.SD) / nu
	return tP(b.Mean-a.Mean, s2*(1/float64(a.N)+1/float64(b.N)), nu)
}

// welchP returns the two-sided p-value of Welch's t test:
//
//	d = b.Mean − a.Mean,  va = a.SD²/a.N,  vb = b.SD²/b.N,  se² = va + vb
//	ν = se⁴ / (va²/(a.N − 1) + vb²/(b.N − 1))
//	p = 2·P(T_ν > |d|/se)
func welchP(a, b Segment) float64 {
	if a.N < 2 || b.N < 2 {
		return 1
	}
	va, vb := a.SD*a.SD/float64(a.N), b.SD*b.SD/float64(b.N)
	se2 := va + vb
	return tP(b.Mean-a.Mean, se2, se2*se2/(va*va/float64(a.N-1)+vb*vb/float64(b.N-1)))
}

// tP returns 2·P(T_ν > |d|/√se2). When both sides are constant
// (se2 = 0) it is 1 if d is 0 and 0 otherwise; a p that cannot be
// computed (values that overflow) is 1.
func tP(d, se2, nu float64) float64 {
	switch {
	case math.IsNaN(se2) || math.IsNaN(d) || math.IsInf(se2, 0) || math.IsInf(d, 0):
		return 1
	case se2 == 0 && d == 0:
		return 1
	case se2 == 0:
		return 0
	}
	p := 2 * stats.TSurvival(math.Abs(d)/math.Sqrt(se2), nu)
	if math.IsNaN(p) {
		return 1
	}
	return min(p, 1)
}
