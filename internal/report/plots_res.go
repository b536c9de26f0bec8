package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
)

// nodeChart draws each node's series short × scale (one line per node,
// broken at gaps) and, when avg is set, the average over nodes; past
// manyNodes nodes, their spread (low: the lowest values are the worst).
// The caller may add to the chart before rendering it.
func (d *plotData) nodeChart(title, ylabel, short string, scale float64, avg, low bool) (*chart, error) {
	if err := d.needMetrics(d.ns(), short); err != nil {
		return nil, err
	}
	series, _ := d.nodeSeries(short)
	c := d.timeChart(title, ylabel)
	if d.many() {
		d.spreadSeries(c, series, d.mstep, scale, low)
		d.xspan(c, d.mfrom, d.mto)
		return c, nil
	}
	for i, s := range series {
		if s != nil {
			xs, ys := d.seriesXY(s.T, s.V, scale, d.mgap)
			c.nodeLine(d.nodes[i], i, xs, ys)
		}
	}
	if avg {
		xs, mean, _, _ := d.alignedStats(series, d.mstep)
		for i := range mean {
			mean[i] *= scale
		}
		c.average("average", xs, mean)
	}
	d.xspan(c, d.mfrom, d.mto)
	return c, nil
}

// area adds ys filled down to the x axis with an edge line, broken where
// ys is NaN, and returns a legend thumbnail.
func (c *chart) area(xs, ys []float64, fill, edge color.NRGBA) plot.Thumbnailer {
	sty := draw.LineStyle{Color: edge, Width: vg.Points(1)}
	var seg plotter.XYs
	flush := func() {
		if len(seg) > 1 {
			c.p.Add(&plotter.Line{XYs: seg, LineStyle: sty, FillColor: fill})
		}
		seg = nil
	}
	for i, x := range xs {
		if math.IsNaN(ys[i]) {
			flush()
			continue
		}
		seg = append(seg, plotter.XY{X: x, Y: ys[i]})
	}
	flush()
	c.see(ys...)
	return shade{col: fill}
}

// rounds draws each node's consensus round (the consensus_rounds gauge)
// and marks the blocks of blocks.csv committed after round 0.
func (d *plotData) rounds() ([]byte, error) {
	c, err := d.nodeChart("Consensus rounds per height", "round", "consensus_rounds", 1, false, false)
	if err != nil {
		if len(d.blocks) == 0 {
			return nil, err
		}
		c = d.timeChart("Consensus rounds per height (commit round from blocks.csv)", "round")
		d.xspan(c, d.blocks[0].Time, d.blocks[len(d.blocks)-1].Time)
	}
	var pts plotter.XYs
	for _, k := range d.blocks {
		if k.Round > 0 && k.CommitTime != 0 {
			pts = append(pts, plotter.XY{X: d.x(k.CommitTime), Y: float64(k.Round)})
		}
	}
	c.see(1)
	if len(pts) > 0 {
		sc := &plotter.Scatter{XYs: pts, GlyphStyle: draw.GlyphStyle{Color: averageColor, Radius: vg.Points(4), Shape: draw.CrossGlyph{}}}
		c.p.Add(sc)
		c.add("block committed after round 0", sc)
		for _, p := range pts {
			c.see(p.Y)
		}
	}
	c.p.Y.Tick.Marker = plot.TickerFunc(intTicks)
	c.yrange(0, c.ymax+0.5)
	return c.render(d.w, d.h)
}

// peers draws each node's peer count with the average.
func (d *plotData) peers() ([]byte, error) {
	c, err := d.nodeChart("Peers", "peers", "p2p_peers", 1, true, true)
	if err != nil {
		return nil, err
	}
	c.p.Y.Tick.Marker = plot.TickerFunc(intTicks)
	c.yrange(0, c.ymax+1)
	return c.render(d.w, d.h)
}

// blockProcessing draws each node's mean block processing time over a
// trailing 20 s window: increase of the histogram's _sum ÷ increase of its
// _count.
func (d *plotData) blockProcessing() ([]byte, error) {
	const short = "state_block_processing_time"
	if err := d.needMetrics(d.ns(), short+"_count"); err != nil {
		return nil, err
	}
	c := d.timeChart("Block processing time (mean over 20 s)", "ms per block")
	var means []*analysis.Series
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for i, n := range d.nodes {
		sum, count := d.in.Metrics.One(n, short+"_sum"), d.in.Metrics.One(n, short+"_count")
		if sum == nil || count == nil || len(sum.T) != len(count.T) {
			continue
		}
		rs, rc := analysis.SlidingRates(sum.T, sum.V, rateWindow), analysis.SlidingRates(count.T, count.V, rateWindow)
		m := &analysis.Series{Node: n, T: sum.T, V: make([]float64, len(rs))}
		for k := range rs {
			m.V[k] = math.NaN()
			if rc[k] > 0 {
				m.V[k] = rs[k] / rc[k] // the series is in ms already
			}
		}
		means = append(means, m)
		if !d.many() {
			xs, ys := d.seriesXY(m.T, m.V, 1, d.mgap)
			c.nodeLine(n, i, xs, ys)
		}
		lo, hi = min(lo, sum.T[0]), max(hi, sum.T[len(sum.T)-1])
	}
	if len(means) == 0 {
		return nil, noData(results.MetricsFile + " has no " + seriesName(d.ns(), short) + "_sum series")
	}
	d.xspan(c, lo, hi)
	if d.many() {
		d.spreadSeries(c, means, d.mstep, 1, false)
		return c.render(d.w, d.h)
	}
	xs, mean, _, _ := d.alignedStats(means, d.mstep)
	c.average("average", xs, mean)
	return c.render(d.w, d.h)
}

// resources draws a resource of every node (get picks it, × scale) and,
// when avg is set, the average over nodes.
func (d *plotData) resources(title, ylabel string, scale float64, avg bool, get func(r *analysis.NodeResources) []float64) ([]byte, error) {
	per, fromMetrics := analysis.ResourceSeries(*d.in, d.nodes)
	if len(per) == 0 {
		return nil, noData(results.ResourceFile + " has no rows (and " + results.MetricsFile + " no process_* series)")
	}
	c := d.timeChart(title, ylabel)
	if fromMetrics {
		c.p.Title.Text += " (process_* metrics)"
	}
	var ts [][]int64
	for _, r := range per {
		ts = append(ts, r.T)
	}
	step := analysis.MedianStep(ts...)
	var series []*analysis.Series
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, r := range per {
		v := get(&r)
		if v == nil {
			continue
		}
		if !d.many() {
			xs, ys := d.seriesXY(r.T, v, scale, analysis.GapThreshold(step))
			c.nodeLine(r.Node, slices.Index(d.nodes, r.Node), xs, ys)
		}
		series = append(series, &analysis.Series{Node: r.Node, T: r.T, V: v})
		lo, hi = min(lo, r.T[0]), max(hi, r.T[len(r.T)-1])
	}
	if len(series) == 0 {
		return nil, noData("no node has it in " + results.MetricsFile)
	}
	if d.many() {
		d.spreadSeries(c, series, step, scale, false)
	} else if avg {
		xs, mean, _, _ := d.alignedStats(series, step)
		for i := range mean {
			mean[i] *= scale
		}
		c.average("average", xs, mean)
	}
	d.xspan(c, lo, hi)
	return c.render(d.w, d.h)
}

// load1 draws the host's 1-minute load average against its CPU count.
func (d *plotData) load1() ([]byte, error) {
	t, v := analysis.Load1(d.in.Resources)
	if len(t) == 0 {
		return nil, noData(results.ResourceFile + " has no rows")
	}
	c := d.timeChart("Host CPU load (load1)", "load average over 1 min")
	xs, ys := d.seriesXY(t, v, 1, analysis.GapThreshold(analysis.MedianStep(t)))
	th := c.line(xs, ys, nodeColor(0), 1.5, false)
	c.add("load1 of "+d.run.Host.Hostname, th)
	d.xspan(c, t[0], t[len(t)-1])
	if cpus := d.run.Host.CPUs; cpus > 0 {
		c.hline(fmt.Sprintf("CPUs (%d)", cpus), float64(cpus), c.p.X.Min, c.p.X.Max, nodeColor(6), true)
	}
	return c.render(d.w, d.h)
}

// cpu draws each node's CPU use: between its consecutive commits
// (commitcpu.csv) when the run has them, so that every point holds whole
// blocks' work, else between the samples of resources.csv (or metrics.csv).
func (d *plotData) cpu() ([]byte, error) {
	if len(d.in.CommitCPU) == 0 {
		return d.resources("CPU use per node", "% of one core", 1, true, func(r *analysis.NodeResources) []float64 { return r.CPU })
	}
	series := analysis.CommitCPUSeries(d.in.CommitCPU, d.nodes, 0)
	if len(series) == 0 {
		return nil, noData(results.CommitCPUFile + " has no two rows of one node process")
	}
	c := d.timeChart("CPU use per node, between its commits", "% of one core")
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	var steps [][]int64
	for _, s := range series {
		if !d.many() {
			xs, ys := d.seriesXY(s.T, s.V, 1, math.MaxInt64)
			c.nodeLine(s.Node, slices.Index(d.nodes, s.Node), xs, ys)
		}
		lo, hi = min(lo, s.T[0]), max(hi, s.T[len(s.T)-1])
		steps = append(steps, s.T)
	}
	if d.many() {
		d.spreadSeries(c, series, analysis.MedianStep(steps...), 1, false)
	} else {
		xs, mean, _, _ := d.alignedStats(series, analysis.MedianStep(steps...))
		c.average("average", xs, mean)
	}
	d.xspan(c, lo, hi)
	return c.render(d.w, d.h)
}
