package report

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
)

// The plots of what every node did over time: one colour per node, the
// average over nodes as a red dashed line, time as seconds since the load
// start with the load window shaded.

// committedSeries returns, per node, a cumulative series of what it
// committed: from adoption.csv (a step at each commit the watcher heard:
// one height, or the transactions of that height in blocks.csv) or,
// without it, from metrics.csv (short = consensus_height or
// consensus_total_txs, sampled at each scrape). src names where it came
// from.
func (d *plotData) committedSeries(short string) (series []*analysis.Series, src string, err error) {
	txs := map[int64]float64{}
	for _, k := range d.in.Blocks {
		txs[k.Height] = float64(k.Txs)
	}
	if len(d.in.Adoption) == 0 || short == "consensus_total_txs" && len(txs) == 0 {
		if d.in.Metrics != nil {
			if ss, ok := d.nodeSeries(short); ok {
				return ss, results.MetricsFile + ": " + seriesName(d.ns(), short), nil
			}
		}
		return nil, "", noData(fmt.Sprintf("neither %s (%s) nor %s and %s have data", results.MetricsFile, seriesName(d.ns(), short), results.AdoptionFile, results.BlocksFile))
	}
	rows := slices.Clone(d.in.Adoption)
	slices.SortFunc(rows, func(a, b results.Adoption) int { return int(a.At - b.At) })
	byNode := map[string]*analysis.Series{}
	for _, r := range rows {
		s := byNode[r.Node]
		if s == nil {
			s = &analysis.Series{Node: r.Node}
			byNode[r.Node] = s
		}
		prev := 0.0
		if len(s.V) > 0 {
			prev = s.V[len(s.V)-1]
		}
		inc := 1.0
		if short == "consensus_total_txs" {
			inc = txs[r.Height]
		}
		s.T, s.V = append(s.T, r.At), append(s.V, prev+inc)
	}
	for _, n := range d.nodes {
		series = append(series, byNode[n])
	}
	return series, results.AdoptionFile, nil
}

// perMinute draws the seeds' blocks (or transactions) per minute per node:
// the rate of the cumulative series × 60, over a trailing window of
// commitWindow on the commits (analysis.EventRates: a halt falls to 0), or
// of rateWindow on the scrapes.
func (d *plotData) perMinute(title, ylabel, short string) ([]byte, error) {
	series, src, err := d.committedSeries(short)
	if err != nil {
		return nil, err
	}
	c := d.timeChart(title, ylabel)
	var rates []*analysis.Series
	var ts [][]int64
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, s := range series {
		if s != nil && len(s.T) > 0 {
			ts = append(ts, s.T)
		}
	}
	step := analysis.MedianStep(ts...)
	if src == results.AdoptionFile {
		step = int64(time.Second) // commits are events, not samples
	}
	for i, s := range series {
		if s == nil || len(s.T) == 0 {
			continue
		}
		r := &analysis.Series{Node: s.Node, T: s.T, V: analysis.SlidingRates(s.T, s.V, rateWindow)}
		gap := analysis.GapThreshold(step)
		if src == results.AdoptionFile {
			// Commits are events: a halt is a rate of 0, not a gap.
			r.T, r.V = analysis.EventRates(s.T, s.V, commitWindow)
			gap = math.MaxInt64
		}
		for k := range r.V {
			r.V[k] *= 60
		}
		if src == results.AdoptionFile {
			rates = append(rates, held(r, step))
		} else {
			rates = append(rates, r)
		}
		if !d.many() {
			xs, ys := d.seriesXY(r.T, r.V, 1, gap)
			c.nodeLine(d.nodes[i], i, xs, ys)
		}
		lo, hi = min(lo, s.T[0]), max(hi, s.T[len(s.T)-1])
	}
	if len(rates) == 0 {
		return nil, noData("no node has samples")
	}
	if d.many() {
		d.spreadSeries(c, rates, step, 1, true)
	} else {
		xs, mean, _, _ := d.alignedStats(rates, step)
		c.average("average", xs, mean)
	}
	d.xspan(c, lo, hi)
	if src == results.AdoptionFile {
		c.p.Title.Text += fmt.Sprintf(" (%d s rate)", commitWindow/int64(time.Second))
	} else {
		c.p.Title.Text += fmt.Sprintf(" (%d s rate, scraped %s)", rateWindow/int64(time.Second), short)
	}
	return c.render(d.w, d.h)
}

// held returns s with its value repeated every step where its samples are
// further apart (a rate of commits holds between its points, 0 through a
// halt), so that Align, which takes a sample at most two steps old, finds
// it throughout; at most ~100,000 points, whatever its span.
func held(s *analysis.Series, step int64) *analysis.Series {
	if len(s.T) < 2 || step <= 0 {
		return s
	}
	step = max(step, (s.T[len(s.T)-1]-s.T[0])/100_000)
	out := &analysis.Series{Node: s.Node}
	for k := range s.T {
		if k > 0 {
			for t := s.T[k-1] + step; t < s.T[k]; t += step {
				out.T, out.V = append(out.T, t), append(out.V, s.V[k-1])
			}
		}
		out.T, out.V = append(out.T, s.T[k]), append(out.V, s.V[k])
	}
	return out
}
