package compare

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"

	"github.com/cometlab/cometlab/internal/analysis"
)

// test fills the cell's interval, p-value and test name from the
// strongest evidence there is (see Sides).
func (c *comparer) test(cell *Cell, m analysis.Metric, bv, cv []float64, ci int) {
	conf := c.opts.Confidence
	if in, ok := c.rateData(m.ID, ci); ok {
		rt, ev := in.test(conf)
		cell.P, cell.Rate, cell.Test = ptr(rt.P), &ev, in.testName(rt.Dispersion)
		c.rates[rateKey{m.ID, ci}] = &in
		return
	}
	if len(bv) >= 2 || len(cv) >= 2 {
		if iv, p, ok := tTest(bv, cv, conf); ok {
			cell.CI, cell.P = &iv, ptr(p)
			cell.Test = fmt.Sprintf("t over runs (%d v %d)", len(bv), len(cv))
		}
		return
	}
	ev := evidenceOf(m.ID)
	switch {
	case ev.dist != "" && ev.stat != "min" && ev.stat != "max":
		// The extremes of one run have no noise estimate; a spread
		// (stddev) is judged by its interval only, as the rank test is
		// one of location.
		br, ok := c.bootstrap(ev.dist, ci)
		if !ok {
			return
		}
		var tests []string
		if br.pOK && ev.stat != "stddev" {
			cell.P = ptr(br.p)
			tests = append(tests, br.test)
		}
		if iv, ok := br.ci[ev.stat]; ok && ev.stat.Resamplable() {
			cell.CI = &iv
			tests = append(tests, br.bootTest)
		}
		cell.Test = strings.Join(tests, ", ")
	case ev.count != "":
		nb, nc := metricValues(c.base, ev.count), metricValues(c.cands[ci], ev.count)
		if len(nb) != 1 || len(nc) != 1 {
			return
		}
		if p, ok := twoProportionP(bv[0], nb[0], cv[0], nc[0]); ok {
			cell.P = ptr(p)
			cell.Test = "two-proportion z (of " + ev.count + ")"
		}
	}
}

// bootStats are the statistics every bootstrap computes.
var bootStats = []Stat{StatMean, "stddev", StatMedian, "p90", "p95", StatP99}

type bootKey struct {
	dist string
	cand int
}

type bootResult struct {
	ci       map[Stat]Interval
	p        float64
	pOK      bool
	test     string // the rank test
	bootTest string // the bootstrap
}

// pooled returns the pooled sample of dist over a side's runs and how many
// runs have it.
func pooled(s Side, dist string) (DistSample, int) {
	var ss []DistSample
	for _, r := range s.Runs {
		if d, ok := r.Samples[dist]; ok && d.Len() > 0 {
			ss = append(ss, d)
		}
	}
	return poolSamples(ss), len(ss)
}

// bootstrap compares the pooled samples of dist of the baseline and
// candidate ci, once per pair.
func (c *comparer) bootstrap(dist string, ci int) (bootResult, bool) {
	k := bootKey{dist, ci}
	if r, ok := c.boot[k]; ok {
		return r, r.ci != nil || r.pOK
	}
	b, _ := pooled(c.base, dist)
	v, _ := pooled(c.cands[ci], dist)
	var res bootResult
	if b.Len() == 0 || v.Len() == 0 {
		c.boot[k] = res
		return res, false
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%d", dist, ci)
	r := rand.New(rand.NewPCG(c.opts.Seed, h.Sum64()))
	ivs, ok := bootstrapDiff(b, v, bootStats, c.opts.Resamples, c.opts.Confidence, r)
	res.ci = map[Stat]Interval{}
	for i, st := range bootStats {
		if ok[i] {
			res.ci[st] = ivs[i]
		}
	}
	unit := "values"
	if info, ok := distOf(dist); ok {
		unit = info.Per
	}
	res.bootTest = "bootstrap over " + unit
	bm, vm := clusterMeans(b), clusterMeans(v)
	res.p, res.pOK = mannWhitneyP(bm, vm)
	res.test = fmt.Sprintf("Mann–Whitney U, %d v %d %s", len(bm), len(vm), unit)
	if b.Cluster != nil {
		res.test = fmt.Sprintf("Mann–Whitney U of per-block means, %d v %d %s", len(bm), len(vm), unit)
	}
	c.boot[k] = res
	return res, true
}
