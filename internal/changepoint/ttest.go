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

// testP returns the two-sided p-value with which Detect judges a
// difference between the means of the segments a and b (each with N ≥ 2):
// Student's t with the larger of the two sample variances and that side's
// degrees of freedom,
//
//	d = b.Mean − a.Mean,  s² = max(a.SD², b.SD²),  ν = N − 1 of the side s² came from
//	se² = s²·(1/a.N + 1/b.N),  p = 2·P(T_ν > |d|/se)
//
// A side cannot claim to be quieter than the other: with Welch's test, a
// side of 3 points whose variance is small by chance makes a change of
// flat noise. And a side made noisy by an outlier is judged by its own
// few degrees of freedom: with Student's pooled variance, one outlier
// among the last few points of a series makes a change
// (docs/changepoints.md has the rates). Under equal variances the test is
// conservative (s² is at least either side's estimate).
func testP(a, b Segment) float64 {
	if a.N < 2 || b.N < 2 {
		return 1
	}
	s2, nu := a.SD*a.SD, float64(a.N-1)
	if v := b.SD * b.SD; v > s2 {
		s2, nu = v, float64(b.N-1)
	}
	// The means of equal values can differ in their last bits (1449.3
	// against 1449.2999999999997), and two constant sides would make that
	// a certain change: a difference within a mean's rounding error
	// (n·ε of its magnitude) is none.
	d := b.Mean - a.Mean
	if math.Abs(d) <= float64(a.N+b.N)*0x1p-52*max(math.Abs(a.Mean), math.Abs(b.Mean)) {
		d = 0
	}
	return tP(d, s2*(1/float64(a.N)+1/float64(b.N)), nu)
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
