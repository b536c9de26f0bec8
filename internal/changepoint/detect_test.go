package changepoint

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// noisy returns n points of mean 1000 with independent normal noise of
// coefficient of variation cv, from the seed.
func noisy(n int, cv float64, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 0x636870))
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = 1000 * (1 + cv*r.NormFloat64())
	}
	return xs
}

// shift multiplies xs[from:] by 1 + rel.
func shift(xs []float64, from int, rel float64) []float64 {
	for i := from; i < len(xs); i++ {
		xs[i] *= 1 + rel
	}
	return xs
}

// detect is Detect with DefaultConfig, failing the test on an error.
func detect(t *testing.T, xs []float64) []Point {
	t.Helper()
	got, err := Detect(xs, DefaultConfig())
	if err != nil {
		t.Fatalf("Detect: %v", err)
	}
	return got
}

// indexes returns the indexes of points.
func indexes(points []Point) []int {
	var idx []int
	for _, p := range points {
		idx = append(idx, p.Index)
	}
	return idx
}

// TestDetectStep: one step of a known size at a known index is found
// there, with a small p and its size as the magnitude, in each of 20
// series. A step of 5 σ or more is placed within ±1; one of 3.3 σ (10 %
// in 3 % noise) within ±2 (a point next to the step is often nearer the
// other side's mean). Series of 200 points may also show a false point
// elsewhere (about 3 % of them, TestDetectFlat): at most 2 in 20.
func TestDetectStep(t *testing.T) {
	tests := []struct {
		name      string
		n, at     int
		cv, shift float64
		tol       int
	}{
		{"10% up at 30 of 60, 3% noise", 60, 30, 0.03, 0.10, 2},
		{"10% down at 30 of 60, 3% noise", 60, 30, 0.03, -0.10, 2},
		{"10% up at 30 of 60, 1% noise", 60, 30, 0.01, 0.10, 0},
		{"5% up at 20 of 60, 1% noise", 60, 20, 0.01, 0.05, 1},
		{"20% up at 10 of 60, 3% noise", 60, 10, 0.03, 0.20, 1},
		{"20% up at 52 of 60, 3% noise", 60, 52, 0.03, 0.20, 1},
		{"10% up at 120 of 200, 3% noise", 200, 120, 0.03, 0.10, 2},
		{"10% up at 75 of 150 (a window boundary), 3% noise", 150, 75, 0.03, 0.10, 2},
		{"50% up at 5 of 10, 1% noise", 10, 5, 0.01, 0.50, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			others := 0
			for seed := range uint64(20) {
				got := detect(t, shift(noisy(tt.n, tt.cv, seed), tt.at, tt.shift))
				near := slices.IndexFunc(got, func(p Point) bool { return abs(p.Index-tt.at) <= tt.tol })
				if near < 0 {
					t.Fatalf("seed %d: change points at %v, want one at %d ± %d", seed, indexes(got), tt.at, tt.tol)
				}
				others += len(got) - 1
				if p := got[near]; p.P >= 0.001 || math.Abs(p.Magnitude-tt.shift) > 0.5*math.Abs(tt.shift) {
					t.Errorf("seed %d: p %.3g, magnitude %.3f: want p < 0.001 and magnitude ≈ %.2f", seed, p.P, p.Magnitude, tt.shift)
				}
			}
			if others > 2 {
				t.Errorf("%d change points away from the step in 20 series, want at most 2", others)
			}
		})
	}
}

// TestDetectSegments: a point's segments run from the previous point (or
// 0) to the next (or the end), with their means.
func TestDetectSegments(t *testing.T) {
	xs := make([]float64, 30)
	for i := range xs {
		xs[i] = float64(10 + 10*(i/10) + i%2) // 10,11,… then 20,21,… then 30,31,…
	}
	got := detect(t, xs)
	want := []Point{
		{Index: 10, P: 0, Before: Segment{0, 10, 10.5, 0}, After: Segment{10, 10, 20.5, 0}, Magnitude: 10 / 10.5},
		{Index: 20, P: 0, Before: Segment{10, 10, 20.5, 0}, After: Segment{20, 10, 30.5, 0}, Magnitude: 10 / 20.5},
	}
	if len(got) != len(want) {
		t.Fatalf("change points at %v, want at 10 and 20", indexes(got))
	}
	for i := range want {
		g, w := got[i], want[i]
		g.Before.SD, g.After.SD, w.Before.SD, w.After.SD = 0, 0, 0, 0 // checked apart
		if g.Index != w.Index || g.Before != w.Before || g.After != w.After || math.Abs(g.Magnitude-w.Magnitude) > 1e-12 || g.P > 1e-9 {
			t.Errorf("point %d = %+v, want %+v", i, got[i], want[i])
		}
		if sd := math.Sqrt(10.0 / 4 / 9); math.Abs(got[i].Before.SD-sd) > 1e-12 {
			t.Errorf("point %d: before SD %g, want %g", i, got[i].Before.SD, sd)
		}
	}
}

// TestDetectFlat: flat normal noise (3 %; Detect is scale-invariant, so
// any level gives the same points) has a change point in few series. The
// split of a series is chosen among many before it is tested, so the rate
// is not MaxP; it is bounded by the Bonferroni sum over the splits a
// single change could take, (n − 2·MinPoints + 1)·MaxP: 5.5 % for 60
// points, 19.5 % for 200 (measured: 1.1 % and 3.1 %).
func TestDetectFlat(t *testing.T) {
	const series = 1000
	for _, n := range []int{60, 200} {
		with := 0
		for seed := range uint64(series) {
			if len(detect(t, noisy(n, 0.03, seed))) > 0 {
				with++
			}
		}
		rate := float64(with) / series
		bound := float64(n-2*DefaultConfig().MinPoints+1) * DefaultConfig().MaxP
		t.Logf("%d of %d series of %d points with a change point (%.1f %%, bound %.1f %%)", with, series, n, 100*rate, 100*bound)
		if rate > bound {
			t.Errorf("%d points: false-positive rate %.3f, want ≤ %.3f", n, rate, bound)
		}
	}
}

// TestDetectConstant: a series of one value has no change point, whatever
// the rounding of its segments' means.
func TestDetectConstant(t *testing.T) {
	for _, v := range []float64{1449.3, 0.1, 11.6, 0, -3.7e9} {
		xs := make([]float64, 12)
		for i := range xs {
			xs[i] = v
		}
		if ps := detect(t, xs); len(ps) > 0 {
			t.Errorf("12 × %g: change points %+v", v, ps)
		}
	}
}

// TestDetectOutlier: one outlier (10 σ above a 3 % noise), anywhere, is
// not a change, in series that have none without it.
func TestDetectOutlier(t *testing.T) {
	for seed := range uint64(30) {
		flat := noisy(60, 0.03, seed)
		if len(detect(t, flat)) > 0 {
			continue // a false positive of its own; TestDetectFlat counts those
		}
		for at := range flat {
			xs := slices.Clone(flat)
			xs[at] *= 1.3
			if got := detect(t, xs); len(got) > 0 {
				t.Errorf("seed %d, outlier at %d: change points at %v, want none", seed, at, indexes(got))
			}
		}
	}
}

// TestDetectTwoSteps: two steps (10 % or more in 3 % noise), up then back
// down or further up, are both found (± 2, as in TestDetectStep).
func TestDetectTwoSteps(t *testing.T) {
	tests := []struct {
		name           string
		at1, at2       int
		shift1, shift2 float64
	}{
		{"up and back", 40, 80, 0.10, -1.0 / 11},
		{"up and up", 40, 80, 0.10, 0.10},
		{"close: 10 points apart", 50, 60, 0.15, 0.15},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for seed := range uint64(20) {
				xs := shift(shift(noisy(120, 0.03, seed), tt.at1, tt.shift1), tt.at2, tt.shift2)
				got := indexes(detect(t, xs))
				if len(got) != 2 || abs(got[0]-tt.at1) > 2 || abs(got[1]-tt.at2) > 2 {
					t.Errorf("seed %d: change points at %v, want at %d and %d (± 2)", seed, got, tt.at1, tt.at2)
				}
			}
		})
	}
}

func abs(x int) int { return max(x, -x) }

// TestDetectMinPoints: a step needs MinPoints points after it: 2 points
// from the end it is not reported, 3 from the end it is.
func TestDetectMinPoints(t *testing.T) {
	tests := []struct {
		name      string
		minPoints int
		fromEnd   int
		want      []int
	}{
		{"2 from the end, min 3", 3, 2, nil},
		{"3 from the end, min 3", 3, 3, []int{57}},
		{"4 from the end, min 5", 5, 4, nil},
		{"5 from the end, min 5", 5, 5, []int{55}},
		{"1 from the end, min 2", 2, 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			xs := shift(noisy(60, 0.005, 1), 60-tt.fromEnd, 0.5)
			got, err := Detect(xs, Config{MinPoints: tt.minPoints})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(indexes(got), tt.want) {
				t.Errorf("change points at %v, want %v", indexes(got), tt.want)
			}
		})
	}
}

// TestDetectMinMagnitude: a significant change smaller than MinMagnitude
// is not reported; at or above it, it is.
func TestDetectMinMagnitude(t *testing.T) {
	xs := shift(noisy(60, 0.005, 2), 30, 0.04)
	for _, tt := range []struct {
		min  float64
		want int
	}{{0, 1}, {0.03, 1}, {0.05, 0}} {
		got, err := Detect(xs, Config{MinMagnitude: tt.min})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != tt.want {
			t.Errorf("min magnitude %g: change points at %v, want %d", tt.min, indexes(got), tt.want)
		}
	}
}

// TestDetectDeterministic: the same series gives the same points, and so
// does the series in another unit (a change is relative).
func TestDetectDeterministic(t *testing.T) {
	xs := shift(shift(noisy(200, 0.03, 7), 60, 0.08), 130, -0.06)
	first := detect(t, xs)
	if len(first) == 0 {
		t.Fatal("no change points")
	}
	for range 5 {
		if again := detect(t, slices.Clone(xs)); !slices.Equal(again, first) {
			t.Fatalf("second Detect = %+v, first %+v", again, first)
		}
	}
	scaled := slices.Clone(xs)
	for i := range scaled {
		scaled[i] *= 1e-3
	}
	if got := indexes(detect(t, scaled)); !slices.Equal(got, indexes(first)) {
		t.Errorf("scaled by 1e-3: change points at %v, want %v", got, indexes(first))
	}
}

// TestDetectEdges: empty, short and constant series, and zero means.
func TestDetectEdges(t *testing.T) {
	tests := []struct {
		name string
		xs   []float64
		want []int
	}{
		{"nil", nil, nil},
		{"5 points", []float64{1, 2, 3, 4, 5}, nil},
		{"constant", slices.Repeat([]float64{7}, 60), nil},
		{"constant step", append(slices.Repeat([]float64{7}, 30), slices.Repeat([]float64{8}, 30)...), []int{30}},
		{"from zero", append(slices.Repeat([]float64{0}, 10), slices.Repeat([]float64{1}, 10)...), []int{10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := indexes(detect(t, tt.xs)); !slices.Equal(got, tt.want) {
				t.Errorf("change points at %v, want %v", got, tt.want)
			}
		})
	}
	if got := detect(t, tests[4].xs); len(got) != 1 || !math.IsInf(got[0].Magnitude, 1) {
		t.Errorf("from zero: %+v, want magnitude +Inf", got)
	}
}

// TestDetectErrors: an invalid Config or a non-finite value is an error
// naming it.
func TestDetectErrors(t *testing.T) {
	tests := []struct {
		name string
		xs   []float64
		c    Config
		want string
	}{
		{"NaN", []float64{1, math.NaN()}, Config{}, "changepoint: value is not finite: xs[1] = NaN"},
		{"Inf", []float64{math.Inf(-1)}, Config{}, "changepoint: value is not finite: xs[0] = -Inf"},
		{"min points 1", nil, Config{MinPoints: 1}, "changepoint: min points 1: want at least 2"},
		{"window", nil, Config{Window: 5}, "changepoint: window 5: want at least 2 × min points (6)"},
		{"max p", nil, Config{MaxP: 1.5}, "changepoint: max p 1.5: want 0 < p ≤ 1"},
		{"min magnitude", nil, Config{MinMagnitude: -0.1}, "changepoint: min magnitude -0.1: want a finite value ≥ 0"},
		{"all at once", nil, Config{Window: -1, MaxP: -1, MinMagnitude: math.NaN(), MinPoints: -1},
			"changepoint: min points -1: want at least 2\nchangepoint: window -1: want at least 2 × min points (4)\n" +
				"changepoint: max p -1: want 0 < p ≤ 1\nchangepoint: min magnitude NaN: want a finite value ≥ 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Detect(tt.xs, tt.c)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
			if tt.c == (Config{}) && !errors.Is(err, ErrNonFinite) {
				t.Errorf("error %v is not ErrNonFinite", err)
			}
		})
	}
}

// TestFirstPassP is Otava's relaxed first pass.
func TestFirstPassP(t *testing.T) {
	for _, tt := range []struct{ max, want float64 }{{0.001, 0.01}, {0.01, 0.1}, {0.05, 0.1}, {0.3, 0.6}, {0.5, 0.5}} {
		if got := FirstPassP(tt.max); math.Abs(got-tt.want) > 1e-15 {
			t.Errorf("FirstPassP(%g) = %g, want %g", tt.max, got, tt.want)
		}
	}
}

// BenchmarkDetect: a history of 200 runs with two changes.
func BenchmarkDetect(b *testing.B) {
	xs := shift(shift(noisy(200, 0.03, 7), 60, 0.08), 130, -0.06)
	for b.Loop() {
		if _, err := Detect(xs, DefaultConfig()); err != nil {
			b.Fatal(err)
		}
	}
}
