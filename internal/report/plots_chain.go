package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/stats"
)

// The plots of the chain (blocks.csv) and of block adoption; those of
// transaction latency are in plots_latency.go.

// needBlocks returns why the block plots cannot be drawn, or nil.
func (d *plotData) needBlocks() error {
	if len(d.blocks) == 0 {
		if slices.Contains(d.in.Missing, results.BlocksFile) {
			return noData(results.BlocksFile + " not found")
		}
		return noData(results.BlocksFile + " has no block in the run's height range")
	}
	return nil
}

// commitOf is a block's commit time: the header time of the next block,
// or its own when unknown.
func commitOf(k *results.Block) int64 {
	if k.CommitTime != 0 {
		return k.CommitTime
	}
	return k.Time
}

// tps draws the run's committed transactions per 1-second window (blocks
// placed at their commit time), as tm-bench counts them, with its mean
// and the offered load c × r.
func (d *plotData) tps() ([]byte, error) {
	if err := d.needBlocks(); err != nil {
		return nil, err
	}
	times := make([]int64, len(d.blocks))
	txs := make([]float64, len(d.blocks))
	last := d.start
	for i := range d.blocks {
		times[i], txs[i] = commitOf(&d.blocks[i]), float64(d.blocks[i].RunTxs)
		if d.blocks[i].RunTxs > 0 {
			last = max(last, times[i])
		}
	}
	const sec = int64(1e9)
	span := max(int(math.Ceil(d.dur)), int((last-d.start)/sec)+1)
	// 1-second windows, widened on long runs to keep about 600 of them.
	w := max(1, (span+599)/600)
	n := (span + w - 1) / w
	counts := analysis.WindowCounts(times, txs, d.start, int64(w)*sec, n)
	xs := make([]float64, n)
	for k := range xs {
		xs[k] = (float64(k) + 0.5) * float64(w)
		counts[k] /= float64(w)
	}
	title := "Committed transactions per second"
	if w > 1 {
		title = fmt.Sprintf("Committed transactions per second (mean over %d s windows)", w)
	}
	c := d.timeChart(title, "tx/s")
	l := &plotter.Line{XYs: xyOf(xs, counts), StepStyle: plotter.MidStep,
		LineStyle: draw.LineStyle{Color: nodeColor(0), Width: vg.Points(1.2)}, FillColor: lighter(nodeColor(0), 0.75)}
	c.p.Add(l)
	c.add("run transactions committed", l)
	c.see(counts...)
	if mean, ok := d.s.Metrics["tps_mean"]; ok {
		c.average(fmt.Sprintf("mean = %.1f tx/s", mean), []float64{0, float64(n * w)}, []float64{mean, mean})
	}
	if l := d.run.Load; l.Shaped() && len(d.agg.Offered()) > 0 {
		d.offeredLine(c, w, n)
	} else if l.Connections > 0 && l.Rate > 0 {
		offered := float64(l.Connections) * l.Rate
		c.hline(fmt.Sprintf("offered c × r = %s tx/s", fmtSig(offered)), offered, 0, d.dur, nodeColor(6), true)
	}
	c.p.X.Min, c.p.X.Max = 0, float64(n*w)
	return c.render(d.w, d.h)
}

// offeredLine draws a shaped load's offered rate beside the committed one:
// the scheduled sends of sent.csv (by their intended time, counted per
// second from the load start) in the same n windows of w s.
func (d *plotData) offeredLine(c *chart, w, n int) {
	xs, offered := offeredRates(d.agg.Offered(), w, n)
	l := &plotter.Line{XYs: xyOf(xs, offered), StepStyle: plotter.MidStep,
		LineStyle: draw.LineStyle{Color: nodeColor(6), Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(4), vg.Points(2)}}}
	c.p.Add(l)
	c.add("offered (scheduled sends, "+d.run.Load.Shape+")", l)
	c.see(offered...)
}

// offeredRates returns the middles of n windows of w s and the offered
// rate in each, from the scheduled sends per second since the load start.
func offeredRates(perSecond []int64, w, n int) (xs, rates []float64) {
	xs, rates = make([]float64, n), make([]float64, n)
	for sec, c := range perSecond {
		if k := sec / w; k < n {
			rates[k] += float64(c)
		}
	}
	for k := range xs {
		xs[k] = (float64(k) + 0.5) * float64(w)
		rates[k] /= float64(w)
	}
	return xs, rates
}

func xyOf(xs, ys []float64) plotter.XYs {
	out := make(plotter.XYs, len(xs))
	for i := range xs {
		out[i] = plotter.XY{X: xs[i], Y: ys[i]}
	}
	return out
}

// blockSeries draws one value per block (val, at the block's commit time)
// with dots, and its mean dashed.
func (d *plotData) blockSeries(title, ylabel, label string, val func(i int) (float64, bool)) ([]byte, error) {
	if err := d.needBlocks(); err != nil {
		return nil, err
	}
	var xs, ys []float64
	for i := range d.blocks {
		if v, ok := val(i); ok {
			xs, ys = append(xs, d.x(commitOf(&d.blocks[i]))), append(ys, v)
		}
	}
	if len(xs) == 0 {
		return nil, noData("no two consecutive heights in " + results.BlocksFile)
	}
	c := d.timeChart(title, ylabel)
	th := c.line(xs, ys, nodeColor(0), 1, false)
	if len(xs) <= 600 {
		sc := &plotter.Scatter{XYs: xyOf(xs, ys), GlyphStyle: draw.GlyphStyle{Color: nodeColor(0), Radius: vg.Points(1.8), Shape: draw.CircleGlyph{}}}
		c.p.Add(sc)
		c.add(label, th, sc)
	} else {
		c.add(label, th)
	}
	mean := stats.Mean(ys)
	c.p.X.Min, c.p.X.Max = min(0, slices.Min(xs)), max(d.dur, slices.Max(xs))
	c.average(fmt.Sprintf("mean = %s %s", fmtSig(mean), strings.Fields(ylabel)[0]), []float64{c.p.X.Min, c.p.X.Max}, []float64{mean, mean})
	return c.render(d.w, d.h)
}

// fmtSig formats v with 3 significant digits.
func fmtSig(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	case a >= 1:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// cdfXY returns the empirical CDF of the sorted values × scale, as at most
// about 2,000 points (value, fraction ≤ value).
func cdfXY(sorted []float64, scale float64) (xs, ys []float64) {
	n := len(sorted)
	step := max(1, n/2000)
	for i := 0; i < n; i += step {
		xs, ys = append(xs, sorted[i]*scale), append(ys, float64(i+1)/float64(n))
	}
	if (n-1)%step != 0 {
		xs, ys = append(xs, sorted[n-1]*scale), append(ys, 1)
	}
	return xs, ys
}

// had committed the block (Cardano's cdf0.50 … cdf1.00); fractions that
// need the same number of nodes share a curve.
func (d *plotData) adoptionCDF() ([]byte, error) {
	if len(d.in.Adoption) == 0 {
		if slices.Contains(d.in.Missing, results.AdoptionFile) {
			return nil, noData(results.AdoptionFile + " not found")
		}
		return nil, noData(results.AdoptionFile + " has no rows")
	}
	st := d.adoption()
	if len(st.Blocks) == 0 {
		return nil, noData(results.AdoptionFile + " has no row in the run's height range")
	}
	c := newChart(fmt.Sprintf("Block adoption CDF (%d blocks, %d nodes)", len(st.Blocks), st.N()), "time since the first node committed the block (ms)", "fraction of blocks")
	c.inside = true
	type group struct {
		k      int
		labels []string
	}
	var groups []group
	for _, f := range analysis.AdoptionFractions() {
		k := analysis.NodesFor(f, st.N())
		if len(groups) > 0 && groups[len(groups)-1].k == k {
			g := &groups[len(groups)-1]
			g.labels = append(g.labels[:1], fmt.Sprintf("%.2f", f))
			continue
		}
		groups = append(groups, group{k: k, labels: []string{fmt.Sprintf("%.2f", f)}})
	}
	hi := 0.0
	for i, g := range groups {
		ns, short := st.Spreads(float64(g.k) / float64(st.N()))
		if len(ns) == 0 {
			continue
		}
		slices.Sort(ns)
		xs, ys := cdfXY(ns, 1e-6)
		for j := range ys { // the fraction of all blocks: those never reaching it stay out
			ys[j] *= float64(len(ns)) / float64(len(ns)+short)
		}
		label := strings.Join(g.labels, "–") + fmt.Sprintf(" adoption (%d of %d nodes)", g.k, st.N())
		c.add(label, c.line(xs, ys, nodeColor(i), 1.8, false))
		hi = max(hi, xs[len(xs)-1])
	}
	if bft := st.SpreadsBFT(1); len(bft) > 0 {
		slices.Sort(bft)
		xs, ys := cdfXY(bft, 1e-6)
		c.add(fmt.Sprintf("1.00 adoption from the BFT commit time"), c.line(xs, ys, nodeColor(6), 1.2, true))
		hi = max(hi, xs[len(xs)-1])
		c.p.X.Min = min(0, xs[0])
	}
	c.p.X.Max = max(hi*1.03, 1)
	c.yrange(0, 1.02)
	return c.render(d.w, d.h)
}

// adoption returns the run's adoption statistics.
func (d *plotData) adoption() analysis.AdoptionStats {
	return analysis.AnalyzeAdoption(d.in.Adoption, d.in.Blocks, analysis.AdoptionNodes(d.run), d.run.FirstHeight, d.run.LastHeight)
}

// stepMean is the mean duration of one consensus step at one node.
type stepMean struct {
	step  string
	node  int
	ms    float64
	count float64
}

// stepMeans returns the mean duration of each consensus step per node
// (increase of _sum ÷ increase of _count over the scrape), steps in
// CometBFT's order.
func (d *plotData) stepMeans() ([]stepMean, []string) {
	order := []string{"NewHeight", "NewRound", "Propose", "Prevote", "PrevoteWait", "Precommit", "PrecommitWait", "Commit"}
	var out []stepMean
	seen := map[string]bool{}
	for i, n := range d.nodes {
		counts := map[string]*analysis.Series{}
		for _, s := range d.in.Metrics.Find(n, "consensus_step_duration_seconds_count") {
			counts[s.Label("step")] = s
		}
		for _, s := range d.in.Metrics.Find(n, "consensus_step_duration_seconds_sum") {
			step := s.Label("step")
			cs := counts[step]
			if cs == nil {
				continue
			}
			if dc := analysis.Increase(cs.V); dc > 0 {
				out = append(out, stepMean{step: step, node: i, ms: analysis.Increase(s.V) / dc * 1000, count: dc})
				seen[step] = true
			}
		}
	}
	var steps []string
	for _, s := range order {
		if seen[s] {
			steps = append(steps, s)
			delete(seen, s)
		}
	}
	var other []string
	for s := range seen {
		other = append(other, s)
	}
	slices.Sort(other)
	return out, append(steps, other...)
}

// stepDurations draws the mean duration of each consensus step, one bar
// per node.
func (d *plotData) stepDurations() ([]byte, error) {
	if err := d.needMetrics(d.ns(), "consensus_step_duration_seconds_count"); err != nil {
		return nil, err
	}
	means, steps := d.stepMeans()
	if len(steps) == 0 {
		return nil, noData("no consensus step was observed")
	}
	c := newChart("Consensus step duration (mean per step)", "consensus step", "ms")
	c.p.NominalX(steps...)
	c.p.X.Tick.Marker = nominalTicks(steps)
	c.grid.Vertical.Color = nil
	byNode := map[int][]float64{}
	var order []int
	for _, m := range means {
		if byNode[m.node] == nil {
			byNode[m.node] = make([]float64, len(steps))
			order = append(order, m.node)
		}
		byNode[m.node][slices.Index(steps, m.step)] = m.ms
	}
	if d.many() {
		d.stepBoxes(c, means, steps)
		c.p.X.Min, c.p.X.Max = -0.6, float64(len(steps))-0.4
		return c.render(d.w, d.h)
	}
	// Bars of one step side by side: 70 % of the space between steps.
	plotW := vg.Length(max(d.w, DefaultPlotWidth/2)) * vg.Inch / plotDPI * 0.75
	group := plotW / vg.Length(len(steps)) * 0.7
	bw := group / vg.Length(len(order))
	for j, i := range order {
		vals := plotter.Values(byNode[i])
		bc, err := plotter.NewBarChart(vals, bw)
		if err != nil {
			return nil, err
		}
		bc.Color, bc.LineStyle.Width = nodeColor(i), 0
		bc.Offset = -group/2 + bw*vg.Length(j) + bw/2
		c.p.Add(bc)
		c.nodeEntry(d.nodes[i], bc)
		c.see(byNode[i]...)
	}
	c.p.X.Min, c.p.X.Max = -0.6, float64(len(steps))-0.4
	return c.render(d.w, d.h)
}

// nominalTicks labels the integer positions 0 … len(names)−1.
func nominalTicks(names []string) plot.Ticker {
	return plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		ticks := make([]plot.Tick, len(names))
		for i, n := range names {
			ticks[i] = plot.Tick{Value: float64(i), Label: n}
		}
		return ticks
	})
}

// heights draws every node's committed height over time, from
// adoption.csv: catch-up is read from it.
func (d *plotData) heights() ([]byte, error) {
	if len(d.in.Adoption) == 0 {
		if slices.Contains(d.in.Missing, results.AdoptionFile) {
			return nil, noData(results.AdoptionFile + " not found")
		}
		return nil, noData(results.AdoptionFile + " has no rows")
	}
	byNode := map[string][]results.Adoption{}
	var order []string
	from, to := int64(math.MaxInt64), int64(math.MinInt64)
	for _, a := range d.in.Adoption {
		if byNode[a.Node] == nil {
			order = append(order, a.Node)
		}
		byNode[a.Node] = append(byNode[a.Node], a)
		from, to = min(from, a.At), max(to, a.At)
	}
	// The run's nodes in colour order, then any other (ephemeral) node.
	var names []string
	for _, n := range d.nodes {
		if byNode[n] != nil {
			names = append(names, n)
		}
	}
	for _, n := range order {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	c := d.timeChart("Height of every node over time", "height")
	lo := math.Inf(1)
	var held [][]float64 // past manyNodes: each node's height held on a grid
	step := max(int64(time.Second), (to-from)/600)
	n := int((to-from)/step) + 1
	for i, name := range names {
		rows := byNode[name]
		slices.SortStableFunc(rows, func(a, b results.Adoption) int {
			return cmp.Or(cmp.Compare(a.At, b.At), cmp.Compare(a.Height, b.Height))
		})
		xs, ys := make([]float64, len(rows)), make([]float64, len(rows))
		ts := make([]int64, len(rows))
		for j, a := range rows {
			xs[j], ys[j], ts[j] = d.x(a.At), float64(a.Height), a.At
			lo = min(lo, ys[j])
		}
		if !d.many() {
			c.nodeLine(name, i, xs, ys)
			continue
		}
		held = append(held, analysis.Resample(ts, ys, from, step, n, math.MaxInt64))
	}
	if d.many() {
		grid := make([]float64, n)
		for k := range grid {
			grid[k] = d.x(from + int64(k)*step)
		}
		c.spread(grid, held, names, 1, true)
	}
	d.xspan(c, from, to)
	hi := c.ymax
	c.yrange(lo-(hi-lo)*0.02-0.5, hi+(hi-lo)*0.08+0.5)
	return c.render(d.w, d.h)
}
