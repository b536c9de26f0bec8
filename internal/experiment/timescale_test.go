package experiment

import (
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/manifest"
)

// TestScaledTimeout: at k = 1 a wait is left as it is (0 too, the
// collectors' default); at k = 4 it, or its default, is 4 times longer.
func TestScaledTimeout(t *testing.T) {
	for _, c := range []struct {
		d, def time.Duration
		k      float64
		want   time.Duration
	}{
		{0, time.Second, 1, 0}, {0, time.Second, 0, 0}, {3 * time.Second, time.Second, 1, 3 * time.Second},
		{0, time.Second, 4, 4 * time.Second}, {90 * time.Second, 0, 4, 6 * time.Minute}, {500 * time.Millisecond, 0, 2.5, 1250 * time.Millisecond},
	} {
		if got := scaledTimeout(c.d, c.def, c.k); got != c.want {
			t.Errorf("scaledTimeout(%v, %v, %v) = %v, want %v", c.d, c.def, c.k, got, c.want)
		}
	}
}

// TestCheckSideScales: A/B sides at different time scales are refused,
// naming both, unless allowed; sides at one scale are not.
func TestCheckSideScales(t *testing.T) {
	side := func(k float64) manifest.Resolved { return manifest.Resolved{TimeScale: k} }
	labels := []string{"base", "cand"}
	if err := checkSideScales([]manifest.Resolved{side(4), side(4)}, labels, false); err != nil {
		t.Errorf("one scale refused: %v", err)
	}
	err := checkSideScales([]manifest.Resolved{side(1), side(4)}, labels, false)
	if err == nil || !strings.Contains(err.Error(), "side base runs at time scale 1 and side cand at 4") {
		t.Errorf("two scales: %v", err)
	} else if code, _ := exitcode.Of(err); code != exitcode.Usage {
		t.Errorf("exit code %d, want usage", code)
	}
	if err := checkSideScales([]manifest.Resolved{side(1), side(4)}, labels, true); err != nil {
		t.Errorf("allowed, refused: %v", err)
	}
}
