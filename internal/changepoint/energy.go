package changepoint

import "math"

// energy holds the pairwise distances |v[i] − v[j]| of one window v as a
// two-dimensional prefix sum, so that the energy statistic of any split
// of any interval of the window costs O(1):
//
//	P[a][b] = Σ_{i<a, j<b} |v[i] − v[j]|
type energy struct {
	n int
	p []float64 // (n+1)×(n+1), row-major
}

// newEnergy returns the prefix sums of the distances of v, in O(n²) time
// and memory.
func newEnergy(v []float64) *energy {
	n := len(v)
	w := n + 1
	e := &energy{n: n, p: make([]float64, w*w)}
	for i := range n {
		var row float64
		for j := range n {
			row += math.Abs(v[i] - v[j])
			e.p[(i+1)*w+j+1] = e.p[i*w+j+1] + row
		}
	}
	return e
}

// block returns Σ_{a1≤i<a2, b1≤j<b2} |v[i] − v[j]|.
func (e *energy) block(a1, a2, b1, b2 int) float64 {
	w := e.n + 1
	return e.p[a2*w+b2] - e.p[a1*w+b2] - e.p[a2*w+b1] + e.p[a1*w+b1]
}

// candidate returns the split τ of the interval [s, e) of the window that
// maximises the E-divisive statistic of Matteson and James (α = 1) over
// the sub-interval [s, κ), with at least minPoints points on each side of
// τ (s + minPoints ≤ τ ≤ e − minPoints, τ + minPoints ≤ κ ≤ e):
//
//	X = v[s:τ] (n points),  Y = v[τ:κ] (m points)
//	Q̂(τ, κ) = 2/(n+m)·Σ_{X,Y}|x − y| − 2m/((n+m)(n−1))·Σ_{x<x'}|x − x'| − 2n/((n+m)(m−1))·Σ_{y<y'}|y − y'|
//
// (that is, nm/(n+m) times the energy distance between X and Y). It
// returns ok false when the interval is too short for a split. Ties go to
// the smallest τ, then the smallest κ; a NaN statistic (overflowing
// values) is never chosen.
func (e *energy) candidate(s, end, minPoints int) (tau int, q float64, ok bool) {
	q = math.Inf(-1)
	for t := s + minPoints; t <= end-minPoints; t++ {
		n := float64(t - s)
		within := e.block(s, t, s, t) / 2
		for k := t + minPoints; k <= end; k++ {
			m := float64(k - t)
			between := e.block(s, t, t, k)
			withinY := e.block(t, k, t, k) / 2
			v := (2*between - 2*m/(n-1)*within - 2*n/(m-1)*withinY) / (n + m)
			if v > q {
				tau, q, ok = t, v, true
			}
		}
	}
	return tau, q, ok
}
