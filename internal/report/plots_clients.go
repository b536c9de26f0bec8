package report

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
)

// clientsTPS draws each load client's committed transactions per second
// (by commit time) against what it offered, on a log scale so that a
// client of 29 tx/s shows beside one of 14,400: fair service is each small
// client's line on its offered rate while the greedy one takes the rest.
func (d *plotData) clientsTPS() ([]byte, error) {
	cs := d.run.Load.Clients
	if len(cs) == 0 {
		return nil, noData("a load of one client")
	}
	span := int(math.Ceil(d.dur))
	for i := range cs {
		span = max(span, len(d.agg.ClientCommits(i)))
	}
	// 5-second windows (a block every 1–2 s leaves 1-second windows
	// empty), widened past 10 minutes to keep at most 120.
	w := max(5, (span+119)/120)
	n := (span + w - 1) / w
	title := fmt.Sprintf("Committed transactions per second, per client (mean over %d s windows)", w)
	c := d.timeChart(title, "tx/s (log scale)")
	lo, hi := math.Inf(1), 0.0
	for i, cl := range cs {
		ys := make([]float64, n)
		for sec, k := range d.agg.ClientCommits(i) {
			ys[sec/w] += float64(k)
		}
		xs := make([]float64, n)
		for k := range ys {
			xs[k] = (float64(k) + 0.5) * float64(w)
			if ys[k] /= float64(w); ys[k] > 0 {
				lo, hi = min(lo, ys[k]), max(hi, ys[k])
			} else {
				ys[k] = math.NaN() // a log scale has no 0: the line breaks
			}
		}
		c.nodeLine(cl.Name, i, xs, ys)
		offered := float64(cl.Connections) * cl.Rate
		c.line([]float64{0, d.dur}, []float64{offered, offered}, nodeColor(i), 1, true)
		lo, hi = min(lo, offered), max(hi, offered)
	}
	if math.IsInf(lo, 1) {
		return nil, noData("no client had a transaction committed")
	}
	c.add("dashed: each client's offered rate")
	c.p.Y.Scale, c.p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	c.yrange(lo/1.5, hi*1.5)
	c.p.X.Min, c.p.X.Max = 0, math.Max(float64(n*w), d.dur)
	return c.render(d.w, d.h)
}
