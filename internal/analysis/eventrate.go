package analysis

import (
	"math"

	"github.com/cometlab/cometlab/internal/results"
)

// EventRates returns the per-second rate of a count of events (commits:
// heights, or the transactions they held) whose i-th event came at t[i]
// (ascending) with the count at v[i] (cumulative), over a trailing window
// of width ns: at every event and, where the events stop for more than
// half a window (a halt), every width/10 after the last event until the
// window is empty, and one step before the next:
//
//	at event i:            (V(i) − V(j)) / (t[i] − t[j])    j = the first event in [t[i] − width, t[i]]
//	at τ in a halt, or at an event whose window starts in one:
//	                       (V(i) − V(j−1)) / width          i = the last event at or before τ
//
// V is the increase of v (see Increase). The first is SlidingRates, a
// window that starts and ends on events, so it does not beat against the
// interval between them (NaN at the start of the series while the events
// span less than half a window). The second counts the time of the halt
// as time without events, so the rate falls during a halt, is 0 once the
// halt is a window long, and climbs back as the events after it fill the
// window: a halt shows as a halt, where rates at the events alone have no
// point inside it and a line through them runs straight across.
func EventRates(t []int64, v []float64, width int64) (at []int64, rate []float64) {
	if len(t) == 0 || width <= 0 {
		return nil, nil
	}
	inc := increases(v)
	halt, step, w := width/2, max(width/10, 1), float64(width)/results.NsPerS
	j := 0 // the first event in the window; the windows only move forward
	eval := func(tau int64, i int, event bool) float64 {
		for j <= i && t[j] < tau-width {
			j++
		}
		switch {
		case j > i:
			return 0 // no event in the window
		case j == 0: // the window reaches back before the series
			if span := tau - t[0]; span > 0 && span >= width/2 {
				return (inc[i] - inc[0]) / (float64(span) / results.NsPerS)
			}
			return math.NaN()
		case !event || t[j]-t[j-1] > halt:
			return (inc[i] - inc[j-1]) / w
		}
		return (inc[i] - inc[j]) / (float64(t[i]-t[j]) / results.NsPerS)
	}
	for i := range t {
		at, rate = append(at, t[i]), append(rate, eval(t[i], i, true))
		if i+1 < len(t) && t[i+1]-t[i] > halt {
			// The rate falls as the events leave the window, then stays
			// 0: a point each step to one step past the window, and one a
			// step before the next event (a halt of hours costs 2 points).
			last := int64(0)
			for tau := t[i] + step; tau < t[i+1] && tau <= t[i]+width+step; tau += step {
				at, rate = append(at, tau), append(rate, eval(tau, i, false))
				last = tau
			}
			if tau := t[i+1] - step; tau > last {
				at, rate = append(at, tau), append(rate, eval(tau, i, false))
			}
		}
	}
	return at, rate
}
