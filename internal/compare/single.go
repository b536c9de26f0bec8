package compare

import "github.com/cometlab/cometlab/internal/analysis"

// singleRun judges cell, a figure of one run a side, against the noise
// between runs (an A/A's, compare --noise) where it is known; without it
// a change the within-run evidence saw is "noise unknown". Extremes of one
// run stay untested.
func (c *comparer) singleRun(cell *Cell, m analysis.Metric, ci int, bv, cv []float64, b, d float64, material bool, beyond, within string) {
	if ev := evidenceOf(m.ID); lossCount(m.ID) || ev.stat == "min" || ev.stat == "max" {
		// Extremes of one run (a single block or transaction) are heavy
		// tailed: an RMS of A/A differences does not bound them either,
		// so they stay untested with single runs, as within the run.
		return
	}
	// Single runs: the within-run evidence cannot see a busier host.
	cell.WithinRun = cell.Verdict
	if nm, ok := c.noise(m.ID); ok {
		if scale, _, _, ok := noiseScale(nm, b); ok && scale == 0 {
			// The A/A pairs never differed in this figure (a count that
			// was 0 in every run, a deterministic figure): no noise to
			// judge against, so the within-run evidence judges it.
			return
		}
		if iv, p, test, ok := noiseTest(nm, b, d, c.opts.Confidence); ok {
			cell.CI, cell.P, cell.Test = &iv, &p, test
			c.judge(cell, m, d, material, beyond, within)
			c.pending = append(c.pending, pending{cand: ci, m: m, key: dataKey(bv, cv), b: b, d: d, material: material,
				beyond: beyond, within: within, noise: true, nm: nm})
			return
		}
	}
	if changed(cell.Verdict) {
		cell.Verdict = NoiseUnknown
		cell.Reason = "noise unknown: " + cell.Reason + " within the run, but one run cannot show how much this figure moves " +
			"between runs on this host; measure it with `cometlab ab --aa` and pass `compare --noise`, or repeat the runs"
	}
}
