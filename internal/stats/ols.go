package stats

import "math"

// Line is the ordinary least-squares line y = Intercept + Slope·x through
// N points, with the standard error of its slope.
type Line struct {
	N         int     // points fitted
	Slope     float64 // b, in the unit of y per unit of x
	Intercept float64 // a, in the unit of y: the line at x = 0
	// SlopeSE is the standard error of b, in the unit of Slope; NaN when
	// N < 3 (no degree of freedom left for the residuals).
	SlopeSE float64
}

// FitLine fits y = a + b·x to the points (xs[i], ys[i]) by ordinary least
// squares:
//
//	x̄ = Mean(xs),  ȳ = Mean(ys),  Sxx = Σ(x − x̄)²,  Sxy = Σ(x − x̄)(y − ȳ)
//	b = Sxy / Sxx,  a = ȳ − b·x̄
//	SE(b) = sqrt( Σ(y − a − b·x)² / (n − 2) / Sxx )
//
// ok is false with fewer than 2 points or when every x is equal (Sxx = 0):
// there is no line. xs and ys must have the same length; a NaN in either
// makes the fit NaN. The residual is computed as (y − a) − b·x, which on
// typical data is a few times more accurate than y − (a + b·x).
func FitLine(xs, ys []float64) (l Line, ok bool) {
	n := len(xs)
	l = Line{N: n, Slope: math.NaN(), Intercept: math.NaN(), SlopeSE: math.NaN()}
	if n < 2 {
		return l, false
	}
	mx, my := Mean(xs), Mean(ys)
	var sxx, sxy float64
	for i := range xs {
		dx := xs[i] - mx
		sxx += dx * dx
		sxy += dx * (ys[i] - my)
	}
	if sxx == 0 {
		return l, false
	}
	b := sxy / sxx
	a := my - b*mx
	l.Slope, l.Intercept = b, a
	if n >= 3 {
		var ssr float64
		for i := range xs {
			r := ys[i] - a - b*xs[i]
			ssr += r * r
		}
		l.SlopeSE = math.Sqrt(ssr / float64(n-2) / sxx)
	}
	return l, true
}

// SlopeCI95 returns the half width of the slope's two-sided 95 %
// confidence interval, t(0.975, N − 2)·SlopeSE (Student's t with N − 2
// degrees of freedom, the residuals taken as independent and normal), in
// the unit of Slope; NaN when N < 3. The interval is Slope ± SlopeCI95().
func (l Line) SlopeCI95() float64 {
	if l.N < 3 {
		return math.NaN()
	}
	return TQuantile(0.975, float64(l.N-2)) * l.SlopeSE
}
