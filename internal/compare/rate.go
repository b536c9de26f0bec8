package compare

import (
	"fmt"
	"math"
	"strings"

	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/stats"
)

// A count figure (slow heights, blocks after round 0, rejected
// transactions) counts events over an exposure each run also reports
// (its heights, its sent transactions). Over repeats it is judged as a
// rate — the sides' events per unit of exposure, pooled over their runs —
// by the conditional binomial test of two rates (stats.RateRatio), its
// counts scaled by the runs' dispersion; never by a t test of per-run
// means, which calls 0, 0, 0 against 2, 2, 2 certain (zero variance).

// RateEvidence is what a count figure was judged on (results.Rate): each
// side's events and exposure summed over its runs, and the rate ratio.
type RateEvidence = results.Rate

// rateOf returns the exposure of a count figure (its dictionary id) and
// the name of its unit; ok is false for every other figure.
func rateOf(id string) (exposure, per string, ok bool) {
	switch {
	case id == "slow_heights" || strings.HasPrefix(id, "slow_heights_") || id == "blocks_multi_round" ||
		id == "mempool_full_heights" || id == "adoption_incomplete_blocks":
		return "blocks", "height", true
	case id == "rejected_txs" || id == "missing_txs" || id == "late_sends" || id == "unanswered_txs" ||
		id == "mempool_rejected_txs" || id == "mempool_failed_txs" || id == "mempool_evicted_txs":
		return "sent_txs", "sent tx", true
	case id == "duplicate_txs":
		return "committed_txs", "committed tx", true
	case id == "unsent_txs":
		return "expected_txs", "expected tx", true
	}
	return "", "", false
}

// CountExposure returns the exposure of a count figure (the dictionary id
// of what its events are counted over: "blocks" for slow heights) and
// the name of its unit ("height"); ok is false for a figure that is not a
// count judged as a rate. ab's sequential look sets a count's exposures
// from it (sequential.Metric.BaseExposure, CandExposure).
func CountExposure(id string) (exposure, per string, ok bool) { return rateOf(id) }

// rateInput is a count figure's per-run counts and exposures, by side
// (baseline, candidate).
type rateInput struct {
	per, exposure string
	counts, exp   [2][]float64
}

// rateKey names a count figure of a candidate.
type rateKey struct {
	id   string
	cand int
}

// countsOf returns the count figure id's counts and exposures of the
// runs of s that have both.
func countsOf(s Side, id, exposure string) (counts, exp []float64) {
	for _, r := range s.Runs {
		k, ok1 := r.Metrics[id]
		t, ok2 := r.Metrics[exposure]
		if ok1 && ok2 && !math.IsNaN(k) && !math.IsNaN(t) && t > 0 {
			counts, exp = append(counts, k), append(exp, t)
		}
	}
	return counts, exp
}

// rateData returns the rate input of the count figure id between the
// baseline and candidate ci, when the figure is a count, both sides have
// it with its exposure, and the runs give a dispersion (a side with two
// runs or more): single runs keep the within-run evidence of a count
// (Sides), which cannot see how bursty it is between runs.
func (c *comparer) rateData(id string, ci int) (rateInput, bool) {
	exposure, per, ok := rateOf(id)
	if !ok {
		return rateInput{}, false
	}
	in := rateInput{per: per, exposure: exposure}
	in.counts[0], in.exp[0] = countsOf(c.base, id, exposure)
	in.counts[1], in.exp[1] = countsOf(c.cands[ci], id, exposure)
	if len(in.counts[0]) == 0 || len(in.counts[1]) == 0 || len(in.counts[0])+len(in.counts[1]) < 3 {
		return rateInput{}, false
	}
	return in, true
}

// test returns the rate test of in at level conf and its evidence.
func (in rateInput) test(conf float64) (stats.RateTest, RateEvidence) {
	sum := func(vs []float64) float64 {
		var s float64
		for _, v := range vs {
			s += v
		}
		return s
	}
	ev := RateEvidence{Per: in.per, Exposure: in.exposure, BaseCount: sum(in.counts[0]), BaseExposure: sum(in.exp[0]),
		CandCount: sum(in.counts[1]), CandExposure: sum(in.exp[1])}
	rt := stats.RateRatioRuns(in.counts, in.exp, conf)
	finite := func(v float64) *float64 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return &v
	}
	ev.Ratio, ev.Lo, ev.Hi, ev.Dispersion = finite(rt.Ratio), finite(rt.Interval.Lo), finite(rt.Interval.Hi), rt.Dispersion
	return rt, ev
}

// testName names the rate test of in.
func (in rateInput) testName(phi float64) string {
	s := fmt.Sprintf("conditional binomial of the rates per %s (%d v %d runs)", in.per, len(in.counts[0]), len(in.counts[1]))
	if phi > 1 {
		s += fmt.Sprintf(", the runs' dispersion %.3g", phi)
	}
	return s
}

// rateMaterial says whether a rate ratio reaches the threshold pct (%):
// |ratio − 1| ≥ pct/100, a rise from a zero rate always; and the words
// of the reason.
func rateMaterial(ev RateEvidence, pct float64) (material bool, beyond, within string) {
	within = fmt.Sprintf("the rate per %s changed within the %s %% threshold", ev.Per, fmtNum(pct))
	switch {
	case ev.BaseCount == 0 && ev.CandCount == 0:
		return false, "", fmt.Sprintf("no event on either side (0 of %s and 0 of %s %ss)", fmtCount(ev.BaseExposure), fmtCount(ev.CandExposure), ev.Per)
	case ev.Ratio == nil:
		return true, fmt.Sprintf("a rate per %s up from 0 (%s of %s against %s of %s)", ev.Per, fmtCount(ev.BaseCount),
			fmtCount(ev.BaseExposure), fmtCount(ev.CandCount), fmtCount(ev.CandExposure)), within
	}
	d, _ := ev.DeltaPct()
	beyond = fmt.Sprintf("the rate per %s %+.1f %% (%s of %s against %s of %s) is beyond the %s %% threshold", ev.Per, d,
		fmtCount(ev.BaseCount), fmtCount(ev.BaseExposure), fmtCount(ev.CandCount), fmtCount(ev.CandExposure), fmtNum(pct))
	return math.Abs(d) >= pct, beyond, within
}

func fmtCount(v float64) string { return fmt.Sprintf("%.0f", v) }
