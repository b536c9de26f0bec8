package report

import (
	"math"
	"slices"

	"gonum.org/v1/plot"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
)

// The mempool plots. A run with mempool.csv draws each node's mempool
// right after each of its commits, one point per node and height; a run
// without it (made before the file) draws the scrapes of metrics.csv, whose
// fixed interval beats against the block interval.

// mempoolGrid is the mempool series of every node on a common grid: xs
// (s since load start) and vals[i][k], node i's transactions at xs[k]
// (NaN where it has none); perHeight says the grid is mempool.csv's
// heights rather than metrics.csv's scrapes. from and to bound its times
// (Unix ns).
type mempoolGrid struct {
	xs        []float64
	vals      [][]float64
	present   []bool // node i has a sample
	perHeight bool
	from, to  int64
}

// mempoolSeries returns the mempool grid of the run: from mempool.csv when
// it has rows, else from metrics.csv's mempool_size scrapes.
func (d *plotData) mempoolSeries() (mempoolGrid, error) {
	var g mempoolGrid
	if len(d.in.Mempool) > 0 {
		_, at, vals := analysis.MempoolByHeight(d.in.Mempool, d.nodes)
		if len(at) > 0 {
			g.perHeight, g.vals = true, make([][]float64, len(vals))
			gap := analysis.GapThreshold(analysis.MedianStep(at))
			for k, t := range at {
				if k > 0 && t-at[k-1] > gap { // no height committed: a halt, drawn as a gap
					g.xs = append(g.xs, d.x(at[k-1]))
					for i := range vals {
						g.vals[i] = append(g.vals[i], math.NaN())
					}
				}
				g.xs = append(g.xs, d.x(t))
				for i := range vals {
					g.vals[i] = append(g.vals[i], vals[i][k])
				}
			}
			g.from, g.to = slices.Min(at), slices.Max(at)
			for i := range vals {
				g.present = append(g.present, slices.ContainsFunc(vals[i], func(v float64) bool { return !math.IsNaN(v) }))
			}
			return g, nil
		}
	}
	if err := d.needMetrics(d.ns(), "mempool_size"); err != nil {
		return g, err
	}
	series, _ := d.nodeSeries("mempool_size")
	g.xs, _, _, g.vals = d.alignedStats(series, d.mstep)
	for _, s := range series {
		g.present = append(g.present, s != nil)
	}
	g.from, g.to = d.mfrom, d.mto
	return g, nil
}

// stats returns, per column, the mean and the largest value over the
// nodes with a value there (NaN where none has).
func (g mempoolGrid) stats() (mean, most []float64) { return columnStats(g.vals, len(g.xs)) }

// stacked returns, per node, the sum of its values and those of the nodes
// before it (the top edge of its band); a node without a value at a column
// leaves its band out there.
func (g mempoolGrid) stacked() [][]float64 {
	cum := make([][]float64, len(g.vals))
	for i := range g.vals {
		cum[i] = make([]float64, len(g.xs))
		for k := range g.xs {
			below := math.NaN()
			if i > 0 {
				below = cum[i-1][k]
			}
			switch v := g.vals[i][k]; {
			case !math.IsNaN(v) && !math.IsNaN(below):
				cum[i][k] = below + v
			case !math.IsNaN(v):
				cum[i][k] = v
			default:
				cum[i][k] = below
			}
		}
	}
	return cum
}

// mempoolStacked draws the seeds' cumulative mempool plot: every node's
// mempool size stacked, so the top edge is the total over nodes.
func (d *plotData) mempoolStacked() ([]byte, error) {
	g, err := d.mempoolSeries()
	if err != nil {
		return nil, err
	}
	title := "Mempool size, stacked over nodes (cumulative)"
	if g.perHeight {
		title = "Mempool after each commit, stacked over nodes (cumulative)"
	}
	if d.many() {
		return d.mempoolSpread(g)
	}
	c := d.timeChart(title, "transactions in mempools")
	cum := g.stacked()
	// Drawn from the top layer down, each filled to 0, so each node shows
	// as the band between its edge and the one below.
	thumbs := make([]plot.Thumbnailer, len(cum))
	for i := len(cum) - 1; i >= 0; i-- {
		if g.present[i] {
			thumbs[i] = c.area(g.xs, cum[i], lighter(nodeColor(i), 0.45), nodeColor(i))
		}
	}
	for i := range cum {
		if thumbs[i] != nil {
			c.nodeEntry(d.nodes[i], thumbs[i])
		}
	}
	d.xspan(c, g.from, g.to)
	return c.render(d.w, d.h)
}

// mempoolAverage draws the seeds' average mempool size, with the largest
// node's size at each time.
func (d *plotData) mempoolAverage() ([]byte, error) {
	g, err := d.mempoolSeries()
	if err != nil {
		return nil, err
	}
	title := "Average mempool size over nodes"
	if g.perHeight {
		title = "Average mempool after each commit over nodes"
	}
	mean, most := g.stats()
	c := d.timeChart(title, "transactions in mempool")
	th := c.line(g.xs, most, nodeColor(0), 1.2, false)
	c.add("max over nodes", th)
	c.average("average over nodes", g.xs, mean)
	d.xspan(c, g.from, g.to)
	return c.render(d.w, d.h)
}

// mempoolSource says, for the caption, what the mempool plots were drawn
// from.
func mempoolSource(rows []results.MempoolSample) string {
	if len(rows) == 0 {
		return "drawn from the scrapes of " + results.MetricsFile + " (this run has no " + results.MempoolFile + ")"
	}
	heights := map[int64]bool{}
	for _, r := range rows {
		heights[r.Height] = true
	}
	return "drawn from " + results.MempoolFile + ": " + groupDigits(float64(len(heights))) + " heights"
}
