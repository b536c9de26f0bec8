package report

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/stats"
)

// Past manyNodes nodes, one line per node is a solid mass of colour: the
// per-node plots draw instead the spread over the nodes at each time (the
// median, the interquartile band p25–p75 and the min–max band) and the
// worstNodes worst nodes by name, and the per-node tables are summarised
// (quantiles over nodes and the worst nodes; the full table goes to the
// appendix and nodes.csv). Up to manyNodes nodes nothing changes.
const (
	manyNodes  = 12
	worstNodes = 3
)

var (
	rangeColor  = color.NRGBA{0xc6, 0xdb, 0xef, 0xff} // min–max band
	iqrColor    = color.NRGBA{0x6b, 0xae, 0xd6, 0xff} // p25–p75 band
	medianColor = color.NRGBA{0x08, 0x30, 0x6b, 0xff}
)

// worstColor returns the colour of the k-th worst node's line: orange,
// green, purple, away from the blue bands.
func worstColor(k int) color.NRGBA { return nodeColor([]int{1, 2, 3, 4, 5}[k%5]) }

// many reports whether the run has more than manyNodes nodes.
func (d *plotData) many() bool { return isMany(len(d.nodes)) }

// isMany reports whether a run of n nodes is past manyNodes.
func isMany(n int) bool { return n > manyNodes }

// quantiles are, per grid column, the min, p25, median, p75 and max over
// the series with a value there (NaN where none has).
type quantiles struct{ lo, q1, med, q3, hi []float64 }

// columnQuantiles returns the quantiles of each of the n columns of vals
// (one row per series), type 7 as stats.Percentile.
func columnQuantiles(vals [][]float64, n int) quantiles {
	var q quantiles
	col := make([]float64, 0, len(vals))
	for k := range n {
		col = col[:0]
		for i := range vals {
			if v := vals[i][k]; !math.IsNaN(v) {
				col = append(col, v)
			}
		}
		slices.Sort(col)
		q.lo = append(q.lo, stats.Percentile(col, 0))
		q.q1 = append(q.q1, stats.Percentile(col, 25))
		q.med = append(q.med, stats.Percentile(col, 50))
		q.q3 = append(q.q3, stats.Percentile(col, 75))
		q.hi = append(q.hi, stats.Percentile(col, 100))
	}
	return q
}

// worstOf returns the indexes of the (at most) k rows of vals with the
// highest mean of their values (the lowest when low), worst first, ties
// in row order. Only rows worse than the median row are chosen, so nodes
// that all do the same have no worst; rows without a value never are.
func worstOf(vals [][]float64, k int, low bool) []int {
	type scored struct {
		i     int
		score float64
	}
	var all []scored
	for i, row := range vals {
		sum, n := 0.0, 0
		for _, v := range row {
			if !math.IsNaN(v) {
				sum, n = sum+v, n+1
			}
		}
		if n > 0 {
			s := sum / float64(n)
			if low {
				s = -s
			}
			all = append(all, scored{i, s})
		}
	}
	slices.SortStableFunc(all, func(a, b scored) int { return cmp.Compare(b.score, a.score) })
	if len(all) == 0 {
		return nil
	}
	median := all[len(all)/2].score
	var out []int
	for _, s := range all[:min(k, len(all))] {
		if s.score > median {
			out = append(out, s.i)
		}
	}
	return out
}

// band adds the area between lo and hi, broken where either is NaN, and
// returns a legend thumbnail.
func (c *chart) band(xs, lo, hi []float64, fill color.NRGBA) plot.Thumbnailer {
	var top, bottom plotter.XYs
	flush := func() {
		if len(top) > 1 {
			slices.Reverse(bottom)
			poly, err := plotter.NewPolygon(append(top, bottom...))
			if err == nil {
				poly.Color, poly.LineStyle.Width = fill, 0
				c.p.Add(poly)
			}
		}
		top, bottom = nil, nil
	}
	for k, x := range xs {
		if math.IsNaN(lo[k]) || math.IsNaN(hi[k]) {
			flush()
			continue
		}
		top, bottom = append(top, plotter.XY{X: x, Y: hi[k]}), append(bottom, plotter.XY{X: x, Y: lo[k]})
	}
	flush()
	c.see(lo...)
	c.see(hi...)
	return shade{col: fill}
}

// spread draws the distribution over nodes of vals (one row per name, on
// the grid xs), each value × scale: the min–max and p25–p75 bands, the
// median, and the worstNodes nodes with the highest mean (lowest when low)
// as lines of their own, named in the legend.
func (c *chart) spread(xs []float64, vals [][]float64, names []string, scale float64, low bool) {
	scaled := make([][]float64, len(vals))
	for i, row := range vals {
		scaled[i] = make([]float64, len(row))
		for k, v := range row {
			scaled[i][k] = v * scale
		}
	}
	q := columnQuantiles(scaled, len(xs))
	n := 0
	for _, row := range scaled {
		if slices.ContainsFunc(row, func(v float64) bool { return !math.IsNaN(v) }) {
			n++
		}
	}
	c.add(fmt.Sprintf("min–max of %d nodes", n), c.band(xs, q.lo, q.hi, rangeColor))
	c.add("p25–p75", c.band(xs, q.q1, q.q3, iqrColor))
	c.add("median", c.line(xs, q.med, medianColor, 1.8, false))
	which := "highest mean"
	if low {
		which = "lowest mean"
	}
	for k, i := range worstOf(scaled, worstNodes, low) {
		th := c.line(xs, scaled[i], worstColor(k), 1.2, false)
		label := names[i]
		if k == 0 {
			label += " (" + which + ")"
		}
		c.add(label, th)
	}
}

// spreadSeries draws series (one per d.nodes, nil where a node has none)
// as spread does, on their common grid at step.
func (d *plotData) spreadSeries(c *chart, series []*analysis.Series, step int64, scale float64, low bool) {
	xs, _, _, vals := d.alignedStats(series, step)
	var rows [][]float64
	var names []string
	for i, s := range series {
		if s != nil {
			rows, names = append(rows, vals[i]), append(names, s.Node)
		}
	}
	c.spread(xs, rows, names, scale, low)
}

// boxes draws, for each nominal x position, a box from p25 to p75 with
// the median across it and a whisker from min to max.
type boxes struct {
	q     quantiles
	width float64 // of a box, in x units
}

// Plot implements plot.Plotter.
func (b boxes) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	whisker := draw.LineStyle{Color: medianColor, Width: vg.Points(1)}
	for k := range b.q.med {
		if math.IsNaN(b.q.med[k]) {
			continue
		}
		x := float64(k)
		x0, x1, xm := trX(x-b.width/2), trX(x+b.width/2), trX(x)
		c.StrokeLine2(whisker, xm, trY(b.q.lo[k]), xm, trY(b.q.hi[k]))
		c.StrokeLine2(whisker, xm-vg.Points(4), trY(b.q.hi[k]), xm+vg.Points(4), trY(b.q.hi[k]))
		c.StrokeLine2(whisker, xm-vg.Points(4), trY(b.q.lo[k]), xm+vg.Points(4), trY(b.q.lo[k]))
		y0, y1 := trY(b.q.q1[k]), trY(b.q.q3[k])
		c.FillPolygon(iqrColor, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
		c.StrokeLine2(draw.LineStyle{Color: medianColor, Width: vg.Points(2)}, x0, trY(b.q.med[k]), x1, trY(b.q.med[k]))
	}
}

// Thumbnail implements plot.Thumbnailer.
func (b boxes) Thumbnail(c *draw.Canvas) { shade{col: iqrColor}.Thumbnail(c) }

// stepBoxes draws the mean duration of each consensus step over the nodes
// as boxes (p25–p75, the median, min–max whiskers) and the worstNodes
// nodes with the longest summed step means as points of their own.
func (d *plotData) stepBoxes(c *chart, means []stepMean, steps []string) {
	vals := make([][]float64, len(d.nodes))
	for i := range vals {
		vals[i] = make([]float64, len(steps))
		for k := range vals[i] {
			vals[i][k] = math.NaN()
		}
	}
	for _, m := range means {
		vals[m.node][slices.Index(steps, m.step)] = m.ms
	}
	q := columnQuantiles(vals, len(steps))
	c.p.Add(boxes{q: q, width: 0.5})
	c.add(fmt.Sprintf("min–max of %d nodes", len(d.nodes)), &plotter.Line{LineStyle: draw.LineStyle{Color: medianColor, Width: vg.Points(1)}})
	c.add("p25–p75", boxes{})
	c.add("median", &plotter.Line{LineStyle: draw.LineStyle{Color: medianColor, Width: vg.Points(2)}})
	c.see(q.lo...)
	c.see(q.hi...)
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.SquareGlyph{}}
	for k, i := range worstOf(vals, worstNodes, false) {
		var pts plotter.XYs
		for j, v := range vals[i] {
			if !math.IsNaN(v) {
				off := 0.3 + 0.08*float64(k) // beside the box
				pts = append(pts, plotter.XY{X: float64(j) + off, Y: v})
			}
		}
		sc := &plotter.Scatter{XYs: pts, GlyphStyle: draw.GlyphStyle{Color: worstColor(k), Radius: vg.Points(3), Shape: shapes[k%len(shapes)]}}
		c.p.Add(sc)
		label := d.nodes[i]
		if k == 0 {
			label += " (longest steps)"
		}
		c.add(label, sc)
	}
}

// mempoolSpread draws, past manyNodes nodes, the spread of the nodes'
// mempools instead of their stack, with the total over nodes in the
// title's place of the stack's top edge: the largest total.
func (d *plotData) mempoolSpread(g mempoolGrid) ([]byte, error) {
	total := 0.0
	for k := range g.xs {
		sum := 0.0
		for i := range g.vals {
			if v := g.vals[i][k]; !math.IsNaN(v) {
				sum += v
			}
		}
		total = max(total, sum)
	}
	title := fmt.Sprintf("Mempool size per node (all mempools together: at most %s)", groupDigits(total))
	if g.perHeight {
		title = fmt.Sprintf("Mempool after each commit per node (all together: at most %s)", groupDigits(total))
	}
	c := d.timeChart(title, "transactions in mempool")
	var rows [][]float64
	var names []string
	for i, row := range g.vals {
		if g.present[i] {
			rows, names = append(rows, row), append(names, d.nodes[i])
		}
	}
	c.spread(g.xs, rows, names, 1, false)
	d.xspan(c, g.from, g.to)
	return c.render(d.w, d.h)
}

// spreadNote is what a per-node time plot shows past manyNodes nodes.
var spreadNote = fmt.Sprintf("Past %d nodes, as here, the lines of the nodes and their average give way to the spread over the nodes at each time: "+
	"the median (dark blue line), the p25–p75 band (blue) and the min–max band (light blue), "+
	"with the %d worst nodes as lines of their own, named in the legend (by their mean over the plot, the criterion given after the first; "+
	"only nodes worse than the median node are named).", manyNodes, worstNodes)

// spreadNotes returns, by plot file, the sentence its caption and
// definition gain past manyNodes nodes.
func spreadNotes() map[string]string {
	notes := map[string]string{
		"step_duration.png": fmt.Sprintf("Past %d nodes, as here, the bars give way to one box per step over the nodes' means: "+
			"p25–p75 (the box), the median (the line across it) and min–max (the whiskers), with the %d nodes of the longest summed means as marks beside the boxes "+
			"(only nodes worse than the median node are named).", manyNodes, worstNodes),
		"mempool_size.png": fmt.Sprintf("Past %d nodes, as here, the stack gives way to the spread of the nodes' mempools at each time "+
			"(median, p25–p75 and min–max bands, and the %d nodes of the highest mean by name; only nodes worse than the median node are named); "+
			"the title gives the largest total over the nodes, the stack's top edge.", manyNodes, worstNodes),
	}
	for _, f := range []string{"block_rate.png", "total_txs_rate.png", "peers.png", "rounds.png", "block_processing.png",
		"memory.png", "cpu.png", "storage.png", "heights.png"} {
		notes[f] = spreadNote
	}
	return notes
}
