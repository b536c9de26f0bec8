package changepoint

import (
	"math"
	"math/rand/v2"
	"testing"
)

// naiveQ is the E-divisive statistic of X = v[s:t] and Y = v[t:k] from its
// definition (Matteson and James 2014, α = 1):
//
//	Q̂ = nm/(n+m) · (2/(nm)·Σ|x − y| − 1/C(n,2)·Σ_{x<x'}|x − x'| − 1/C(m,2)·Σ_{y<y'}|y − y'|)
func naiveQ(v []float64, s, t, k int) float64 {
	x, y := v[s:t], v[t:k]
	n, m := float64(len(x)), float64(len(y))
	var between, wx, wy float64
	for _, a := range x {
		for _, b := range y {
			between += math.Abs(a - b)
		}
	}
	for i := range x {
		for j := i + 1; j < len(x); j++ {
			wx += math.Abs(x[i] - x[j])
		}
	}
	for i := range y {
		for j := i + 1; j < len(y); j++ {
			wy += math.Abs(y[i] - y[j])
		}
	}
	e := 2/(n*m)*between - wx/(n*(n-1)/2) - wy/(m*(m-1)/2)
	return n * m / (n + m) * e
}

// TestEnergyCandidate checks the prefix-sum statistic against its
// definition, maximised by brute force, on random intervals of random
// series.
func TestEnergyCandidate(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		v := make([]float64, 5+r.IntN(40))
		for i := range v {
			v[i] = r.NormFloat64() + float64(i/(1+r.IntN(20)))
		}
		minPoints := 2 + r.IntN(3)
		s := r.IntN(len(v) / 2)
		end := s + r.IntN(len(v)-s+1)
		wantTau, wantQ, wantOK := 0, math.Inf(-1), false
		for tau := s + minPoints; tau <= end-minPoints; tau++ {
			for k := tau + minPoints; k <= end; k++ {
				if q := naiveQ(v, s, tau, k); q > wantQ+1e-9 {
					wantTau, wantQ, wantOK = tau, q, true
				}
			}
		}
		tau, q, ok := newEnergy(v).candidate(s, end, minPoints)
		if ok != wantOK || ok && (tau != wantTau || math.Abs(q-wantQ) > 1e-9*max(1, math.Abs(wantQ))) {
			t.Fatalf("trial %d: candidate(%d, %d, %d) of %d points = %d, %g, %v; want %d, %g, %v", trial, s, end, minPoints, len(v), tau, q, ok, wantTau, wantQ, wantOK)
		}
	}
}
