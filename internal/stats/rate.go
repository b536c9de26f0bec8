package stats

import (
	"math"

	"gonum.org/v1/gonum/mathext"
)

// RateTest is the comparison of two rates of events — counts k over an
// exposure t (slow heights per height, rejected transactions per sent
// transaction) — as RateRatio computes it.
type RateTest struct {
	// Ratio is the rate ratio (k2/t2)/(k1/t1): +Inf when k1 = 0 < k2, NaN
	// when both counts are 0.
	Ratio float64
	// Interval is the ratio's interval at the level asked (Hi may be
	// +Inf, Lo may be 0).
	Interval Interval
	// P is the two-sided p-value of "the two rates are equal".
	P float64
	// Dispersion is the φ ≥ 1 the counts were divided by (1: Poisson).
	Dispersion float64
}

// RateRatio compares the rate of the candidate (k2 events over an
// exposure t2) with the baseline's (k1 over t1) by the conditional
// binomial test of two Poisson rates (Przyborowski and Wilenski, 1940;
// the exact test of Cox and Lewis, 1966, §6.3): given K = k1 + k2, under
// equal rates k2 ~ Binomial(K, π0), π0 = t2/(t1 + t2), so
//
//	P(X ≤ k2) = I_{1−π0}(K − k2, k2 + 1),  P(X ≥ k2) = I_{π0}(k2, K − k2 + 1)
//	p = min(1, 2·min(P(X ≤ k2), P(X ≥ k2)))
//
// (I the regularized incomplete beta function: the binomial's tails,
// doubled — the central test, consistent with the interval). The rate
// ratio's interval at level conf (a = 1 − conf) is Clopper–Pearson's for
// π = k2/K mapped to the ratio R = π/(1 − π) · t1/t2:
//
//	π_lo = B⁻¹(a/2; k2, K − k2 + 1)     (0 when k2 = 0)
//	π_hi = B⁻¹(1 − a/2; k2 + 1, K − k2)  (1 when k2 = K)
//
// Counts whose runs vary more than Poisson counts would (bursts: a
// mempool full rejects thousands at once) are over-dispersed; phi > 1 is
// their dispersion (RateDispersion) and every count is divided by it
// before the test, the quasi-likelihood scaling (McCullagh and Nelder,
// Generalized Linear Models, 2nd ed., §4.5.2): the binomial of K/φ
// trials, through the same incomplete beta, which takes non-integer
// arguments. phi < 1 is taken as 1.
//
// When K = 0 there is no evidence: p = 1, the ratio NaN and its interval
// [0, +Inf]. A non-positive exposure or a negative count gives p = NaN.
func RateRatio(k1, t1, k2, t2, phi, conf float64) RateTest {
	phi = math.Max(phi, 1)
	if math.IsNaN(phi) {
		phi = 1
	}
	rt := RateTest{Dispersion: phi, Ratio: (k2 / t2) / (k1 / t1)}
	if !(t1 > 0) || !(t2 > 0) || k1 < 0 || k2 < 0 || math.IsNaN(k1+k2) {
		rt.P, rt.Ratio = math.NaN(), math.NaN()
		rt.Interval = Interval{Lo: math.NaN(), Hi: math.NaN()}
		return rt
	}
	if k1+k2 == 0 {
		rt.P, rt.Ratio = 1, math.NaN()
		rt.Interval = Interval{Lo: 0, Hi: math.Inf(1)}
		return rt
	}
	x, n := k2/phi, (k1+k2)/phi
	pi0 := t2 / (t1 + t2)
	lower, upper := 1.0, 1.0 // P(X ≤ x), P(X ≥ x)
	if x < n {
		lower = mathext.RegIncBeta(n-x, x+1, 1-pi0)
	}
	if x > 0 {
		upper = mathext.RegIncBeta(x, n-x+1, pi0)
	}
	rt.P = math.Min(1, 2*math.Min(lower, upper))
	a := 1 - conf
	lo, hi := 0.0, 1.0
	if x > 0 {
		lo = mathext.InvRegIncBeta(x, n-x+1, a/2)
	}
	if x < n {
		hi = mathext.InvRegIncBeta(x+1, n-x, 1-a/2)
	}
	ratio := func(pi float64) float64 {
		if pi >= 1 {
			return math.Inf(1)
		}
		return pi / (1 - pi) * t1 / t2
	}
	rt.Interval = Interval{Lo: ratio(lo), Hi: ratio(hi)}
	return rt
}

// RateDispersion is the Pearson dispersion of per-run counts against
// their sides' pooled rates (McCullagh and Nelder §4.5.2): with runs i of
// side s, counts k_i over exposures t_i and λ_s = Σk/Σt over the side,
//
//	φ = Σ_i (k_i − t_i·λ_s)² / (t_i·λ_s)  ÷  Σ_s (n_s − 1)
//
// 1 for Poisson counts, above 1 when the runs vary more. Runs whose
// expected count t_i·λ_s is 0 add nothing; ok is false when no side has
// two runs (no degree of freedom) or the lengths differ.
func RateDispersion(counts, exposures [][]float64) (phi float64, ok bool) {
	var chi2 float64
	df := 0
	for s := range counts {
		if len(counts[s]) != len(exposures[s]) {
			return 0, false
		}
		var k, t float64
		for i := range counts[s] {
			k += counts[s][i]
			t += exposures[s][i]
		}
		if len(counts[s]) > 1 {
			df += len(counts[s]) - 1
		}
		if t <= 0 {
			continue
		}
		lambda := k / t
		for i := range counts[s] {
			if e := exposures[s][i] * lambda; e > 0 {
				d := counts[s][i] - e
				chi2 += d * d / e
			}
		}
	}
	if df == 0 {
		return 0, false
	}
	return chi2 / float64(df), true
}

// RateRatioRuns compares the candidate's rate with the baseline's from
// their runs' counts and exposures (counts[0], exposures[0] the
// baseline's, [1] the candidate's), summed over each side's runs. It
// takes the Poisson test and the runs' spread, whichever is the more
// cautious:
//
//   - the exact conditional test of RateRatio with φ = 1, the floor a
//     count's variance cannot go below (alike runs, 0, 0, 0 against
//     2, 2, 2, are still Poisson counts, not certainties);
//
//   - whenever the runs give a dispersion (RateDispersion, ν = Σ(n_s − 1)
//     degrees of freedom), the quasi-Poisson score test of the side's
//     effect with the dispersion φ = max(φ̂, 1), referred to Student's t
//     with ν degrees of freedom (McCullagh and Nelder §4.5.2: an F(1, ν),
//     whose square root is t):
//
//     t = (k2 − K·π0) / √(K·π0·(1 − π0)·φ),  p_t = 2·(1 − T_ν(|t|))
//
//     φ̂ below 1 is taken as 1 and still referred to t: from a few runs
//     an over-dispersed count often shows φ̂ ≤ 1 by chance (with 3 runs a
//     side and a true φ of 2, one time in five), and the exact test alone
//     then calls a change far more often than α (compare's
//     TestRepeatsFamilyWise: 14 % of A/A experiments at 3 runs a side).
//
// p = max(p_exact, p_t). The ratio's interval is RateRatio's with the
// counts divided by φ_eff = φ·(t_ν/z)², t_ν and z the two quantiles at
// the level asked (the dispersion, widened for being estimated from few
// runs). Dispersion is the φ used, max(φ̂, 1) (1 when the runs gave none).
func RateRatioRuns(counts, exposures [2][]float64, conf float64) RateTest {
	var k, t [2]float64
	for s := range 2 {
		for i := range counts[s] {
			k[s] += counts[s][i]
		}
		for i := range exposures[s] {
			t[s] += exposures[s][i]
		}
	}
	exact := RateRatio(k[0], t[0], k[1], t[1], 1, conf)
	est, ok := RateDispersion(counts[:], exposures[:])
	if !ok || math.IsNaN(est) || math.IsNaN(exact.P) {
		return exact
	}
	phi := max(est, 1)
	df := 0.0
	for s := range 2 {
		df += float64(max(len(counts[s])-1, 0))
	}
	q := TQuantile(1-(1-conf)/2, df) / NormalQuantile(1-(1-conf)/2)
	out := RateRatio(k[0], t[0], k[1], t[1], phi*q*q, conf)
	out.Dispersion = phi
	kk := k[0] + k[1]
	pi0 := t[1] / (t[0] + t[1])
	if se := math.Sqrt(kk * pi0 * (1 - pi0) * phi); se > 0 {
		pt := 2 * TSurvival(math.Abs(k[1]-kk*pi0)/se, df)
		out.P = math.Min(1, math.Max(exact.P, pt))
	} else {
		out.P = exact.P
	}
	return out
}
