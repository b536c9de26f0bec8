package stats

import "gonum.org/v1/gonum/stat/distuv"

// The Student t distribution with df degrees of freedom (location 0,
// scale 1), for tests and intervals on small samples. df need not be a
// whole number (Welch's ν is not). The functions are gonum's distuv.StudentsT,
// which computes them from the regularized incomplete beta function; they
// are here so that every package takes the same ones.

// TQuantile returns t(p, df), the p-quantile of Student's t distribution
// with df > 0 degrees of freedom: the value t with P(T ≤ t) = p, 0 < p < 1.
// A two-sided interval at level conf uses TQuantile(1 − (1 − conf)/2, df),
// e.g. t(0.975, 10) = 2.228 for 95 %. Dimensionless.
func TQuantile(p, df float64) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(p)
}

// TCDF returns P(T ≤ x) for Student's t with df degrees of freedom.
func TCDF(x, df float64) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.CDF(x)
}

// TSurvival returns P(T > x) = 1 − TCDF(x, df), computed directly (no
// cancellation in the upper tail, so it differs from 1 − TCDF in the last
// bits): a two-sided p-value is 2·TSurvival(|t|, df).
func TSurvival(x, df float64) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Survival(x)
}

// NormalCDF returns Φ(x) = P(Z ≤ x) for the standard normal distribution.
func NormalCDF(x float64) float64 { return distuv.UnitNormal.CDF(x) }

// NormalQuantile returns Φ⁻¹(p), the p-quantile of the standard normal
// distribution, 0 < p < 1 (1.95996… for p = 0.975).
func NormalQuantile(p float64) float64 { return distuv.UnitNormal.Quantile(p) }

// NormalSurvival returns P(Z > x) = 1 − Φ(x), computed directly: a
// two-sided p-value of a z statistic is 2·NormalSurvival(|z|).
func NormalSurvival(x float64) float64 { return distuv.UnitNormal.Survival(x) }
