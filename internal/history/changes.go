package history

import (
	"math"
	"slices"

	"github.com/cometlab/cometlab/internal/changepoint"
)

// ChangeDetector is the change-point method history uses: Hunter's
// (changepoint.Detect) under cfg, each point found carrying the
// parameters it was found with. Non-finite values cannot occur in a
// trend (figures are finite by the dictionary's rule); a series the
// method refuses has no change points.
func ChangeDetector(cfg changepoint.Config) Detector {
	return func(xs []float64) []ChangePoint {
		ps, err := changepoint.Detect(xs, cfg)
		if err != nil {
			return nil
		}
		var out []ChangePoint
		for _, p := range ps {
			mag := p.Magnitude
			if math.IsInf(mag, 0) || math.IsNaN(mag) {
				mag = 0 // the mean before was 0: no relative change to state
			}
			out = append(out, ChangePoint{Index: p.Index, P: p.P, Magnitude: mag, Before: p.Before.Mean, After: p.After.Mean,
				Window: cfg.Window, MaxP: cfg.MaxP, MinPoints: cfg.MinPoints, MinMagnitude: cfg.MinMagnitude})
		}
		return out
	}
}

// DefaultDetector is ChangeDetector with changepoint.DefaultConfig:
// window 50, p < 0.001, 3 points a side.
func DefaultDetector() Detector { return ChangeDetector(changepoint.DefaultConfig()) }

// AbsoluteFloor is a series' noise floor in its own unit:
// changepoint.NoiseFloor (relative to the series' median) times the
// median's magnitude; 0 when it cannot be estimated (fewer than 3 points,
// a median of 0).
func AbsoluteFloor(xs []float64) float64 {
	f := changepoint.NoiseFloor(xs)
	if math.IsNaN(f) || math.IsInf(f, 0) || len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return f * math.Abs(med)
}
