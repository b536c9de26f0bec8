package stats

import (
	"math"
	"testing"
)

// TestTQuantileTable checks TQuantile against the published table of
// Student's t critical values (e.g. NIST/SEMATECH e-Handbook of
// Statistical Methods, 1.3.6.7.2, upper critical values), given there to
// 3 decimals.
func TestTQuantileTable(t *testing.T) {
	tests := []struct {
		df, p, want float64
	}{
		{1, 0.975, 12.706},
		{2, 0.975, 4.303},
		{3, 0.975, 3.182},
		{5, 0.975, 2.571},
		{10, 0.975, 2.228},
		{20, 0.975, 2.086},
		{30, 0.975, 2.042},
		{100, 0.975, 1.984},
		{1, 0.95, 6.314},
		{10, 0.95, 1.812},
		{4, 0.995, 4.604},
		{9, 0.99, 2.821},
		{28, 0.8, 0.855},
		{6, 0.9, 1.440},
	}
	for _, tt := range tests {
		if got := TQuantile(tt.p, tt.df); math.Abs(got-tt.want) > 0.0005 {
			t.Errorf("TQuantile(%v, %v) = %.4f, want %.3f", tt.p, tt.df, got, tt.want)
		}
		// Symmetry: the lower tail is the negative of the upper.
		if got, want := TQuantile(1-tt.p, tt.df), -TQuantile(tt.p, tt.df); math.Abs(got-want) > 1e-9 {
			t.Errorf("TQuantile(%v, %v) = %v, want %v", 1-tt.p, tt.df, got, want)
		}
	}
	// Closed forms: df = 1 is Cauchy, t = tan(π(p − ½)); df = 2,
	// t = (2p − 1)·sqrt(2 / (4p(1 − p))).
	for _, p := range []float64{0.6, 0.9, 0.975, 0.999} {
		if got, want := TQuantile(p, 1), math.Tan(math.Pi*(p-0.5)); math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Errorf("TQuantile(%v, 1) = %v, want %v", p, got, want)
		}
		if got, want := TQuantile(p, 2), (2*p-1)*math.Sqrt(2/(4*p*(1-p))); math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Errorf("TQuantile(%v, 2) = %v, want %v", p, got, want)
		}
	}
	// Large df tends to the normal quantile.
	if got, want := TQuantile(0.975, 1e7), NormalQuantile(0.975); math.Abs(got-want) > 1e-6 {
		t.Errorf("TQuantile(0.975, 1e7) = %v, want about %v", got, want)
	}
}

func TestTCDFSurvival(t *testing.T) {
	for _, df := range []float64{1, 2.5, 7, 30} {
		for _, p := range []float64{0.01, 0.3, 0.5, 0.9, 0.975} {
			x := TQuantile(p, df)
			if got := TCDF(x, df); math.Abs(got-p) > 1e-9 {
				t.Errorf("TCDF(TQuantile(%v, %v)) = %v", p, df, got)
			}
			if got := TSurvival(x, df); math.Abs(got-(1-p)) > 1e-9 {
				t.Errorf("TSurvival(TQuantile(%v, %v)) = %v, want %v", p, df, got, 1-p)
			}
		}
	}
	if got := TCDF(0, 5); got != 0.5 {
		t.Errorf("TCDF(0, 5) = %v, want 0.5", got)
	}
}

func TestNormal(t *testing.T) {
	tests := []struct{ p, z float64 }{
		{0.5, 0}, {0.975, 1.959964}, {0.95, 1.644854}, {0.995, 2.575829}, {0.8, 0.841621},
	}
	for _, tt := range tests {
		if got := NormalQuantile(tt.p); math.Abs(got-tt.z) > 1e-6 {
			t.Errorf("NormalQuantile(%v) = %v, want %v", tt.p, got, tt.z)
		}
		if got := NormalCDF(tt.z); math.Abs(got-tt.p) > 1e-6 {
			t.Errorf("NormalCDF(%v) = %v, want %v", tt.z, got, tt.p)
		}
		if got := NormalSurvival(tt.z); math.Abs(got-(1-tt.p)) > 1e-6 {
			t.Errorf("NormalSurvival(%v) = %v, want %v", tt.z, got, 1-tt.p)
		}
	}
}
