package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestRateRatio checks the conditional binomial test of two rates against
// answers computed by hand from the binomial's terms, and its interval
// against Clopper–Pearson's closed form (x = K) and its published table
// value for 3 of 10.
func TestRateRatio(t *testing.T) {
	for _, tt := range []struct {
		name                string
		k1, t1, k2, t2, phi float64
		p, ratio            float64
	}{
		// 2 against 10 over equal exposures: K = 12, π0 = ½,
		// P(X ≥ 10) = (C(12,10) + C(12,11) + C(12,12))/2¹² = 79/4096.
		{"2 v 10, equal exposure", 2, 100, 10, 100, 1, 2 * 79.0 / 4096, 5},
		// The same test from counts twice as large, divided by φ = 2.
		{"4 v 20 over-dispersed by 2", 4, 100, 20, 100, 2, 2 * 79.0 / 4096, 5},
		// Slow heights 0,0,0 against 2,2,2 over 40 and 43⅓ heights a run:
		// 0 of 120 against 6 of 130: π0 = 130/250 = 0.52, P(X ≥ 6) = 0.52⁶.
		{"0 of 120 v 6 of 130 heights", 0, 120, 6, 130, 1, 2 * math.Pow(0.52, 6), math.Inf(1)},
		{"0,0,0 v 2,2,2 over equal heights", 0, 120, 6, 120, 1, 2 * math.Pow(0.5, 6), math.Inf(1)},
		// Equal counts over equal exposures: no evidence at all.
		{"5 v 5", 5, 10, 5, 10, 1, 1, 1},
		{"no events", 0, 10, 0, 10, 1, 1, math.NaN()},
		// φ below 1 is taken as 1.
		{"φ < 1 is Poisson", 2, 100, 10, 100, 0.5, 2 * 79.0 / 4096, 5},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := RateRatio(tt.k1, tt.t1, tt.k2, tt.t2, tt.phi, 0.95)
			if math.Abs(got.P-tt.p) > 1e-9 {
				t.Errorf("p = %.12g, want %.12g", got.P, tt.p)
			}
			if !(math.IsNaN(tt.ratio) && math.IsNaN(got.Ratio)) && got.Ratio != tt.ratio {
				t.Errorf("ratio = %v, want %v", got.Ratio, tt.ratio)
			}
			if got.Dispersion < 1 {
				t.Errorf("dispersion %v", got.Dispersion)
			}
		})
	}
	// Clopper–Pearson with x = K: π_lo = (a/2)^(1/K), π_hi = 1 (ratio +Inf).
	got := RateRatio(0, 120, 6, 120, 1, 0.95)
	pi := math.Pow(0.025, 1.0/6)
	if want := pi / (1 - pi); math.Abs(got.Interval.Lo-want) > 1e-9 || !math.IsInf(got.Interval.Hi, 1) {
		t.Errorf("interval %+v, want [%v, +Inf]", got.Interval, want)
	}
	// 3 of 10 at 95 %: (0.0667, 0.6525), the table value (e.g. Brown, Cai
	// and DasGupta 2001; Newcombe 1998, table I).
	got = RateRatio(7, 50, 3, 50, 1, 0.95)
	lo, hi := got.Interval.Lo/(1+got.Interval.Lo), got.Interval.Hi/(1+got.Interval.Hi)
	if math.Abs(lo-0.0667) > 5e-5 || math.Abs(hi-0.6525) > 5e-5 {
		t.Errorf("3 of 10: π interval (%.4f, %.4f), want (0.0667, 0.6525)", lo, hi)
	}
	if got := RateRatio(1, 0, 1, 1, 1, 0.95); !math.IsNaN(got.P) {
		t.Errorf("zero exposure: p = %v, want NaN", got.P)
	}
}

// TestRateDispersion: Pearson's dispersion by hand. Side A's 10, 20, 30
// over unit exposures have λ = 20 and χ² = (100 + 0 + 100)/20 = 10; side
// B's 20, 20, 20 add 0; df = 2 + 2, so φ = 2.5.
func TestRateDispersion(t *testing.T) {
	one := []float64{1, 1, 1}
	phi, ok := RateDispersion([][]float64{{10, 20, 30}, {20, 20, 20}}, [][]float64{one, one})
	if !ok || math.Abs(phi-2.5) > 1e-12 {
		t.Errorf("φ = %v, %v; want 2.5", phi, ok)
	}
	if _, ok := RateDispersion([][]float64{{3}, {4}}, [][]float64{{1}, {1}}); ok {
		t.Error("single runs have no degree of freedom")
	}
	if phi, ok := RateDispersion([][]float64{{0, 0, 0}, {2, 2, 2}}, [][]float64{{40, 40, 40}, {40, 40, 40}}); !ok || phi != 0 {
		t.Errorf("alike runs: φ = %v, %v; want 0", phi, ok)
	}
}

// TestRateRatioRuns: the cautious of the Poisson test and the runs'
// spread. 10, 20, 30 against 40, 40, 40 over unit exposures: φ̂ = 2.5
// (TestRateDispersion's side A), ν = 4, K = 180, π0 = ½,
// t = (120 − 90)/√(180·¼·2.5) = 2√2, and for ν = 4 the two-sided
// p = 1 − t(t² + 6)/(t² + 4)^{3/2}; the Poisson test's p is far smaller.
// Alike runs, 0, 0, 0 against 2, 2, 2 heights of 40, fall back to the
// Poisson test: p = 2·½⁶, not the 0 of a t test of zero variance.
func TestRateRatioRuns(t *testing.T) {
	one := []float64{1, 1, 1}
	got := RateRatioRuns([2][]float64{{10, 20, 30}, {40, 40, 40}}, [2][]float64{one, one}, 0.95)
	tt := 2 * math.Sqrt2
	want := 1 - tt*(tt*tt+6)/math.Pow(tt*tt+4, 1.5)
	if math.Abs(got.P-want) > 1e-9 || got.Dispersion != 2.5 {
		t.Errorf("over-dispersed: p = %.10g, φ = %v; want %.10g, 2.5", got.P, got.Dispersion, want)
	}
	if exact := RateRatio(60, 3, 120, 3, 1, 0.95); exact.P >= want/100 {
		t.Errorf("the Poisson test should be far stronger: %v", exact.P)
	}
	if got.Interval.Lo >= 1 || got.Interval.Hi <= 2 {
		t.Errorf("over-dispersed interval %+v should hold 1 and 2", got.Interval)
	}
	h := []float64{40, 40, 40}
	got = RateRatioRuns([2][]float64{{0, 0, 0}, {2, 2, 2}}, [2][]float64{h, h}, 0.95)
	// Alike runs (φ̂ = 0) are taken at the Poisson floor φ = 1 and still
	// referred to t with ν = 4: K = 6, π0 = ½, t = 3/√1.5 = √6, p =
	// 1 − √6·12/10^{3/2} = 0.0705, more cautious than the exact test's
	// 2·½⁶ = 0.031 (φ̂ ≤ 1 from 3 runs a side is often chance).
	if want := 1 - math.Sqrt(6)*12/math.Pow(10, 1.5); math.Abs(got.P-want) > 1e-12 || got.Dispersion != 1 {
		t.Errorf("alike runs: p = %v, φ = %v; want %v, 1", got.P, got.Dispersion, want)
	}
}

// TestRateRatioRunsFalseAlarms: A/A experiments of 3 runs a side whose
// counts vary between runs more than Poisson counts do (each run's rate
// λ·e^{σZ}, σ = 0.3: a busy host, a burst of refusals) call the rates
// different at α = 0.05 in about α of the experiments, where the Poisson
// test alone (φ = 1) calls most of them different; with Poisson counts
// (σ = 0) both hold α. 2,000 experiments: α + 3 standard errors is 0.065.
func TestRateRatioRunsFalseAlarms(t *testing.T) {
	const experiments, alpha = 2000, 0.05
	limit := alpha + 3*math.Sqrt(alpha*(1-alpha)/experiments)
	for _, tt := range []struct {
		name          string
		lambda, sigma float64
		poissonAbove  float64 // the Poisson test's share must exceed this
	}{
		{"over-dispersed, 300 events a run", 300, 0.3, 0.5},
		{"over-dispersed, 30 events a run", 30, 0.3, 0.2},
		{"Poisson, 30 events a run", 30, 0, -1},
		{"Poisson, 2 events a run", 2, 0, -1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, uint64(tt.lambda)))
			var runs, poisson int
			for range experiments {
				var counts, exp [2][]float64
				for s := range 2 {
					for range 3 {
						l := tt.lambda * math.Exp(tt.sigma*r.NormFloat64())
						counts[s] = append(counts[s], distuv.Poisson{Lambda: l, Src: r}.Rand())
						exp[s] = append(exp[s], 40)
					}
				}
				if RateRatioRuns(counts, exp, 0.95).P < alpha {
					runs++
				}
				var k [2]float64
				for s := range 2 {
					for _, c := range counts[s] {
						k[s] += c
					}
				}
				if RateRatio(k[0], 120, k[1], 120, 1, 0.95).P < alpha {
					poisson++
				}
			}
			share, pshare := float64(runs)/experiments, float64(poisson)/experiments
			t.Logf("false alarms: %.3f (the Poisson test alone: %.3f)", share, pshare)
			if share > limit {
				t.Errorf("false alarms %.3f, want ≤ %.3f", share, limit)
			}
			if tt.poissonAbove >= 0 && pshare <= tt.poissonAbove {
				t.Errorf("the Poisson test alone flagged only %.3f: the simulation cannot tell the dispersion from none", pshare)
			}
		})
	}
}
