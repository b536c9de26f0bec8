package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat"
)

func near(a, b, tol float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b))
}

func TestPercentile(t *testing.T) {
	// Known answers of numpy.percentile(x, p) (method="linear").
	five := []float64{15, 20, 35, 40, 50}
	ten := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	tests := []struct {
		sorted  []float64
		p, want float64
	}{
		{five, 0, 15},
		{five, 5, 16},
		{five, 30, 23},
		{five, 40, 29},
		{five, 50, 35},
		{five, 99, 49.6},
		{five, 100, 50},
		{five, -5, 15},
		{five, 120, 50},
		{ten, 90, 9.1},
		{ten, 50, 5.5},
		{ten, 99, 9.91},
		{[]float64{3}, 99, 3},
		{nil, 50, math.NaN()},
		{five, math.NaN(), math.NaN()},
	}
	for _, tt := range tests {
		if got := Percentile(tt.sorted, tt.p); !near(got, tt.want, 1e-12) {
			t.Errorf("Percentile(%v, %v) = %v, want %v", tt.sorted, tt.p, got, tt.want)
		}
	}
}

// TestStdDevMatchesGonum checks StdDev against gonum's stat.StdDev, which
// CometBFT's loadtime report uses.
func TestStdDevMatchesGonum(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{2, 3, 10, 1000, 100000} {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = 1e9 + r.NormFloat64()*3e8
		}
		if got, want := StdDev(xs), stat.StdDev(xs, nil); !near(got, want, 1e-12) {
			t.Errorf("n=%d: StdDev = %v, gonum %v", n, got, want)
		}
		if got, want := Mean(xs), stat.Mean(xs, nil); !near(got, want, 1e-12) {
			t.Errorf("n=%d: Mean = %v, gonum %v", n, got, want)
		}
	}
}

func TestVarianceRMS(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name          string
		xs            []float64
		variance, rms float64
	}{
		{"empty", nil, nan, nan},
		{"one", []float64{-3}, nan, 3},
		{"two", []float64{1, 3}, 2, math.Sqrt(5)},
		// The classic example: population variance 4, sample variance 32/7.
		{"classic", []float64{2, 4, 4, 4, 5, 5, 7, 9}, 32.0 / 7, math.Sqrt(232.0 / 8)},
		{"constant", []float64{5, 5, 5}, 0, 5},
		{"pythagorean", []float64{3, 4}, 0.5, math.Sqrt(12.5)},
	}
	for _, tt := range tests {
		if got := Variance(tt.xs); !near(got, tt.variance, 1e-12) {
			t.Errorf("%s: Variance = %v, want %v", tt.name, got, tt.variance)
		}
		if got := RMS(tt.xs); !near(got, tt.rms, 1e-12) {
			t.Errorf("%s: RMS = %v, want %v", tt.name, got, tt.rms)
		}
		if s := StdDev(tt.xs); !math.IsNaN(s) && Variance(tt.xs) != s*s {
			t.Errorf("%s: Variance %v is not StdDev² %v", tt.name, Variance(tt.xs), s*s)
		}
	}
}

// FuzzPercentile checks the properties of type 7 percentiles on any
// sorted sample: within [min, max], non-decreasing in p, the exact order
// statistic where (n − 1)·p/100 is a whole number.
func FuzzPercentile(f *testing.F) {
	f.Add([]byte{1, 2, 3, 200}, 50.0, 75.0)
	f.Add([]byte{7}, 99.0, 0.0)
	f.Add([]byte{0, 0, 255, 255, 128}, 12.5, 87.5)
	f.Fuzz(func(t *testing.T, raw []byte, p, q float64) {
		if len(raw) == 0 || math.IsNaN(p) || math.IsNaN(q) {
			return
		}
		xs := make([]float64, len(raw))
		for i, b := range raw {
			xs[i] = float64(b) - 100.5
		}
		slices.Sort(xs)
		lo, hi := min(p, q), max(p, q)
		a, b := Percentile(xs, lo), Percentile(xs, hi)
		if a < xs[0] || b > xs[len(xs)-1] {
			t.Fatalf("Percentile out of [%v, %v]: %v, %v", xs[0], xs[len(xs)-1], a, b)
		}
		if a > b {
			t.Fatalf("Percentile(%v) = %v > Percentile(%v) = %v", lo, a, hi, b)
		}
		for k := range xs {
			pk := 100 * float64(k) / float64(max(len(xs)-1, 1))
			if len(xs) == 1 {
				pk = 50
			}
			if h := float64(len(xs)-1) * pk / 100; h == math.Trunc(h) {
				if got := Percentile(xs, pk); got != xs[int(h)] {
					t.Fatalf("Percentile(%v) = %v, want order statistic %v", pk, got, xs[int(h)])
				}
			}
		}
	})
}
