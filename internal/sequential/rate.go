package sequential

import (
	"math"

	"github.com/cometlab/cometlab/internal/stats"
)

// lookRate is the look after k pairs of a count metric (Metric's
// exposures set): the rates of the first k pairs, pooled by side, by
// stats.RateRatioRuns (the exact Poisson test, or the pairs' spread when
// they vary more), with θ = ThresholdPct/100 on the rate ratio R:
//
//	changed    ⇔ p < α_n and |R − 1| ≥ θ (a rise from a zero rate counts)
//	equivalent ⇔ R's interval at level 1 − 2β_n lies within (1 − θ, 1 + θ),
//	             or neither side had an event in any pair
//
// MeanDiff is the candidate's rate − the base's; Threshold is θ.
func lookRate(m Metric, k int, levelA, levelB float64, r *Result) {
	counts := [2][]float64{m.Base[:k], m.Cand[:k]}
	exp := [2][]float64{m.BaseExposure[:k], m.CandExposure[:k]}
	theta := m.ThresholdPct / 100
	conf := math.Max(1-2*levelB, 0)
	rt := stats.RateRatioRuns(counts, exp, conf)
	var rate [2]float64
	for s := range 2 {
		var kk, tt float64
		for i := range k {
			kk += counts[s][i]
			tt += exp[s][i]
		}
		rate[s] = kk / tt
	}
	*r = Result{ID: m.ID, Pairs: r.Pairs, MeanDiff: rate[1] - rate[0], Threshold: theta, Level: levelA, P: rt.P}
	material := math.IsInf(rt.Ratio, 1) || math.Abs(rt.Ratio-1) >= theta
	switch {
	case rt.P < levelA && material:
		r.Outcome = direction(m.Better, rate[1]-rate[0])
		r.DecidedAt = k
	case math.IsNaN(rt.Ratio) && rate[0] == 0 && rate[1] == 0:
		r.Outcome = Equivalent
		r.DecidedAt = k
	case theta > 0 && rt.Interval.Lo > 1-theta && rt.Interval.Hi < 1+theta:
		r.Outcome = Equivalent
		r.DecidedAt = k
	}
}
