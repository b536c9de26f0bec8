package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
)

// autopsyWorst is how many of the slowest heights the section lists.
const autopsyWorst = 10

// SlowLine sums up the block autopsy in one line, for the report's opening
// and the terminal: an overload, the slow heights counted per cause (most
// first) and the slowest one's verdict; "" for a run without verdicts.
func SlowLine(s analysis.Summary) string {
	n, ok := s.Metric("slow_heights")
	if !ok {
		return ""
	}
	blocks, _ := s.Metric("blocks")
	line := ""
	if f, _ := s.Metric("mempool_full_heights"); f > 0 {
		line = fmt.Sprintf("overloaded, a mempool full at %s of %s heights; ", groupDigits(f), groupDigits(blocks))
	}
	if n == 0 || len(s.Autopsy) == 0 {
		return line + fmt.Sprintf("none of %s heights slow.", groupDigits(blocks))
	}
	type count struct {
		cause string
		k     float64
	}
	var counts []count
	for _, c := range analysis.Causes() {
		if k, _ := s.Metric("slow_heights_" + c); k > 0 {
			counts = append(counts, count{c, k})
		}
	}
	slices.SortStableFunc(counts, func(a, b count) int { return cmp.Compare(b.k, a.k) })
	parts := make([]string, len(counts))
	for i, c := range counts {
		parts[i] = groupDigits(c.k) + " " + c.cause
	}
	w := slices.MaxFunc(s.Autopsy, func(a, b results.Verdict) int { return cmp.Compare(a.IntervalMs, b.IntervalMs) })
	on := ""
	if w.Node != "" {
		on = " on " + w.Node
	}
	return line + fmt.Sprintf("%s of %s heights slow: %s; the slowest, height %d (%s ms, round %d), %s%s.",
		groupDigits(n), groupDigits(blocks), strings.Join(parts, ", "), w.Height, groupDigits(math.Round(w.IntervalMs)), w.Round, w.Cause, on)
}

// autopsy writes "Why these blocks were slow": the slow heights counted
// per cause, the worst ones with their verdict and evidence, and the plot
// of block intervals coloured by cause. Nothing for a run without blocks.
func (m mdWriter) autopsy(s analysis.Summary) {
	n, ok := s.Metric("slow_heights")
	if !ok {
		return
	}
	m.f("## Why these blocks were slow\n\n")
	m.overload(s)
	if n == 0 {
		m.f("No slow height: every height committed in round 0 within the run's own bounds on its interval and on its " +
			"transactions' latency (docs/autopsy.md). `autopsy.csv` has no row.\n\n")
		m.stages(s, nil)
		m.plot("autopsy.png", "")
		return
	}
	blocks, _ := s.Metric("blocks")
	m.f("**%s of %s heights** were slow (a round > 0, an interval far above the run's median, or its transactions' latency far above theirs; docs/autopsy.md); "+
		"each has a verdict in `autopsy.csv`.\n\n", groupDigits(n), groupDigits(blocks))
	var rows [][]string
	for _, c := range analysis.Causes() {
		if k, _ := s.Metric("slow_heights_" + c); k > 0 {
			rows = append(rows, []string{"`" + c + "`", groupDigits(k), fmt.Sprintf("%.0f %%", 100*k/n)})
		}
	}
	m.table([]string{"cause", "heights", "share"}, "lrr", rows)
	worst := slices.Clone(s.Autopsy)
	slices.SortStableFunc(worst, func(a, b results.Verdict) int {
		return cmp.Compare(b.IntervalMs, a.IntervalMs)
	})
	worst = worst[:min(len(worst), autopsyWorst)]
	rows = nil
	for _, v := range worst {
		rows = append(rows, []string{fmt.Sprint(v.Height), fmt.Sprint(v.Round), fmt.Sprintf("%.0f", v.IntervalMs), v.Proposer,
			"`" + v.Cause + "`", dash(v.Node), v.Evidence})
	}
	m.f("The slowest %d:\n\n", len(worst))
	m.table([]string{"height", "round", "interval, ms", "proposer", "cause", "node", "evidence"}, "rrrllll", rows)
	m.stages(s, worst)
	m.plot("autopsy.png", "")
}

// overload says, before the slow heights, at how many heights a mempool
// was full: an overload throughout the run raises the median interval
// that slow heights are judged against.
func (m mdWriter) overload(s analysis.Summary) {
	f, _ := s.Metric("mempool_full_heights")
	if f == 0 {
		return
	}
	blocks, _ := s.Metric("blocks")
	m.f("**Overloaded: a mempool was full at %s of %s heights** (≥ 95 %% of its capacity within the height or right after its commit): the offered load "+
		"exceeded what the chain committed. Those heights' intervals are longer, and so is the run's median that slow heights are "+
		"judged against; `compare` with a run below saturation shows the whole effect.\n\n", groupDigits(f), groupDigits(blocks))
}

func dash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// autopsyPlot draws every height's interval at its commit time, grey, and
// the slow ones as dots coloured by cause.
func (d *plotData) autopsyPlot() ([]byte, error) {
	if err := d.needBlocks(); err != nil {
		return nil, err
	}
	if _, ok := d.s.Metric("slow_heights"); !ok {
		return nil, noData("no verdict in summary.json")
	}
	var xs, ys []float64
	for i := range d.blocks {
		if k := &d.blocks[i]; k.CommitTime > 0 {
			xs, ys = append(xs, d.x(k.CommitTime)), append(ys, float64(k.CommitTime-k.Time)/1e6)
		}
	}
	if len(xs) == 0 {
		return nil, noData("no height with a commit time in " + results.BlocksFile)
	}
	c := d.timeChart("Block intervals, slow heights by cause", "ms")
	c.add("interval", c.line(xs, ys, lighter(nodeColor(0), 0.5), 1, false))
	for i, cause := range analysis.Causes() {
		var pts plotter.XYs
		for _, v := range d.s.Autopsy {
			if v.Cause == cause {
				pts = append(pts, plotter.XY{X: d.x(v.Time) + v.IntervalMs/1e3, Y: v.IntervalMs})
			}
		}
		if len(pts) == 0 {
			continue
		}
		sc := &plotter.Scatter{XYs: pts, GlyphStyle: draw.GlyphStyle{Color: nodeColor(i + 1), Radius: vg.Points(3), Shape: draw.CircleGlyph{}}}
		c.p.Add(sc)
		c.add(strings.ReplaceAll(cause, "_", " "), sc)
	}
	return c.render(d.w, d.h)
}
