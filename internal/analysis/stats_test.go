package analysis

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cometlab/cometlab/internal/stats"
)

func near(a, b, tol float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b))
}

func TestStats(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name                  string
		xs                    []float64
		mean, sd, lo, hi, p50 float64
	}{
		{"empty", nil, nan, nan, nan, nan, nan},
		{"one", []float64{7}, 7, nan, 7, 7, 7},
		{"two", []float64{1, 3}, 2, math.Sqrt2, 1, 3, 2},
		{"classic", []float64{2, 4, 4, 4, 5, 5, 7, 9}, 5, math.Sqrt(32.0 / 7), 2, 9, 4.5},
		{"unsorted", []float64{9, -1, 3}, 11.0 / 3, math.Sqrt(((9-11.0/3)*(9-11.0/3) + (-1-11.0/3)*(-1-11.0/3) + (3-11.0/3)*(3-11.0/3)) / 2), -1, 9, 3},
		{"constant", []float64{5, 5, 5, 5}, 5, 0, 5, 5, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, c := range []struct {
				what      string
				got, want float64
			}{
				{"Mean", stats.Mean(tt.xs), tt.mean},
				{"StdDev", stats.StdDev(tt.xs), tt.sd},
				{"Min", stats.Min(tt.xs), tt.lo},
				{"Max", stats.Max(tt.xs), tt.hi},
				{"p50", Describe(tt.xs).Percentile(50), tt.p50},
			} {
				if !near(c.got, c.want, 1e-12) {
					t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
				}
			}
			d := Describe(tt.xs)
			if d.N != len(tt.xs) || !near(d.Mean, tt.mean, 1e-12) || !near(d.StdDev, tt.sd, 1e-12) || !near(d.Min, tt.lo, 0) || !near(d.Max, tt.hi, 0) {
				t.Errorf("Describe = %+v", d)
			}
		})
	}
}

func TestDescribeDoesNotModify(t *testing.T) {
	xs := []float64{3, 1, 2}
	Describe(xs)
	if !slices.Equal(xs, []float64{3, 1, 2}) {
		t.Errorf("Describe sorted its input: %v", xs)
	}
}

func TestWindowCounts(t *testing.T) {
	const s = int64(1e9)
	tests := []struct {
		name    string
		times   []int64
		weights []float64
		start   int64
		n       int
		want    []float64
	}{
		{"empty", nil, nil, 0, 3, []float64{0, 0, 0}},
		{"counts", []int64{0, s/2 - 1, s, 2*s + 1, 3 * s}, nil, 0, 3, []float64{2, 1, 1}},
		{"weights", []int64{10 * s, 10*s + 1, 11 * s}, []float64{5, 7, 2}, 10 * s, 2, []float64{12, 2}},
		{"before start", []int64{-1, 5 * s}, nil, 0, 6, []float64{0, 0, 0, 0, 0, 1}},
		{"no windows", []int64{1}, nil, 0, 0, []float64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := WindowCounts(tt.times, tt.weights, tt.start, s, tt.n); !slices.Equal(got, tt.want) {
				t.Errorf("WindowCounts = %v, want %v", got, tt.want)
			}
		})
	}
}

func BenchmarkDescribe1M(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	xs := make([]float64, 1_000_000)
	for i := range xs {
		xs[i] = r.ExpFloat64() * 1e9
	}
	b.ReportAllocs()
	for b.Loop() {
		d := Describe(xs)
		for _, p := range []float64{50, 90, 95, 99} {
			d.Percentile(p)
		}
	}
}
