package report

import (
	"fmt"
	"math"

	"github.com/cometlab/cometlab/internal/analysis"
)

// The report's decline-over-time section and its plots.

// trend writes the decline-over-time section of loads long enough for
// the trend figures (analysis.TrendMinDuration); nothing for shorter ones.
func (m mdWriter) trend(s analysis.Summary, in *analysis.Input) {
	if _, ok := s.Metrics["tps_first10"]; !ok {
		return
	}
	m.f("## Decline over time\n\n")
	m.f("The load is cut into 30 to 120 equal windows (10 s each, wider past 20 minutes) and a least-squares line fitted through them over the whole load, " +
		"not over its last blocks (tm-bench's tx/s over its last 20 blocks made a steady network look as if it declined).\n\n")
	m.f("- %s\n", trendSentence(s, "Throughput", "tps", "tps_slope_per_min", "declined", "rose"))
	m.f("- %s\n\n", trendSentence(s, "Block latency", "block_latency", "block_latency_slope_ms_per_min", "fell", "rose"))
	m.plot("trend_tps.png", "")
	m.plot("trend_latency.png", "")
	grew := analysis.TrendGrowth(*in)
	if len(grew) == 0 {
		return
	}
	m.f("What the nodes grew meanwhile (the whole series: `storage.png`, `memory.png` and `block_processing.png` below):\n\n")
	var rows [][]string
	for _, g := range grew {
		change := "—"
		if g.First > 0 && !math.IsNaN(g.Last) {
			change = fmt.Sprintf("%+.1f %%", 100*(g.Last/g.First-1))
		}
		rows = append(rows, []string{g.What, fmtGrowth(g.First, g.Unit), fmtGrowth(g.Last, g.Unit), change, g.Source})
	}
	m.table([]string{"grew", "first 10 %", "last 10 %", "change", "from"}, "lrrrl", rows)
}

func fmtGrowth(v float64, unit string) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmtSig(v) + " " + unit
}

// trendSentence says in words whether the figure (tps or block_latency)
// fell or rose during the load and by how much: a change is called one
// when the slope's 95 % interval excludes 0 and the last 10 % differ from
// the first by at least analysis.TrendThreshold.
func trendSentence(s analysis.Summary, name, stem, slopeID, down, up string) string {
	unit := "tx/s"
	first, last := stem+"_first10", stem+"_last10"
	if stem == "block_latency" {
		unit, first, last = "ms", stem+"_first10_ms", stem+"_last10_ms"
	}
	f, okf := s.Metrics[first]
	l, okl := s.Metrics[last]
	slope, oks := s.Metrics[slopeID]
	ci := s.Metrics["tps_slope_ci95_per_min"]
	if stem == "block_latency" {
		ci = s.Metrics["block_latency_slope_ci95_ms_per_min"]
	}
	if !okf || !okl {
		return name + ": not enough windows with a committed transaction to say."
	}
	ends := fmt.Sprintf("%s %s in the first 10 %% of the load, %s %s in the last 10 %%", fmtSig(f), unit, fmtSig(l), unit)
	if !oks {
		return fmt.Sprintf("%s: %s (too few windows for a slope).", name, ends)
	}
	fit := fmt.Sprintf("slope %s ± %s %s per minute (95 %%)", fmtSig(slope), fmtSig(ci), unit)
	tr := analysis.Trend{Slope: slope, CI95: ci, First: f, Last: l}
	switch tr.Significant() {
	case -1:
		return fmt.Sprintf("**%s %s by %.1f %%** during the load: %s; %s.", name, down, 100*(1-l/f), ends, fit)
	case 1:
		return fmt.Sprintf("**%s %s by %.1f %%** during the load: %s; %s.", name, up, 100*(l/f-1), ends, fit)
	}
	return fmt.Sprintf("%s held steady (no change of %.0f %% or more with a slope whose 95 %% interval excludes 0): %s; %s.", name, 100*analysis.TrendThreshold, ends, fit)
}

// trendPlot draws the windows' values of one trend, its fitted line and
// the means of the first and last 10 %.
func (d *plotData) trendPlot(title, ylabel string, latency bool) ([]byte, error) {
	tps, lat, ok := analysis.Trends(*d.in, d.agg)
	if !ok {
		return nil, noData(fmt.Sprintf("the load is shorter than %d s", analysis.TrendMinDuration))
	}
	tr := tps
	if latency {
		tr = lat
	}
	if len(tr.X) == 0 {
		return nil, noData("no window with a committed transaction")
	}
	c := d.timeChart(title, ylabel)
	c.add("windows", c.line(tr.X, tr.Y, nodeColor(0), 1.4, false))
	if !math.IsNaN(tr.Slope) {
		x0, x1 := tr.X[0], tr.X[len(tr.X)-1]
		b := tr.Slope / 60
		c.average(fmt.Sprintf("fit: %s ± %s per min", fmtSig(tr.Slope), fmtSig(tr.CI95)), []float64{x0, x1}, []float64{tr.Intercept + b*x0, tr.Intercept + b*x1})
	}
	k := max(1, int(math.Round(float64(len(tr.X))*analysis.TrendEdge)))
	c.add(fmt.Sprintf("first 10 %%: %s", fmtSig(tr.First)), c.line([]float64{tr.X[0], tr.X[k-1]}, []float64{tr.First, tr.First}, nodeColor(2), 2.5, false))
	n := len(tr.X)
	c.add(fmt.Sprintf("last 10 %%: %s", fmtSig(tr.Last)), c.line([]float64{tr.X[n-k], tr.X[n-1]}, []float64{tr.Last, tr.Last}, nodeColor(3), 2.5, false))
	c.see(0)
	c.p.X.Min, c.p.X.Max = 0, max(d.dur, tr.X[n-1])
	return c.render(d.w, d.h)
}
