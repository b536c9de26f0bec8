package changepoint

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Config holds the parameters of Detect. A zero field takes its default
// (DefaultConfig), except MinMagnitude, whose default is 0.
type Config struct {
	// Window is the length, in points, of the sliding windows of the split
	// pass (step Window/2). Default 50; at least 2·MinPoints.
	Window int
	// MaxP bounds the p-value of a reported change point (P < MaxP; the
	// t test of Point.P). Default 0.001. The split pass proposes points at
	// FirstPassP(MaxP).
	MaxP float64
	// MinMagnitude is the smallest |Magnitude| (relative change of the
	// mean, a fraction: 0.05 is 5 %) a reported change point may have.
	// Default 0: callers pass a floor per figure (see NoiseFloor).
	MinMagnitude float64
	// MinPoints is the fewest points each side of a change point must
	// have. Default 3; at least 2.
	MinPoints int
}

// DefaultConfig returns Otava's defaults: Window 50, MaxP 0.001,
// MinMagnitude 0, MinPoints 3.
func DefaultConfig() Config {
	return Config{Window: 50, MaxP: 0.001, MinMagnitude: 0, MinPoints: 3}
}

// withDefaults returns c with its zero fields set to DefaultConfig's.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if c.Window == 0 {
		c.Window = d.Window
	}
	if c.MaxP == 0 {
		c.MaxP = d.MaxP
	}
	if c.MinPoints == 0 {
		c.MinPoints = d.MinPoints
	}
	return c
}

// Validate returns every problem of c (after defaults) at once, joined,
// or nil.
func (c Config) Validate() error {
	c = c.withDefaults()
	var errs []error
	if c.MinPoints < 2 {
		errs = append(errs, fmt.Errorf("changepoint: min points %d: want at least 2", c.MinPoints))
	}
	if c.Window < 2*max(c.MinPoints, 2) {
		errs = append(errs, fmt.Errorf("changepoint: window %d: want at least 2 × min points (%d)", c.Window, 2*max(c.MinPoints, 2)))
	}
	if !(c.MaxP > 0 && c.MaxP <= 1) {
		errs = append(errs, fmt.Errorf("changepoint: max p %g: want 0 < p ≤ 1", c.MaxP))
	}
	if !(c.MinMagnitude >= 0) || math.IsInf(c.MinMagnitude, 0) {
		errs = append(errs, fmt.Errorf("changepoint: min magnitude %g: want a finite value ≥ 0", c.MinMagnitude))
	}
	return errors.Join(errs...)
}

// FirstPassP returns the p-value at which the split pass proposes change
// points for a final maxP, Otava's rule: 10·maxP below 0.05, 2·maxP below
// 0.5, maxP otherwise.
func FirstPassP(maxP float64) float64 {
	switch {
	case maxP < 0.05:
		return 10 * maxP
	case maxP < 0.5:
		return 2 * maxP
	}
	return maxP
}

// Point is a change point: the series' mean differs between Before and
// After, the segments (between neighbouring change points or an end of
// the series) on either side of it.
type Point struct {
	// Index is the first point of the new segment (After.Start).
	Index int `json:"index"`
	// P is the two-sided p-value of the difference between the means of
	// Before and After: Student's t with the larger of the two sides'
	// variances and that side's N − 1 degrees of freedom.
	P float64 `json:"p"`
	// Before and After are the segments on either side.
	Before Segment `json:"before"`
	After  Segment `json:"after"`
	// Magnitude is the relative change of the mean, a fraction:
	// (After.Mean − Before.Mean) / |Before.Mean|; positive when the mean
	// went up. It is ±Inf when Before.Mean is 0 and After.Mean is not.
	Magnitude float64 `json:"magnitude"`
}

// ErrNonFinite is returned by Detect for a series holding NaN or ±Inf.
var ErrNonFinite = errors.New("changepoint: value is not finite")

// Detect returns the change points of the series xs (in the order of its
// index, e.g. one figure of successive runs), sorted by Index, each with
// P < MaxP, |Magnitude| ≥ MinMagnitude and at least MinPoints points on
// either side. A point's segments reach to its neighbours: Before.Start
// is the previous point's Index (or 0), After ends at the next one's (or
// len(xs)). It returns an error for an invalid Config or a value of
// xs that is NaN or infinite. It is deterministic. It takes O(Window²)
// time per window (there are about n/(Window/2) of them for n points) and
// per point found in it, and O(Window²) memory. The method is the
// package's (see the package documentation).
func Detect(xs []float64, c Config) ([]Point, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	c = c.withDefaults()
	for i, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%w: xs[%d] = %g", ErrNonFinite, i, x)
		}
	}
	weak := split(xs, c.Window, c.MinPoints, FirstPassP(c.MaxP))
	points := make([]Point, len(weak))
	for i, idx := range weak {
		points[i] = Point{Index: idx}
	}
	for i := range points {
		points[i] = measure(xs, points, i, c.MinPoints)
	}
	return merge(xs, points, c), nil
}

// split is the split pass: E-divisive binary segmentation (divide) in
// windows of length window starting every window/2 points (or at the last
// point found in the previous window, if later), at significance p. It
// returns the union of the points found, sorted.
func split(xs []float64, window, minPoints int, p float64) []int {
	step := max(window/2, 1)
	var found []int
	for start := 0; len(xs)-start >= 2*minPoints; {
		end := min(start+window, len(xs))
		last := 0
		for _, i := range divide(xs[start:end], minPoints, p) {
			if !slices.Contains(found, start+i) {
				found = append(found, start+i)
			}
			last = max(last, start+i)
		}
		start = max(last, start+step)
	}
	slices.Sort(found)
	return found
}

// divide is E-divisive means on one window v with the permutation test
// replaced by a t test (testP): among the intervals between the points found
// so far, take the split with the largest energy statistic
// (energy.candidate); keep it if the t test between the two parts of its
// interval gives a p-value below p, and stop at the first that does not.
// It returns the points found, sorted, as indexes of v.
func divide(v []float64, minPoints int, p float64) []int {
	e := newEnergy(v)
	var points []int
	for {
		bestTau, bestS, bestE, bestQ := -1, 0, 0, math.Inf(-1)
		bounds := append(append([]int{0}, points...), len(v))
		for k := range len(bounds) - 1 {
			s, end := bounds[k], bounds[k+1]
			if tau, q, ok := e.candidate(s, end, minPoints); ok && q > bestQ {
				bestTau, bestS, bestE, bestQ = tau, s, end, q
			}
		}
		if bestTau < 0 || testP(segment(v, bestS, bestTau), segment(v, bestTau, bestE)) >= p {
			return points
		}
		points = append(points, bestTau)
		slices.Sort(points)
	}
}

// measure returns points[i] with its segments, p-value and magnitude
// computed over the neighbouring points of the list (or the ends of xs).
// A point with fewer than minPoints points on a side gets p 1 (so the
// merge pass removes it first).
func measure(xs []float64, points []Point, i, minPoints int) Point {
	start, end := 0, len(xs)
	if i > 0 {
		start = points[i-1].Index
	}
	if i < len(points)-1 {
		end = points[i+1].Index
	}
	idx := points[i].Index
	pt := Point{Index: idx, Before: segment(xs, start, idx), After: segment(xs, idx, end)}
	pt.Magnitude = magnitude(pt.Before.Mean, pt.After.Mean)
	pt.P = 1
	if pt.Before.N >= minPoints && pt.After.N >= minPoints {
		pt.P = testP(pt.Before, pt.After)
	}
	return pt
}

// magnitude returns (after − before)/|before|: 0 when both are 0, ±Inf
// when only before is.
func magnitude(before, after float64) float64 {
	if before == 0 {
		if after == 0 {
			return 0
		}
		return math.Copysign(math.Inf(1), after)
	}
	return (after - before) / math.Abs(before)
}

// merge is the merge pass: while a point has P ≥ MaxP, remove the one with
// the largest P; then, while one has |Magnitude| < MinMagnitude, remove
// the one with the smallest; after each removal, measure its two
// neighbours again over the merged segment. Ties go to the earliest point.
func merge(xs []float64, points []Point, c Config) []Point {
	for len(points) > 0 {
		w := weakestP(points)
		if points[w].P < c.MaxP {
			w = weakestMagnitude(points)
			if absMagnitude(points[w]) >= c.MinMagnitude {
				break
			}
		}
		points = slices.Delete(points, w, w+1)
		if w > 0 {
			points[w-1] = measure(xs, points, w-1, c.MinPoints)
		}
		if w < len(points) {
			points[w] = measure(xs, points, w, c.MinPoints)
		}
	}
	return points
}

// weakestP returns the position of the point with the largest P.
func weakestP(points []Point) int {
	w := 0
	for i, pt := range points {
		if pt.P > points[w].P {
			w = i
		}
	}
	return w
}

// weakestMagnitude returns the position of the point with the smallest
// |Magnitude|.
func weakestMagnitude(points []Point) int {
	w := 0
	for i, pt := range points {
		if absMagnitude(pt) < absMagnitude(points[w]) {
			w = i
		}
	}
	return w
}

// absMagnitude returns |pt.Magnitude|, or −1 when it is NaN (means that
// overflow), so that such a point is the weakest.
func absMagnitude(pt Point) float64 {
	if math.IsNaN(pt.Magnitude) {
		return -1
	}
	return math.Abs(pt.Magnitude)
}
