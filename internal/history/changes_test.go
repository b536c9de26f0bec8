package history

import (
	"math"
	"testing"
)

// TestChangeDetector: a step of known size at a known run is found, with
// the parameters it was found with; a flat series has none; the floor is
// in the series' unit.
func TestChangeDetector(t *testing.T) {
	var xs []float64
	for i := range 40 {
		v := 100 + float64(i%3) - 1 // 99, 100, 101, …
		if i >= 20 {
			v += 20
		}
		xs = append(xs, v)
	}
	cps := DefaultDetector()(xs)
	if len(cps) != 1 || cps[0].Index != 20 || cps[0].Window != 50 || cps[0].MaxP != 0.001 || cps[0].MinPoints != 3 {
		t.Fatalf("change points %+v, want one at 20 with the default parameters", cps)
	}
	if math.Abs(cps[0].Before-100) > 0.5 || math.Abs(cps[0].After-120) > 0.5 || math.Abs(cps[0].Magnitude-0.2) > 0.01 {
		t.Errorf("change point %+v: want 100 → 120, +20 %%", cps[0])
	}
	if cps := DefaultDetector()(xs[:20]); len(cps) != 0 {
		t.Errorf("flat: %+v", cps)
	}
	if f := AbsoluteFloor(xs[:20]); f <= 0 || f > 3 {
		t.Errorf("floor %g: want a few units of a series of 100 ± 1", f)
	}
	if f := AbsoluteFloor([]float64{1}); f != 0 {
		t.Errorf("floor of one point %g, want 0", f)
	}
}
