package report

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"time"

	"gonum.org/v1/plot"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
)

// rateWindow is the width of the windows of the per-minute rates of
// scraped series, as in the seeds' plots; commitWindow that of the rates
// on commits (adoption.csv), short enough that a 20-s halt reaches 0.
const (
	rateWindow   = 20 * int64(time.Second)
	commitWindow = 10 * int64(time.Second)
)

// plotData is what the plots are drawn from, shared by all of them (they
// only read it, so they may be drawn in parallel).
type plotData struct {
	run   results.Run
	in    *analysis.Input
	agg   *analysis.TxAggregates // in.Aggregates()
	s     analysis.Summary
	nodes []string // colour order
	start int64    // load start, Unix ns: x = 0
	dur   float64  // load duration, s
	w, h  int

	mstep  int64 // metrics sampling interval, ns (0 without metrics)
	mgap   int64 // longest interval between metrics samples that is not a gap
	mfrom  int64 // first and last metrics sample of any node, Unix ns
	mto    int64
	blocks []results.Block // blocks.csv rows in the run's height range, by height
	marks  *eventMarks     // events.csv's marks; nil without events
	end    int64           // load end, Unix ns (0 unknown)
}

func newPlotData(run results.Run, in *analysis.Input, s analysis.Summary, opts Options) *plotData {
	d := &plotData{run: run, in: in, agg: in.Aggregates(), s: s, nodes: analysis.RunNodes(*in), w: opts.PlotWidth, h: opts.PlotHeight}
	d.start = run.LoadStart.UnixNano()
	if run.LoadStart.IsZero() {
		d.start = math.MaxInt64
		if d.agg.FirstSent != 0 {
			d.start = d.agg.FirstSent
		}
		if in.Metrics != nil {
			for _, s := range in.Metrics.All() {
				if len(s.T) > 0 {
					d.start = min(d.start, s.T[0])
				}
			}
		}
		if d.start == math.MaxInt64 {
			d.start = 0
		}
	}
	d.dur = run.Load.DurationS
	if !run.LoadStart.IsZero() && !run.LoadEnd.IsZero() && run.LoadEnd.After(run.LoadStart) {
		d.dur = run.LoadEnd.Sub(run.LoadStart).Seconds()
	}
	if in.Metrics != nil {
		var ts [][]int64
		d.mfrom, d.mto = math.MaxInt64, math.MinInt64
		for _, n := range d.nodes {
			var longest []int64
			for _, s := range in.Metrics.All() {
				if s.Node == n && len(s.T) > len(longest) {
					longest = s.T
				}
			}
			if len(longest) > 0 {
				ts = append(ts, longest)
				d.mfrom, d.mto = min(d.mfrom, longest[0]), max(d.mto, longest[len(longest)-1])
			}
		}
		d.mstep = analysis.MedianStep(ts...)
		d.mgap = analysis.GapThreshold(d.mstep)
	}
	for _, k := range in.Blocks {
		if (run.FirstHeight == 0 || k.Height >= run.FirstHeight) && (run.LastHeight == 0 || k.Height <= run.LastHeight) {
			d.blocks = append(d.blocks, k)
		}
	}
	slices.SortStableFunc(d.blocks, func(a, b results.Block) int { return cmp.Compare(a.Height, b.Height) })
	end := run.Ended.UnixNano()
	if run.Ended.IsZero() {
		end = d.start + int64(d.dur*1e9)
	}
	if !run.LoadEnd.IsZero() {
		d.end = run.LoadEnd.UnixNano()
	}
	d.marks = newEventMarks(in.Events, d.start, d.end, end)
	return d
}

// x converts a Unix ns time to seconds since the load start.
func (d *plotData) x(t int64) float64 { return float64(t-d.start) / 1e9 }

// timeChart returns a chart with time since load start on x and the load
// window shaded.
func (d *plotData) timeChart(title, ylabel string) *chart {
	c := newChart(title, "time since load start (s)", ylabel)
	c.loadWindow(d.dur)
	for _, e := range bandLegend(d.marks) {
		c.add(e.name, e.thumb)
	}
	c.marks = d.marks
	return c
}

// xspan sets the x range to cover [from, to] (Unix ns) and the load.
func (d *plotData) xspan(c *chart, from, to int64) {
	c.p.X.Min, c.p.X.Max = min(0, d.x(from)), max(d.dur, d.x(to))
	if c.p.X.Max <= c.p.X.Min {
		c.p.X.Max = c.p.X.Min + 1
	}
}

// seriesXY returns the points of (t, v) × scale, with a NaN between
// samples more than maxGap apart so the line breaks there.
func (d *plotData) seriesXY(t []int64, v []float64, scale float64, maxGap int64) (xs, ys []float64) {
	for _, seg := range analysis.Segments(t, maxGap) {
		if len(xs) > 0 {
			xs, ys = append(xs, xs[len(xs)-1]), append(ys, math.NaN())
		}
		for i := seg[0]; i < seg[1]; i++ {
			xs = append(xs, d.x(t[i]))
			ys = append(ys, v[i]*scale)
		}
	}
	return xs, ys
}

// alignedStats puts series on a common grid (analysis.Align) and returns
// the x of each grid time and, per grid time, the mean and the max over
// the series with a value there (NaN where none has).
func (d *plotData) alignedStats(series []*analysis.Series, step int64) (xs, mean, most []float64, vals [][]float64) {
	grid, vals := analysis.Align(series, step)
	for _, g := range grid {
		xs = append(xs, d.x(g))
	}
	mean, most = columnStats(vals, len(grid))
	return xs, mean, most, vals
}

// columnStats returns, for each of the n columns of vals (one row per
// series), the mean and the max over the series with a value there (NaN
// where none has).
func columnStats(vals [][]float64, n int) (mean, most []float64) {
	for k := range n {
		sum, c, mx := 0.0, 0, math.NaN()
		for i := range vals {
			if v := vals[i][k]; !math.IsNaN(v) {
				if c == 0 || v > mx {
					mx = v
				}
				sum += v
				c++
			}
		}
		if c == 0 {
			mean, most = append(mean, math.NaN()), append(most, math.NaN())
			continue
		}
		mean, most = append(mean, sum/float64(c)), append(most, mx)
	}
	return mean, most
}

// nodeSeries returns each node's series named short (summed over label
// sets) in node order, nil for nodes without one, and whether any had.
func (d *plotData) nodeSeries(short string) ([]*analysis.Series, bool) {
	out := make([]*analysis.Series, len(d.nodes))
	any := false
	for i, n := range d.nodes {
		if s := d.in.Metrics.One(n, short); s != nil && len(s.T) > 0 {
			out[i], any = s, true
		}
	}
	return out, any
}

// needMetrics returns the reason a plot from metrics.csv cannot be drawn,
// or nil.
func (d *plotData) needMetrics(ns, short string) error {
	if d.in.Metrics == nil {
		return noData(results.MetricsFile + " not found")
	}
	if _, ok := d.nodeSeries(short); !ok {
		return noData(results.MetricsFile + " has no " + seriesName(ns, short) + " series")
	}
	return nil
}

// seriesName returns the exposed name of a series: the namespace (default
// cometbft) + "_" + short, or short for process_* series.
func seriesName(ns, short string) string {
	if len(short) > 8 && short[:8] == "process_" {
		return short
	}
	if ns == "" {
		ns = "cometbft"
	}
	return ns + "_" + short
}

// ns returns the testnet's metrics namespace.
func (d *plotData) ns() string {
	if d.in.Metrics == nil {
		return ""
	}
	return d.in.Metrics.Namespace
}

// intTicks labels integers only (rounds, peers), with at most about 8
// labels.
func intTicks(lo, hi float64) []plot.Tick {
	step := math.Max(1, math.Ceil((hi-lo)/8))
	var ticks []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi; v += step {
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', 0, 64)})
	}
	return ticks
}
