package report

import (
	"fmt"
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/cometlab/cometlab/internal/analysis"
)

// The plots of transaction latency (txs.csv): its histogram and CDF.

// latencyHist draws the histogram of block latency with its mean and
// percentiles.
func (d *plotData) latencyHist() ([]byte, error) {
	lat := &d.agg.Block
	if lat.N() == 0 {
		return nil, noData("no committed transaction with a commit time")
	}
	dist := lat.Describe()
	lo, hi := dist.Min/1e9, dist.Max/1e9
	nb := 60
	width := (hi - lo) / float64(nb)
	if width <= 0 {
		width, lo = 0.001, lo-0.0005
		nb = 1
	}
	bins := make([]plotter.HistogramBin, nb)
	for i := range bins {
		bins[i].Min, bins[i].Max = lo+float64(i)*width, lo+float64(i+1)*width
	}
	lat.Each(func(v float64, n int64) bool {
		bins[min(nb-1, max(0, int((v/1e9-lo)/width)))].Weight += float64(n)
		return true
	})
	c := newChart(fmt.Sprintf("Block latency distribution (%s transactions)", groupDigits(float64(lat.N()))), "block latency (s)", "transactions")
	h := &plotter.Histogram{Bins: bins, Width: width, FillColor: lighter(nodeColor(0), 0.4), LineStyle: draw.LineStyle{Color: nodeColor(0), Width: vg.Points(0.5)}}
	c.p.Add(h)
	c.add("transactions", h)
	top := 0.0
	for _, b := range bins {
		top = max(top, b.Weight)
	}
	c.see(0, top*1.05)
	d.percentileLines(c, "block_latency", 1e-3, 0, top*1.05)
	c.p.X.Min, c.p.X.Max = lo-width, hi+width
	return c.render(d.w, d.h)
}

// percentileLines adds vertical lines at the mean and the p50, p90 and
// p99 of the figure stem (… _ms, × scale) from y0 to y1.
func (d *plotData) percentileLines(c *chart, stem string, scale, y0, y1 float64) {
	for i, p := range []struct{ id, label string }{{"mean", "mean"}, {"p50", "p50"}, {"p90", "p90"}, {"p99", "p99"}} {
		v, ok := d.s.Metrics[stem+"_"+p.id+"_ms"]
		if !ok {
			continue
		}
		x := v * scale
		col := averageColor
		if i > 0 {
			col = nodeColor([]int{0, 2, 1, 3}[i])
		}
		th := c.line([]float64{x, x}, []float64{y0, y1}, col, 1.5, true)
		c.add(fmt.Sprintf("%s = %s s", p.label, fmtSig(x)), th)
	}
}

// sketchCDF is cdfXY of the values of a sketch (within its error bound
// past its exact cap).
func sketchCDF(sk *analysis.Sketch, scale float64) (xs, ys []float64) {
	n := sk.N()
	step := max(1, n/2000)
	var ranks []int64
	for i := int64(0); i < n; i += step {
		ranks = append(ranks, i)
	}
	if (n-1)%step != 0 {
		ranks = append(ranks, n-1)
	}
	for i, v := range sk.Ranks(ranks) {
		xs, ys = append(xs, v*scale), append(ys, float64(ranks[i]+1)/float64(n))
	}
	return xs, ys
}

// latencyCDF draws the cumulative distributions of block and observed
// latency.
func (d *plotData) latencyCDF() ([]byte, error) {
	if d.agg.Block.N() == 0 {
		return nil, noData("no committed transaction with a commit time")
	}
	c := newChart("Latency CDF", "latency (s)", "fraction of transactions")
	c.inside = true
	for i, l := range []struct {
		name string
		v    *analysis.Sketch
	}{{"block latency", &d.agg.Block}, {"observed latency", &d.agg.Observed}} {
		if l.v.N() == 0 {
			continue
		}
		xs, ys := sketchCDF(l.v, 1e-9)
		label := fmt.Sprintf("%s (p50 %s s, p99 %s s)", l.name, fmtSig(l.v.Percentile(50)/1e9), fmtSig(l.v.Percentile(99)/1e9))
		c.add(label, c.line(xs, ys, nodeColor(i), 1.8, false))
		c.p.X.Min, c.p.X.Max = min(c.p.X.Min, xs[0]), max(c.p.X.Max, xs[len(xs)-1])
	}
	c.p.X.Min = min(0, c.p.X.Min)
	c.hline("", 0.5, c.p.X.Min, c.p.X.Max, nodeColor(6), true)
	c.hline("", 0.99, c.p.X.Min, c.p.X.Max, nodeColor(6), true)
	c.yrange(0, 1.02)
	return c.render(d.w, d.h)
}

// adoptionCDF draws, for each adoption fraction, the CDF over blocks of
// the time from the first node's commit until that fraction of the nodes
// latencyMarks returns the event marks in the latency plot's x, whose
// origin is the first send time when the run has no load start.
func (d *plotData) latencyMarks() *eventMarks {
	if d.marks == nil || !d.run.LoadStart.IsZero() {
		return d.marks
	}
	start := int64(math.MaxInt64)
	for i := range d.in.Txs {
		start = min(start, d.in.Txs[i].Sent)
	}
	return newEventMarks(d.in.Events, start, d.end, d.start+int64(d.dur*1e9))
}
