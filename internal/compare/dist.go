package compare

import (
	"fmt"

	"github.com/cometlab/cometlab/internal/analysis"
)

// DistRow compares one distribution (see Distributions) between the
// baseline and each candidate.
type DistRow struct {
	Name       string     `json:"name"`
	Title      string     `json:"title"`
	Unit       string     `json:"unit"`
	Better     string     `json:"better"`
	Baseline   *DistStats `json:"baseline"`
	Candidates []DistCell `json:"candidates"`
}

// DistStats describes a side's distribution, its runs pooled.
type DistStats struct {
	Runs   int     `json:"runs"` // runs that have it
	N      int     `json:"n"`    // values, over the runs
	Mean   float64 `json:"mean"`
	Median float64 `json:"median"`
	P99    float64 `json:"p99"`
}

// DistDelta is the change of one statistic: candidate − baseline, and its
// confidence interval when there is one.
type DistDelta struct {
	Delta float64   `json:"delta"`
	CI    *Interval `json:"ci,omitempty"`
}

// DistCell is one candidate's distribution against the baseline's.
type DistCell struct {
	Stats  *DistStats `json:"stats"`
	Mean   *DistDelta `json:"mean,omitempty"`
	Median *DistDelta `json:"median,omitempty"`
	P99    *DistDelta `json:"p99,omitempty"`
	P      *float64   `json:"p,omitempty"`
	Test   string     `json:"test,omitempty"`
}

func distStats(s DistSample, runs int) *DistStats {
	if s.Len() == 0 {
		return nil
	}
	d := analysis.Describe(s.Values)
	return &DistStats{Runs: runs, N: d.N, Mean: d.Mean, Median: d.Percentile(50), P99: d.Percentile(99)}
}

// perRun returns stat of dist for each run of s that has it.
func perRun(s Side, dist string, st Stat) []float64 {
	var out []float64
	for _, r := range s.Runs {
		if d, ok := r.Samples[dist]; ok && d.Len() > 0 {
			out = append(out, st.Of(d.Values))
		}
	}
	return out
}

// distRows compares every distribution some run has. With repeats on a
// side, the intervals and the p-value come from the runs' own means,
// medians and 99th percentiles (Student's t: the between-run spread);
// with single runs, from a cluster bootstrap and a Mann–Whitney U test.
func (c *comparer) distRows() []DistRow {
	var rows []DistRow
	for _, info := range Distributions() {
		b, nb := pooled(c.base, info.Name)
		row := DistRow{Name: info.Name, Title: info.Title, Unit: info.Unit, Better: info.Better.String(), Baseline: distStats(b, nb)}
		present := b.Len() > 0
		for ci := range c.cands {
			v, nc := pooled(c.cands[ci], info.Name)
			present = present || v.Len() > 0
			cell := DistCell{Stats: distStats(v, nc)}
			if cell.Stats != nil && row.Baseline != nil {
				c.distTest(&cell, info.Name, *row.Baseline, nb, nc, ci)
			}
			row.Candidates = append(row.Candidates, cell)
		}
		if present {
			rows = append(rows, row)
		}
	}
	return rows
}

func (c *comparer) distTest(cell *DistCell, dist string, base DistStats, nb, nc, ci int) {
	s := cell.Stats
	cell.Mean = &DistDelta{Delta: s.Mean - base.Mean}
	cell.Median = &DistDelta{Delta: s.Median - base.Median}
	cell.P99 = &DistDelta{Delta: s.P99 - base.P99}
	deltas := map[Stat]*DistDelta{StatMean: cell.Mean, StatMedian: cell.Median, StatP99: cell.P99}
	if nb >= 2 || nc >= 2 {
		for st, dd := range deltas {
			iv, p, ok := tTest(perRun(c.base, dist, st), perRun(c.cands[ci], dist, st), c.opts.Confidence)
			if !ok {
				continue
			}
			dd.CI = &iv
			if st == StatMean {
				cell.P = ptr(p)
			}
		}
		cell.Test = fmt.Sprintf("t over per-run statistics, %d v %d runs", nb, nc)
		return
	}
	br, ok := c.bootstrap(dist, ci)
	if !ok {
		return
	}
	for st, dd := range deltas {
		if iv, ok := br.ci[st]; ok {
			dd.CI = &iv
		}
	}
	if br.pOK {
		cell.P = ptr(br.p)
	}
	cell.Test = br.test + "; " + br.bootTest
}
