package analysis

import (
	"math"

	"github.com/cometlab/cometlab/internal/results"
)

// The knee of a ramp: where the committed rate first fell below the
// offered one, and stayed below (see the dictionary's knee_tps).
const (
	// KneeWindowS is the width of the windows the rates are counted in, s.
	KneeWindowS = 5
	// KneeTolerance is how far below the offered rate the committed rate
	// must fall to count: committed < (1 − KneeTolerance) · offered.
	KneeTolerance = 0.10
	// KneePersist is how many consecutive windows the fall must last (or
	// every window left in the load, when fewer remain, but at least 2).
	KneePersist = 3
	// kneeLagShare is the share of the load, from its start, whose
	// transactions set the lag between a send and its commit.
	kneeLagShare = 0.2
)

// Knee returns the first window k at which the committed rate fell below
// the offered one by more than tol and stayed below for persist windows:
//
//	committed[j] < (1 − tol) · offered[j]   for every j in k … k+p−1
//	p = min(persist, n − k), and p ≥ 2 (p ≥ 1 when n = 1)
//
// where n is the number of windows, so that one noisy window is not a
// knee. It returns false when there is none.
func Knee(offered, committed []float64, tol float64, persist int) (int, bool) {
	n := min(len(offered), len(committed))
	below := func(j int) bool { return committed[j] < (1-tol)*offered[j] }
	for k := range n {
		p := min(persist, n-k)
		if p < min(2, n) {
			return 0, false
		}
		j := k
		for j < k+p && below(j) {
			j++
		}
		if j == k+p {
			return k, true
		}
	}
	return 0, false
}

// knee puts knee_tps for a ramp run: the mean committed rate over the
// windows Knee finds (where the offered rate crossed what the network
// committed), offered and committed counted in KneeWindowS-second windows
// from the load start over the load's whole windows. Offered sends are
// placed at their scheduled second plus the lag, the median block latency
// of the transactions sent in the first kneeLagShare of the load (before a
// ramp saturates), so that a rising offer is not mistaken for a fall of
// the commits that follow it by a block or two.
func knee(in Input, agg *TxAggregates, b *builder, start int64, noBlocks bool) {
	l := in.Run.Load
	if l.Shape != "ramp" || noBlocks || start == 0 {
		return
	}
	n := int(l.DurationS / KneeWindowS)
	if n < 2 {
		b.note("knee_tps not computed: the load is shorter than two %d s windows", KneeWindowS)
		return
	}
	const w = int64(KneeWindowS * results.NsPerS)
	lag := int64(math.Round(agg.EarlyLatency() / results.NsPerS)) // whole seconds
	offered := make([]float64, n)
	for sec, c := range agg.Offered() {
		if k := (int64(sec) + lag) / KneeWindowS; k < int64(n) {
			offered[k] += float64(c)
		}
	}
	ks := in.RunBlocks()
	times, weights := make([]int64, len(ks)), make([]float64, len(ks))
	for i := range ks {
		times[i], weights[i] = ks[i].CommitTime, float64(ks[i].RunTxs)
		if times[i] == 0 {
			times[i] = ks[i].Time
		}
	}
	committed := WindowCounts(times, weights, start, w, n)
	for k := range n {
		offered[k] /= KneeWindowS
		committed[k] /= KneeWindowS
	}
	k, ok := Knee(offered, committed, KneeTolerance, KneePersist)
	if !ok {
		b.note("knee_tps not found: the committed rate kept within %.0f %% of the offered one through the ramp (or never stayed below it for %d windows of %d s)",
			KneeTolerance*100, KneePersist, KneeWindowS)
		return
	}
	p := min(KneePersist, n-k)
	var sum float64
	for j := k; j < k+p; j++ {
		sum += committed[j]
	}
	b.put("knee_tps", sum/float64(p), "")
	b.note("knee: from %d s into the load the committed rate (%.0f tx/s over %d windows of %d s) stayed below the offered one (%.0f tx/s in the first)",
		k*KneeWindowS, sum/float64(p), p, KneeWindowS, offered[k])
}
