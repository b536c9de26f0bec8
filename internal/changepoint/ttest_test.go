package changepoint

import (
	"math"
	"testing"
)

// TestTestP checks the test of two segments against the closed form of
// Student's t with 2 degrees of freedom, P(T > t) = (1 − t/√(t² + 2))/2.
func TestTestP(t *testing.T) {
	p2 := func(tt float64) float64 { return 1 - tt/math.Sqrt(tt*tt+2) } // two-sided, ν = 2
	tests := []struct {
		name string
		a, b Segment
		want float64
	}{
		// s² = 1 (either side), se² = 2/3, t = 3/√(2/3).
		{"3 and 3 points", Segment{N: 3, Mean: 2, SD: 1}, Segment{N: 3, Mean: 5, SD: 1}, p2(3 / math.Sqrt(2.0/3))},
		// The short side is the noisier: its s² = 4 and ν = 2, se² = 4·(1/3 + 1/97).
		{"short noisy side", Segment{N: 97, Mean: 10, SD: 1}, Segment{N: 3, Mean: 14, SD: 2}, p2(4 / math.Sqrt(4*(1.0/3+1.0/97)))},
		{"constant, equal", Segment{N: 3, Mean: 1}, Segment{N: 5, Mean: 1}, 1},
		{"constant, different", Segment{N: 3, Mean: 1}, Segment{N: 5, Mean: 2}, 0},
		{"constant, means rounded apart", Segment{N: 3, Mean: 1449.3}, Segment{N: 9, Mean: 1449.2999999999997}, 1},
		{"one point", Segment{N: 1, Mean: 1}, Segment{N: 5, Mean: 2, SD: 1}, 1},
		{"overflow", Segment{N: 3, Mean: math.Inf(1), SD: math.NaN()}, Segment{N: 3, Mean: 1, SD: 1}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := testP(tt.a, tt.b); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("testP = %.15g, want %.15g", got, tt.want)
			}
		})
	}
	// The long quiet side gives s² and ν = 96: far more significant.
	if got := testP(Segment{N: 97, Mean: 10, SD: 2}, Segment{N: 3, Mean: 14, SD: 1}); got > 1e-3 {
		t.Errorf("testP with the long side noisier = %g, want < 0.001", got)
	}
}
