package analysis

import (
	"math"
	"slices"

	"github.com/cometlab/cometlab/internal/results"
)

// Increase returns how much the counter v rose over its samples: the sum
// of its rises, where a fall is a reset (a restarted node counts from 0
// again) and adds the value after it, as Prometheus's increase() does.
func Increase(v []float64) float64 {
	var sum float64
	for i := 1; i < len(v); i++ {
		if d := v[i] - v[i-1]; d >= 0 {
			sum += d
		} else {
			sum += v[i]
		}
	}
	return sum
}

// increases returns inc[i] = Increase(v[0..i]) for every i.
func increases(v []float64) []float64 {
	inc := make([]float64, len(v))
	for i := 1; i < len(v); i++ {
		if d := v[i] - v[i-1]; d >= 0 {
			inc[i] = inc[i-1] + d
		} else {
			inc[i] = inc[i-1] + v[i]
		}
	}
	return inc
}

// SlidingRates returns, at each sample i of the counter (or ever-growing
// gauge) sampled at times t with values v, its per-second rate of
// increase over the trailing window of width ns, as Prometheus's
// rate(x[width]) gives it:
//
//	rate[i] = Increase(v[j..i]) / ((t[i] − t[j]) / 1 s),  j = the first sample with t[j] ≥ t[i] − width
//
// and NaN where the samples in the window span less than half of it (the
// start of the series, or just after a gap), so that a gap stays a gap.
// With width = 20 s and × 60 these are the seeds' blocks (or transactions)
// per minute from cometbft_consensus_height (or _total_txs). It runs in
// O(len(t)).
func SlidingRates(t []int64, v []float64, width int64) []float64 {
	out := make([]float64, len(t))
	inc := increases(v)
	j := 0
	for i := range t {
		for t[j] < t[i]-width {
			j++
		}
		if span := t[i] - t[j]; span > 0 && span >= width/2 {
			out[i] = (inc[i] - inc[j]) / (float64(span) / results.NsPerS)
		} else {
			out[i] = math.NaN()
		}
	}
	return out
}

// Resample returns the values of the series (t, v) on the grid start +
// k·step, k = 0 … n−1: at each grid time the last sample at or before it,
// if that sample is at most maxAge old, else NaN. It runs in O(len(t) + n).
func Resample(t []int64, v []float64, start, step int64, n int, maxAge int64) []float64 {
	out := make([]float64, max(n, 0))
	i := -1
	for k := range out {
		g := start + int64(k)*step
		for i+1 < len(t) && t[i+1] <= g {
			i++
		}
		if i >= 0 && g-t[i] <= maxAge {
			out[k] = v[i]
		} else {
			out[k] = math.NaN()
		}
	}
	return out
}

// Segments splits the ascending times t where two consecutive samples are
// more than maxGap apart, returning the index ranges [a, b) of the pieces:
// what a plot draws as separate lines so that a gap shows as a gap.
func Segments(t []int64, maxGap int64) [][2]int {
	var out [][2]int
	a := 0
	for i := 1; i <= len(t); i++ {
		if i == len(t) || t[i]-t[i-1] > maxGap {
			if i > a {
				out = append(out, [2]int{a, i})
			}
			a = i
		}
	}
	return out
}

// MedianStep returns the median interval between consecutive samples
// over all the given ascending time slices: the sampling (scrape)
// interval. It returns 0 when no slice has two samples.
func MedianStep(ts ...[]int64) int64 {
	var d []int64
	for _, t := range ts {
		for i := 1; i < len(t); i++ {
			d = append(d, t[i]-t[i-1])
		}
	}
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return d[len(d)/2]
}

// GapThreshold is the longest interval between two samples that is not a
// gap, for a sampling interval step: max(5·step, 3 s). A scrape that is
// late under load is not a gap; a node that died or stopped answering is.
func GapThreshold(step int64) int64 {
	return max(5*step, 3*int64(results.NsPerS))
}

// Gap is a period in which a node has no sample in a file of the run
// directory although other nodes do.
type Gap struct {
	Node string
	File string // results.MetricsFile or results.ResourceFile
	From int64  // Unix ns: the node's last sample before the gap, or the first sample of any node
	To   int64  // Unix ns: the node's next sample, or the last sample of any node
	// Missing is true when the node has no sample at all.
	Missing bool
}

// FindGaps returns the gaps of one node whose samples are at the ascending
// times t, within the period [from, to] covered by all nodes: longer than
// maxGap between samples, before its first or after its last.
func FindGaps(t []int64, from, to, maxGap int64) [][2]int64 {
	if len(t) == 0 {
		if to > from {
			return [][2]int64{{from, to}}
		}
		return nil
	}
	var out [][2]int64
	if t[0]-from > maxGap {
		out = append(out, [2]int64{from, t[0]})
	}
	for i := 1; i < len(t); i++ {
		if t[i]-t[i-1] > maxGap {
			out = append(out, [2]int64{t[i-1], t[i]})
		}
	}
	if last := t[len(t)-1]; to-last > maxGap {
		out = append(out, [2]int64{last, to})
	}
	return out
}

// meanIn returns the mean of the values of (t, v) with from ≤ t ≤ to, and
// how many there were.
func meanIn(t []int64, v []float64, from, to int64) (float64, int) {
	var sum float64
	n := 0
	for i, x := range t {
		if x >= from && x <= to {
			sum += v[i]
			n++
		}
	}
	if n == 0 {
		return math.NaN(), 0
	}
	return sum / float64(n), n
}

// minIn returns the smallest value of (t, v) with from ≤ t ≤ to, NaN when
// there is none.
func minIn(t []int64, v []float64, from, to int64) float64 {
	m := math.NaN()
	for i, x := range t {
		if x >= from && x <= to && !math.IsNaN(v[i]) && !(v[i] >= m) {
			m = v[i]
		}
	}
	return m
}
