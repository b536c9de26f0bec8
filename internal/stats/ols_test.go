package stats

import (
	"math"
	"testing"
)

func TestFitLineExact(t *testing.T) {
	tests := []struct {
		name   string
		xs, ys []float64
		a, b   float64
	}{
		{"two points", []float64{0, 1}, []float64{1, 3}, 1, 2},
		{"rising", []float64{1, 2, 3, 4, 5}, []float64{5, 8, 11, 14, 17}, 2, 3},
		{"falling", []float64{-2, 0, 2, 4}, []float64{9, 5, 1, -3}, 5, -2},
		{"flat", []float64{3, 7, 11}, []float64{4, 4, 4}, 4, 0},
		{"unordered", []float64{10, 0, 5, 20}, []float64{25, 5, 15, 45}, 5, 2},
		{"seconds", []float64{30, 90, 150, 210}, []float64{0.5, 0.8, 1.1, 1.4}, 0.35, 0.005},
	}
	for _, tt := range tests {
		l, ok := FitLine(tt.xs, tt.ys)
		if !ok || l.N != len(tt.xs) || !near(l.Slope, tt.b, 1e-12) || !near(l.Intercept, tt.a, 1e-12) {
			t.Errorf("%s: FitLine = %+v, %v; want a = %v, b = %v", tt.name, l, ok, tt.a, tt.b)
			continue
		}
		if l.N >= 3 && !(l.SlopeSE < 1e-12) {
			t.Errorf("%s: SlopeSE = %v on an exact line, want about 0", tt.name, l.SlopeSE)
		}
		if l.N < 3 && (!math.IsNaN(l.SlopeSE) || !math.IsNaN(l.SlopeCI95())) {
			t.Errorf("%s: SlopeSE %v, SlopeCI95 %v with %d points, want NaN", tt.name, l.SlopeSE, l.SlopeCI95(), l.N)
		}
	}
}

// TestFitLineAnscombe checks FitLine on Anscombe's quartet (Anscombe
// 1973), whose four sets share the fit y = 3.00 + 0.500·x with a slope
// standard error of 0.118 (n = 11, 9 degrees of freedom); the first set's
// is y = 3.0001 + 0.5001·x, SE 0.1179, to 4 decimals.
func TestFitLineAnscombe(t *testing.T) {
	x := []float64{10, 8, 13, 9, 11, 14, 6, 4, 12, 7, 5}
	x4 := []float64{8, 8, 8, 8, 8, 8, 8, 19, 8, 8, 8}
	sets := []struct{ xs, ys []float64 }{
		{x, []float64{8.04, 6.95, 7.58, 8.81, 8.33, 9.96, 7.24, 4.26, 10.84, 4.82, 5.68}},
		{x, []float64{9.14, 8.14, 8.74, 8.77, 9.26, 8.10, 6.13, 3.10, 9.13, 7.26, 4.74}},
		{x, []float64{7.46, 6.77, 12.74, 7.11, 7.81, 8.84, 6.08, 5.39, 8.15, 6.42, 5.73}},
		{x4, []float64{6.58, 5.76, 7.71, 8.84, 8.47, 7.04, 5.25, 12.50, 5.56, 7.91, 6.89}},
	}
	for i, s := range sets {
		l, ok := FitLine(s.xs, s.ys)
		if !ok || math.Abs(l.Slope-0.500) > 0.0005 || math.Abs(l.Intercept-3.00) > 0.005 || math.Abs(l.SlopeSE-0.118) > 0.0005 {
			t.Errorf("set %d: FitLine = %+v, %v; want b 0.500, a 3.00, SE 0.118", i+1, l, ok)
		}
		if r4 := func(v float64) float64 { return math.Round(v*1e4) / 1e4 }; i == 0 && (r4(l.Slope) != 0.5001 || r4(l.Intercept) != 3.0001 || r4(l.SlopeSE) != 0.1179) {
			t.Errorf("set 1: FitLine = %+v; want b 0.5001, a 3.0001, SE 0.1179", l)
		}
		// t(0.975, 9) = 2.262.
		if got, want := l.SlopeCI95(), 2.262*0.1179; math.Abs(got-want) > 0.0005 {
			t.Errorf("set %d: SlopeCI95 = %v, want about %v", i+1, got, want)
		}
	}
}

// TestFitLineSmall is a hand-checked example: x = 1…5, y = 2, 4, 5, 4, 5
// gives b = 6/10, a = 2.2, residual sum of squares 2.4 and
// SE(b) = sqrt(2.4 / 3 / 10).
func TestFitLineSmall(t *testing.T) {
	l, ok := FitLine([]float64{1, 2, 3, 4, 5}, []float64{2, 4, 5, 4, 5})
	if !ok || !near(l.Slope, 0.6, 1e-12) || !near(l.Intercept, 2.2, 1e-12) || !near(l.SlopeSE, math.Sqrt(0.08), 1e-12) {
		t.Errorf("FitLine = %+v, %v", l, ok)
	}
	if got, want := l.SlopeCI95(), TQuantile(0.975, 3)*math.Sqrt(0.08); !near(got, want, 1e-12) {
		t.Errorf("SlopeCI95 = %v, want %v", got, want)
	}
}

func TestFitLineNone(t *testing.T) {
	for _, c := range []struct{ xs, ys []float64 }{
		{nil, nil},
		{[]float64{1}, []float64{2}},
		{[]float64{3, 3, 3}, []float64{1, 2, 3}},
	} {
		if l, ok := FitLine(c.xs, c.ys); ok || !math.IsNaN(l.Slope) || !math.IsNaN(l.SlopeCI95()) {
			t.Errorf("FitLine(%v, %v) = %+v, %v; want no line", c.xs, c.ys, l, ok)
		}
	}
}

// FuzzFitLine fits exact lines y = a + b·x through fuzzed points (small
// whole numbers, so the data hold no rounding) and checks that the slope
// and intercept come back and the residuals vanish; then that adding a
// constant to y shifts only the intercept.
func FuzzFitLine(f *testing.F) {
	f.Add([]byte{1, 2, 3}, int8(2), int8(-3))
	f.Add([]byte{200, 0, 17, 17, 90}, int8(-7), int8(100))
	f.Fuzz(func(t *testing.T, raw []byte, a, b int8) {
		xs, ys := make([]float64, len(raw)), make([]float64, len(raw))
		for i, r := range raw {
			xs[i] = float64(r)
			ys[i] = float64(a) + float64(b)*xs[i]
		}
		l, ok := FitLine(xs, ys)
		if !ok {
			if len(raw) >= 2 && Max(xs) != Min(xs) {
				t.Fatalf("no line through %v", xs)
			}
			return
		}
		tol := 1e-9 * (1 + math.Abs(float64(b)))
		if math.Abs(l.Slope-float64(b)) > tol || math.Abs(l.Intercept-float64(a)) > 1e-7*(1+math.Abs(float64(a))+math.Abs(float64(b))*255) {
			t.Fatalf("FitLine = %+v, want a = %d, b = %d", l, a, b)
		}
		if l.N >= 3 && !(l.SlopeSE <= tol) {
			t.Fatalf("SlopeSE = %v on an exact line", l.SlopeSE)
		}
		shifted := make([]float64, len(ys))
		for i := range ys {
			shifted[i] = ys[i] + 1000
		}
		m, _ := FitLine(xs, shifted)
		if math.Abs(m.Slope-l.Slope) > tol || math.Abs(m.Intercept-l.Intercept-1000) > 1e-6 {
			t.Fatalf("shifting y by 1000: %+v, then %+v", l, m)
		}
	})
}
