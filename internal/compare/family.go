package compare

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cometlab/cometlab/internal/analysis"
)

// A family is every metric a comparison judges for one candidate: the
// chance that it calls any of them worse or better when nothing changed
// is held at α (family-wise), whether the sides are single runs judged
// against the A/A noise or repeats judged by t over their runs.

// pending is a cell whose verdict waits for the family: what judging it
// again needs.
type pending struct {
	cand int
	m    analysis.Metric
	// key identifies the cell's data (both sides' values run by run):
	// metrics with the same key are the same number by construction.
	key            string
	b, d           float64
	material       bool
	beyond, within string
	// A single-run cell judged against the A/A noise (nm), or a cell of
	// repeats judged by t over the runs (bv, cv).
	noise  bool
	nm     NoiseMetric
	bv, cv []float64
	// rate is set for a count figure judged as a rate (rate.go).
	rate *rateInput
}

// dataKey is the key of a cell whose sides' values are bv and cv.
func dataKey(bv, cv []float64) string {
	var b strings.Builder
	for _, v := range bv {
		fmt.Fprintf(&b, "%x,", math.Float64bits(v))
	}
	b.WriteByte('|')
	for _, v := range cv {
		fmt.Fprintf(&b, "%x,", math.Float64bits(v))
	}
	return b.String()
}

// heavyTailed says whether metric id is a run's extreme — a maximum or
// minimum (of one block, transaction, node or sample), or the p99 over
// heights of an adoption time or lag — whose run-to-run distribution is
// heavy-tailed: a t test over a few runs, which assumes roughly normal
// per-run values, calls it changed far more often than α (in the A/As:
// lag max, adoption p99). With repeats it is reported without a verdict.
func heavyTailed(id string) bool {
	if ev := evidenceOf(id); ev.stat == "min" || ev.stat == "max" {
		return true
	}
	for t := range strings.SplitSeq(id, "_") {
		if t == "max" || t == "min" {
			return true
		}
	}
	return strings.HasPrefix(id, "adoption_") && strings.Contains(id, "_p99")
}

// family corrects every candidate's pending cells for multiplicity. First
// the cells whose data are the same as an earlier metric's (the 0.80 to
// 1.00 adoption quantiles of a 4-node network are one node's time) are
// judged once, at that metric; then, with m distinct metrics left, Holm's
// step-down adjusted p-values (p₍ₖ₎·(m − k + 1), made monotone) decide,
// and the intervals are Bonferroni's (level 1 − α/m), so that the chance
// of calling any metric of an unchanged candidate worse or better is at
// most α (Holm 1979), not α per metric: about 70 metrics at α each would
// flag most A/A experiments.
func (c *comparer) family(rows []Row) {
	idx := map[string]int{}
	for i, r := range rows {
		idx[r.ID] = i
	}
	for ci := range c.cands {
		var ps []pending
		first := map[string]string{} // data key → the metric judged for it
		for _, p := range c.pending {
			if p.cand != ci {
				continue
			}
			if id, dup := first[p.key]; dup {
				cell := &rows[idx[p.m.ID]].Candidates[ci]
				cell.Verdict, cell.Reason = NotJudged, "the same values as "+id+" in every run: judged once, there"
				cell.P, cell.CI, cell.Beyond, cell.Tested = nil, nil, false, false
				continue
			}
			first[p.key] = p.m.ID
			ps = append(ps, p)
		}
		n := len(ps)
		raw := func(p pending) float64 { return *rows[idx[p.m.ID]].Candidates[ci].P }
		slices.SortStableFunc(ps, func(a, b pending) int { return cmpFloat(raw(a), raw(b)) })
		adj := 0.0
		conf := 1 - (1-c.opts.Confidence)/float64(n)
		for k, p := range ps {
			adj = math.Max(adj, math.Min(1, float64(n-k)*raw(p)))
			cell := &rows[idx[p.m.ID]].Candidates[ci]
			var iv Interval
			var test string
			switch {
			case p.rate != nil:
				rt, ev := p.rate.test(conf)
				padj := adj
				cell.P, cell.Rate = &padj, &ev
				cell.Test = fmt.Sprintf("%s; Holm over %d metrics", p.rate.testName(rt.Dispersion), n)
				c.judge(cell, p.m, p.d, p.material, p.beyond, p.within)
				continue
			case p.noise:
				iv, _, test, _ = noiseTest(p.nm, p.b, p.d, conf)
			default:
				iv, _, _ = tTest(p.bv, p.cv, conf)
				test = fmt.Sprintf("t over runs (%d v %d)", len(p.bv), len(p.cv))
			}
			padj := adj
			cell.CI, cell.P = &iv, &padj
			cell.Test = fmt.Sprintf("%s; Holm over %d metrics", test, n)
			c.judge(cell, p.m, p.d, p.material, p.beyond, p.within)
		}
	}
}
