package report

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/saturation"
)

// FootprintPlot is the sweep's plot of every cell's data-directory size
// over time.
const FootprintPlot = "footprint.png"

// cellFigure is one column of the figures tables: a summary figure (or
// one derived from the run record) with its format.
type cellFigure struct {
	head string
	of   func(s *analysis.Summary, run *results.Run) float64
	fmt  func(float64) string
}

// metric reads a summary figure, NaN when absent.
func metric(id string, scale float64) func(*analysis.Summary, *results.Run) float64 {
	return func(s *analysis.Summary, _ *results.Run) float64 {
		if v, ok := s.Metrics[id]; ok {
			return v * scale
		}
		return math.NaN()
	}
}

func fixed(prec int) func(float64) string {
	return func(v float64) string { return strconv.FormatFloat(v, 'f', prec, 64) }
}

// The two tables of per-cell figures: what the vote-extension experiment
// of CometBFT's v0.38 QA report tabulates, and what its storage report
// does.
var (
	loadFigures = []cellFigure{
		{"committed", metric("committed_txs", 1), groupDigits},
		{"tx/s", metric("committed_tps", 1), fixed(1)},
		{"latency mean (ms)", metric("block_latency_mean_ms", 1), groupDigits},
		{"latency p99 (ms)", metric("block_latency_p99_ms", 1), groupDigits},
		{"blocks/min", metric("blocks_per_s_mean", 60), fixed(1)},
		{"blocks in rounds > 0", metric("blocks_multi_round", 1), fixed(1)},
		{"mempool max (txs)", metric("mempool_size_max_txs", 1), groupDigits},
	}
	nodeFigures = []cellFigure{
		{"chain height", func(_ *analysis.Summary, r *results.Run) float64 {
			if r.LastHeight == 0 {
				return math.NaN()
			}
			return float64(r.LastHeight)
		}, groupDigits},
		{"block time (s)", metric("block_interval_mean_s", 1), fixed(2)},
		{"block processing (ms)", metric("block_processing_time_mean_ms", 1), fixed(1)},
		{"block store access (ms)", metric("block_store_access_mean_ms", 1), fixed(3)},
		{"state store access (ms)", metric("state_store_access_mean_ms", 1), fixed(3)},
		{"CPU mean (%)", metric("cpu_mean_pct", 1), fixed(1)},
		{"RSS max (MiB)", metric("rss_max_mib", 1), fixed(1)},
		{"disk at end (MiB)", metric("data_dir_end_mib", 1), fixed(1)},
		{"disk growth (MiB/min)", func(s *analysis.Summary, r *results.Run) float64 {
			g, ok := s.Metrics["data_dir_growth_mib"]
			if !ok || r.Load.DurationS <= 0 {
				return math.NaN()
			}
			return g / (r.Load.DurationS / 60)
		}, fixed(1)},
	}
)

// cellRuns is one cell's finished runs: summaries and records in repeat
// order.
type cellRuns struct {
	id        string
	params    map[string]string // "c", "r" and every swept setting
	dirs      []string          // relative to the sweep directory
	summaries []*analysis.Summary
	runs      []*results.Run
}

// sweepCellRuns reads the summary and run record of every finished cell
// repeat, grouped by cell in the order of the sweep record.
func sweepCellRuns(dir string, rec saturation.SweepRecord) []*cellRuns {
	var out []*cellRuns
	byID := map[string]*cellRuns{}
	for _, c := range rec.Cells {
		if c.Status != results.StatusComplete && c.Status != results.StatusPartial {
			continue
		}
		var s analysis.Summary
		if err := results.ReadJSON(filepath.Join(dir, c.Dir, results.SummaryFile), &s); err != nil {
			continue
		}
		run, err := results.ReadRun(filepath.Join(dir, c.Dir))
		if err != nil {
			continue
		}
		cr := byID[c.ID]
		if cr == nil {
			cr = &cellRuns{id: c.ID, params: c.Params}
			byID[c.ID] = cr
			out = append(out, cr)
		}
		cr.dirs = append(cr.dirs, c.Dir)
		cr.summaries = append(cr.summaries, &s)
		cr.runs = append(cr.runs, &run)
	}
	return out
}

// sweepFigures writes the figures of every cell, the mean over its
// finished repeats with a 95 % interval, in two tables.
func (m mdWriter) sweepFigures(cells []*cellRuns) {
	if len(cells) == 0 {
		return
	}
	m.f("## Figures per cell\n\nThe mean over each cell's finished repeats; with two repeats or more, its 95 %% confidence interval " +
		"(Student's t, n − 1 degrees of freedom) in brackets. A single run cannot tell a difference between cells from run-to-run noise: " +
		"use `--repeat 3` (or more) before reading one into these tables, or `cometlab compare` on the cells' run directories.\n\n")
	for _, table := range []struct {
		title string
		figs  []cellFigure
	}{{"Load and consensus", loadFigures}, {"Nodes and storage", nodeFigures}} {
		m.f("### %s\n\n", table.title)
		head := []string{"cell", "runs"}
		align := "lr"
		for _, f := range table.figs {
			head = append(head, f.head)
			align += "r"
		}
		var rows [][]string
		for _, c := range cells {
			row := []string{"`" + c.id + "`", strconv.Itoa(len(c.summaries))}
			for _, f := range table.figs {
				var xs []float64
				for i, s := range c.summaries {
					if v := f.of(s, c.runs[i]); !math.IsNaN(v) {
						xs = append(xs, v)
					}
				}
				row = append(row, intervalText(saturation.CellMeanInterval(xs), f.fmt))
			}
			rows = append(rows, row)
		}
		m.table(head, align, rows)
	}
}

// intervalText is "mean [low, high]", the mean alone for one value, "—"
// for none.
func intervalText(v saturation.CellInterval, f func(float64) string) string {
	switch v.N {
	case 0:
		return "—"
	case 1:
		return f(v.Mean)
	}
	return fmt.Sprintf("%s [%s, %s]", f(v.Mean), f(v.Low), f(v.High))
}

// footprint draws every cell's data-directory size over time, the mean
// over its nodes, one line per cell (its first finished repeat) on one
// axis, as CometBFT's storage report does; false when no cell has a
// data-directory sample.
func footprint(dir string, cells []*cellRuns, opts Options) (bool, error) {
	keys := varyingParams(cells)
	title := "Data directory over time"
	if len(keys) > 0 {
		title += " — " + strings.Join(keys, " · ")
	}
	c := newChart(title, "time since the load start (s)", "data directory, mean over nodes (MiB)")
	var xmax float64
	drawn := 0
	for i, cr := range cells {
		xs, ys, err := footprintSeries(filepath.Join(dir, cr.dirs[0]), cr.runs[0])
		if err != nil {
			return false, err
		}
		if len(xs) == 0 {
			continue
		}
		c.nodeLine(cellLabel(cr, keys), i, xs, ys)
		xmax = max(xmax, xs[len(xs)-1])
		drawn++
	}
	if drawn == 0 {
		return false, nil
	}
	c.p.X.Min, c.p.X.Max = 0, max(xmax, 1)
	b, err := c.render(opts.PlotWidth, opts.PlotHeight)
	if err != nil {
		return false, err
	}
	if err := os.MkdirAll(filepath.Join(dir, results.PlotsDir), 0o755); err != nil {
		return false, err
	}
	return true, os.WriteFile(filepath.Join(dir, results.PlotsDir, FootprintPlot), b, 0o644)
}

// footprintSeries is a run's data-directory size over time: for each
// sampling round (rows of resources.csv grouped by time, to the second
// since the load start) the mean over the nodes sampled, in MiB; external
// app processes are left out.
func footprintSeries(runDir string, run *results.Run) (xs, ys []float64, err error) {
	rows, err := results.ReadResources(runDir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil, nil
		}
		return nil, nil, err
	}
	start := run.LoadStart.UnixNano()
	type acc struct{ sum, n float64 }
	bySecond := map[int64]*acc{}
	for i := range rows {
		r := &rows[i]
		if r.DataBytes <= 0 || analysis.IsAppProcess(r.Node) || r.Time < start {
			continue
		}
		s := (r.Time - start + 5e8) / 1e9
		a := bySecond[s]
		if a == nil {
			a = &acc{}
			bySecond[s] = a
		}
		a.sum += float64(r.DataBytes) / (1 << 20)
		a.n++
	}
	secs := make([]int64, 0, len(bySecond))
	for s := range bySecond {
		secs = append(secs, s)
	}
	slices.Sort(secs)
	for _, s := range secs {
		xs = append(xs, float64(s))
		ys = append(ys, bySecond[s].sum/bySecond[s].n)
	}
	return xs, ys, nil
}

// varyingParams returns the settings whose value differs between cells
// (c and r included), sorted, each by the last part of its name
// ("storage.experimental_db_key_layout" → "experimental_db_key_layout").
func varyingParams(cells []*cellRuns) []string {
	if len(cells) == 0 {
		return nil
	}
	var keys []string
	for k := range cells[0].params {
		for _, c := range cells[1:] {
			if c.params[k] != cells[0].params[k] {
				keys = append(keys, k)
				break
			}
		}
	}
	slices.Sort(keys)
	return keys
}

// cellLabel names a cell in a legend by the values of the settings that
// vary ("goleveldb · v1 · 30"), or by its id when none does.
func cellLabel(c *cellRuns, keys []string) string {
	if len(keys) == 0 {
		return c.id
	}
	vals := make([]string, len(keys))
	for i, k := range keys {
		vals[i] = c.params[k]
	}
	return strings.Join(vals, " · ")
}
