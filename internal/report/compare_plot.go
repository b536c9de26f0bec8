package report

import (
	"bytes"
	"fmt"
	"image/color"
	"image/png"
	"math"
	"path/filepath"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/cometlab/cometlab/internal/compare"
	"github.com/cometlab/cometlab/internal/results"
)

// comparePlot is one overlay plot of a comparison.
type comparePlot struct {
	title   string
	path    string // relative to the comparison directory, slash separated
	caption string
}

// sideColor returns the colour of side i: dark grey for the baseline, then
// the matplotlib "tab10" colours.
func sideColor(i int) color.NRGBA {
	if i == 0 {
		return color.NRGBA{R: 0x33, G: 0x33, B: 0x33, A: 255}
	}
	tab := []color.NRGBA{
		{R: 0x1f, G: 0x77, B: 0xb4, A: 255}, {R: 0xff, G: 0x7f, B: 0x0e, A: 255}, {R: 0x2c, G: 0xa0, B: 0x2c, A: 255},
		{R: 0xd6, G: 0x27, B: 0x28, A: 255}, {R: 0x94, G: 0x67, B: 0xbd, A: 255}, {R: 0x8c, G: 0x56, B: 0x4b, A: 255},
	}
	return tab[(i-1)%len(tab)]
}

// cdfPoints returns at most maxPts points of the empirical CDF of values:
// (x, fraction of values ≤ x).
func cdfPoints(values []float64, maxPts int) plotter.XYs {
	s := slices.Clone(values)
	slices.Sort(s)
	n := len(s)
	if n == 0 {
		return nil
	}
	step := max(1, n/maxPts)
	var pts plotter.XYs
	for i := 0; i < n; i += step {
		pts = append(pts, plotter.XY{X: s[i], Y: float64(i+1) / float64(n)})
	}
	if pts[len(pts)-1].Y != 1 {
		pts = append(pts, plotter.XY{X: s[n-1], Y: 1})
	}
	return pts
}

func newComparePlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.Padding = vg.Points(8)
	p.Title.TextStyle.Font.Size = vg.Points(14)
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.X.Tick.Marker = plot.TickerFunc(niceTicks)
	p.Y.Tick.Marker = plot.TickerFunc(niceTicks)
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.ThumbnailWidth = vg.Points(24)
	return p
}

func encodePlot(p *plot.Plot, width, height int) ([]byte, error) {
	width, height = plotSize(width, height)
	c := vgimg.NewWith(vgimg.UseWH(vg.Length(width)*vg.Inch/plotDPI, vg.Length(height)*vg.Inch/plotDPI), vgimg.UseDPI(plotDPI))
	p.Draw(draw.New(c))
	var b bytes.Buffer
	if err := png.Encode(&b, c.Image()); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// addLine adds a line of the given colour through pts, or, when gaps is
// set (a time series), one through each run of pts between gaps
// (splitAtGaps); label "" keeps it out of the legend; dashed draws it
// dashed (a repeat run).
func addLine(p *plot.Plot, pts plotter.XYs, col color.NRGBA, label string, dashed, gaps bool) error {
	segs := []plotter.XYs{pts}
	if gaps {
		segs = splitAtGaps(pts)
	}
	for i, seg := range segs {
		l, err := plotter.NewLine(seg)
		if err != nil {
			return err
		}
		l.Color = col
		l.Width = vg.Points(1.6)
		if dashed {
			l.Dashes = repeatDashes
		}
		p.Add(l)
		if label != "" && i == 0 {
			p.Legend.Add(label, l)
		}
	}
	return nil
}

// repeatDashes are the dashes of a side's repeat runs.
var repeatDashes = []vg.Length{vg.Points(5), vg.Points(3)}

// repeatsLegend adds the legend entry that says what the dashed lines are.
func repeatsLegend(p *plot.Plot) {
	p.Legend.Add("dashed: a side's runs 2, 3, …", &plotter.Line{LineStyle: draw.LineStyle{
		Color: color.NRGBA{R: 0x88, G: 0x88, B: 0x88, A: 255}, Width: vg.Points(1.6), Dashes: repeatDashes}})
}

// writeComparePlots draws the overlay plots the sides have data for into
// dir/plots and returns them in report order: the block-latency and
// adoption CDFs (each side's runs pooled), then the time series (one line
// per run, a side's repeats dashed).
func writeComparePlots(dir string, sides []compare.Side, opts CompareOptions) ([]comparePlot, error) {
	var out []comparePlot
	save := func(p *plot.Plot, name, title, caption string) error {
		b, err := encodePlot(p, opts.PlotWidth, opts.PlotHeight)
		if err != nil {
			return fmt.Errorf("plot %s: %w", name, err)
		}
		rel := results.PlotsDir + "/compare_" + name + ".png"
		if err := results.WriteFileAtomic(filepath.Join(dir, filepath.FromSlash(rel)), b); err != nil {
			return err
		}
		out = append(out, comparePlot{title: title, path: rel, caption: caption})
		return nil
	}

	for _, cdf := range compareCDFs {
		p := newComparePlot(cdf.title, cdf.xlabel, "fraction")
		p.Legend.Top = false
		p.Legend.Left = false
		p.Legend.XOffs, p.Legend.YOffs = -vg.Points(8), vg.Points(8)
		drawn := 0
		for i, s := range sides {
			var vals []float64
			for _, r := range s.Runs {
				vals = append(vals, r.Samples[cdf.dist].Values...)
			}
			if len(vals) == 0 {
				continue
			}
			if err := addLine(p, cdfPoints(vals, 1500), sideColor(i), fmt.Sprintf("%s (n = %s)", s.Label, groupDigits(float64(len(vals)))), false, false); err != nil {
				return nil, err
			}
			drawn++
		}
		if drawn == 0 {
			continue
		}
		p.Y.Min, p.Y.Max = 0, 1.02
		if err := save(p, cdf.name, cdf.title, cdf.caption); err != nil {
			return nil, err
		}
	}

	marks, err := compareMarks(sides)
	if err != nil {
		return nil, err
	}
	for _, tr := range compareTraces {
		p, ok, err := traceChart(tr, sides, marks)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if err := save(p, tr.name, tr.title, tr.caption); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// compareTrace is one time-series plot of a comparison: a trace of every
// run (compare.Traces) and a caption whose first sentence says what the
// plot shows and what to look for.
type compareTrace struct {
	name, title, ylabel, caption string
}

// compareTraces are the comparison's time-series plots, in report order.
var compareTraces = []compareTrace{
	{compare.TraceBlocksPerMin, "Blocks per minute", "blocks/min",
		"How fast each run's chain committed blocks: a dip is the chain slowing, a fall to 0 a halt, shaded bands the perturbations the runs applied. " +
			"At each block's commit, the blocks committed over the trailing 10 s divided by the time between the first and last of them, per minute (a window on commits, so the line does not beat against the block interval); " +
			"where no block commits for over 5 s, every second the blocks in the trailing 10 s ÷ 10 s, so a halt reaches 0 within 10 s; one line per run, a side's first run solid and its repeats dashed."},
	{compare.TraceTxsPerMin, "Transactions per minute", "txs/min",
		"How many of the load's transactions each run's chain committed: a flat line at the offered rate is a chain keeping up, a fall to 0 a halt, a peak after one the backlog committed. " +
			"The run transactions committed over the trailing 10 s of commits (windows and halts as for blocks), per minute; one line per run, repeats dashed."},
	{compare.TraceMempool, "Mempool size", "transactions (mean over nodes)",
		"How many transactions waited in the nodes' mempools: a climb is a chain committing less than it is sent, a line broken by a halt (no height, no sample). " +
			"The nodes' mempools right after each height (mempool.csv: num_unconfirmed_txs asked as each commit was heard), averaged over the nodes, one point per height, the line broken where no height committed for over 5 median steps (and 3 s); " +
			"runs without mempool.csv: the scraped `mempool_size` (metrics.csv) averaged each second, which beats against the block interval. One line per run, repeats dashed."},
	{compare.TraceRSS, "Resident memory", "MiB (mean over nodes)",
		"How much memory the node processes held: a steady climb over a long run is a leak to look at. " +
			"Resident set size of the node processes (resources.csv), averaged over the nodes each second, broken where no sample was taken; one line per run, repeats dashed."},
	{compare.TraceCPU, "CPU per node", "% of one core (mean over nodes)",
		"How hard the node processes worked: a side higher at the same load spends more CPU per transaction, and a mean near 100 % × cores ÷ nodes (50 % for 4 nodes on 2 cores) is the host's limit, not CometBFT's. " +
			"Each node process's CPU between two samples of resources.csv (% of one core), averaged over the nodes each second; one line per run, repeats dashed."},
	{compare.TraceLoad1, "Host load1", "load average over 1 min",
		"How busy the host was: above its CPU count (grey dashed) processes waited for a core, and the figures measure the host as much as CometBFT. " +
			"The host's 1-minute load average (/proc/loadavg, resources.csv) each second, CometBFT's QA measure of CPU load; one line per run, repeats dashed."},
	{compare.TracePeers, "Peers", "peers (mean over nodes)",
		"Whether the nodes stayed connected: a dip is a node losing peers (a cut, a restart, a rotation's node leaving). " +
			"The scraped cometbft_p2p_peers (metrics.csv) averaged over the nodes each second; one line per run, repeats dashed."},
	{compare.TraceRounds, "Consensus rounds per height", "round",
		"Whether heights needed more than one round: a point above 0 is a height that committed in a later round (a proposer down or late, a halt). " +
			"The round each height of blocks.csv committed in, from its commit to the next (a step), broken where no height committed for long; one line per run, repeats dashed."},
}

// traceChart draws tr's trace of every run of the sides (a side's first
// run solid, its repeats dashed) with the runs' perturbations; false when
// no run has the trace.
func traceChart(tr compareTrace, sides []compare.Side, marks *eventMarks) (*plot.Plot, bool, error) {
	p := newComparePlot(tr.title, "time since load start (s)", tr.ylabel)
	drawn, ymax, repeats := 0, 0.0, false
	for i, s := range sides {
		labelled := false
		for j, r := range s.Runs {
			t, ok := r.Traces[tr.name]
			if !ok || len(t.X) == 0 {
				continue
			}
			var pts plotter.XYs
			for k := range t.X {
				if tr.name == compare.TraceRounds && k > 0 { // a step: each height's round until the next commit
					pts = append(pts, plotter.XY{X: t.X[k], Y: t.Y[k-1]})
				}
				pts = append(pts, plotter.XY{X: t.X[k], Y: t.Y[k]})
				ymax = max(ymax, t.Y[k])
			}
			label := ""
			if !labelled {
				label, labelled = s.Label, true
			}
			rate := tr.name == compare.TraceBlocksPerMin || tr.name == compare.TraceTxsPerMin // its halts are points at 0, not gaps
			if err := addLine(p, pts, sideColor(i), label, j > 0, !rate); err != nil {
				return nil, false, err
			}
			repeats = repeats || j > 0
			drawn++
		}
	}
	if drawn == 0 {
		return nil, false, nil
	}
	if repeats {
		repeatsLegend(p)
	}
	if cpus := hostCPUs(sides); tr.name == compare.TraceLoad1 && cpus > 0 {
		if err := addLine(p, plotter.XYs{{X: p.X.Min, Y: cpus}, {X: p.X.Max, Y: cpus}}, color.NRGBA{R: 0x99, G: 0x99, B: 0x99, A: 255},
			fmt.Sprintf("%g CPUs", cpus), true, false); err != nil {
			return nil, false, err
		}
		ymax = max(ymax, cpus)
	}
	addMarksLegend(p, marks)
	// Headroom above the highest point keeps the legend off the lines.
	p.Y.Min, p.Y.Max = 0, max(ymax*1.25, 1)
	if tr.name == compare.TraceRounds {
		p.Y.Max = math.Max(ymax+1, 2)
		p.Y.Tick.Marker = plot.TickerFunc(intTicks)
	}
	return p, true, nil
}

// hostCPUs returns the CPU count of the runs' hosts, 0 when they differ
// or none is known.
func hostCPUs(sides []compare.Side) float64 {
	n := 0
	for _, s := range sides {
		for _, r := range s.Runs {
			switch c := r.Run.Host.CPUs; {
			case c == 0:
			case n == 0:
				n = c
			case n != c:
				return 0
			}
		}
	}
	return float64(n)
}

// compareCDF is one distribution plot of a comparison, each side's runs
// pooled.
type compareCDF struct {
	dist, name, title, xlabel, caption string
}

// compareCDFs are the comparison's distribution plots, in report order.
var compareCDFs = []compareCDF{
	{compare.DistBlockLatency, "latency_cdf", "Block latency CDF", "block latency (ms)",
		"How long the transactions took to commit, side by side: a curve further right is slower, one reaching 1 later a longer tail (p99). " +
			"The fraction of the committed transactions whose block latency is at most x; each side's runs pooled."},
	{compare.DistAdoption, "adoption_cdf", "Block adoption CDF", "time after the first node committed the height (ms)",
		"How fast a committed height reached the other nodes: a curve further right is slower propagation. " +
			"The fraction of the node commits (every height, every node but the first to commit it) that came at most x after the first node's, by the clock of the host running cometlab."},
}

// comparePlotCaption returns the title and caption of the comparison plot
// in the file plots/compare_NAME.png (its base name), and whether there is
// one: the caption's first sentence says what the plot shows and what to
// look for, the rest how it is drawn.
func comparePlotCaption(file string) (title, caption string, ok bool) {
	for _, c := range compareCDFs {
		if "compare_"+c.name+".png" == file {
			return c.title, c.caption, true
		}
	}
	for _, t := range compareTraces {
		if "compare_"+t.name+".png" == file {
			return t.title, t.caption, true
		}
	}
	return "", "", false
}
