package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/saturation"
)

// WriteSweep writes the sweep report of the sweep directory dir from rec
// (its sweep.json): sweep.md, sweep.html and the latency–throughput plot,
// each atomically. The report holds the saturation table in the form of
// CometBFT's QA reports (rows r, columns c, cells = committed
// transactions, saturated cells marked, the saturation diagonal in bold)
// beside the expected load and the ratio, the curve, each cell's key
// figures and, with repeats, each cell's mean and 95 % interval. The same
// record always gives the same files.
func WriteSweep(dir string, rec saturation.SweepRecord, opts Options) error {
	tables := saturation.Tables(rec.GridCells())
	plotted, err := writeCurve(dir, fmt.Sprintf("Latency vs throughput — %s", rec.Testnet.Name), sweepCurve(tables), opts)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	md := mdWriter{w: &b}
	md.sweepHeader(rec, tables)
	md.sweepExperiment(rec)
	md.criterion(rec.Criterion, "A cell is saturated when at least half of its finished repeats fail the criterion.")
	for _, t := range tables {
		md.saturationTable(rec, t)
	}
	md.curve(plotted, "One point per cell (the mean of its repeats): x = committed rate over all connections, y = block latency; "+
		"solid lines and dots are the mean, dashed lines and crosses the p99; one colour per connection count c, points joined in order of r.")
	md.sweepCells(rec)
	if rec.Grid.Repeat > 1 {
		md.sweepRepeats(tables)
	}
	cells := sweepCellRuns(dir, rec)
	md.sweepFigures(cells)
	drawn, err := footprint(dir, cells, opts)
	if err != nil {
		return err
	}
	if drawn {
		md.f("![Data directory over time](%s/%s)\n\nThe data directory of each cell's first finished repeat over time, the mean over its nodes "+
			"(from resources.csv): a line that keeps climbing is a store that keeps growing; pruning and compaction show as a flatter line.\n\n",
			results.PlotsDir, FootprintPlot)
	}
	md.saturationDictionary()
	return writeDoc(dir, results.SweepReportFile, results.SweepHTMLFile, "cometlab sweep "+rec.ID, b.Bytes())
}

// writeCurve draws the curve into dir/plots; false when there is nothing
// to draw yet.
func writeCurve(dir, title string, series []CurveSeries, opts Options) (bool, error) {
	var png bytes.Buffer
	if err := LatencyThroughputPNG(&png, title, series, opts.PlotWidth, opts.PlotHeight); err != nil {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Join(dir, results.PlotsDir), 0o755); err != nil {
		return false, fmt.Errorf("report: %w", err)
	}
	if err := results.WriteFileAtomic(filepath.Join(dir, filepath.FromSlash(results.LatencyThroughputPlot)), png.Bytes()); err != nil {
		return false, fmt.Errorf("report: write plot: %w", err)
	}
	return true, nil
}

// writeDoc writes md and its HTML page into dir.
func writeDoc(dir, mdName, htmlName, title string, md []byte) error {
	if err := results.WriteFileAtomic(filepath.Join(dir, mdName), md); err != nil {
		return fmt.Errorf("report: write %s: %w", mdName, err)
	}
	page, err := HTML(title, md, dir)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := results.WriteFileAtomic(filepath.Join(dir, htmlName), page); err != nil {
		return fmt.Errorf("report: write %s: %w", htmlName, err)
	}
	return nil
}

// sweepCurve is one series per connection count, over every group's cells.
func sweepCurve(tables []*saturation.Table) []CurveSeries {
	var out []CurveSeries
	for _, t := range tables {
		for _, c := range t.Conns {
			s := CurveSeries{Label: "c=" + strconv.Itoa(c)}
			if t.Group != "" {
				s.Label += " (" + t.Group + ")"
			}
			for _, r := range t.Rates {
				cell := t.Cell(c, r)
				if cell == nil || cell.TPS.N == 0 || cell.LatencyMeanMS.N == 0 || cell.LatencyP99MS.N == 0 {
					continue
				}
				s.Points = append(s.Points, CurvePoint{Order: r, TPS: cell.TPS.Mean, MeanMS: cell.LatencyMeanMS.Mean, P99MS: cell.LatencyP99MS.Mean})
			}
			out = append(out, s)
		}
	}
	return out
}

func (m mdWriter) sweepHeader(rec saturation.SweepRecord, tables []*saturation.Table) {
	m.f("# Sweep %s — %s\n\n", rec.ID, rec.Status)
	for _, t := range tables {
		if t.Group != "" {
			m.f("**%s:** ", t.Group)
		}
		m.f("%s\n\n", diagonalSentence(t))
	}
}

// diagonalSentence says where the table's saturation diagonal is.
func diagonalSentence(t *saturation.Table) string {
	var on []string
	for _, r := range t.Rates {
		for _, c := range t.Conns {
			if cell := t.Cell(c, r); cell != nil && cell.OnDiagonal {
				on = append(on, fmt.Sprintf("`c=%d,r=%s`", c, fmtFloat(r)))
			}
		}
	}
	var s string
	switch {
	case t.Diagonal == 0 && t.Next == 0:
		return "No cell has finished yet."
	case t.Diagonal == 0:
		s = fmt.Sprintf("Saturated from the lowest load of the grid, %s tx/s: the saturation point is below it.", groupDigits(t.Next))
	case t.Next == 0:
		s = fmt.Sprintf("No cell is saturated: the saturation point is beyond the grid's highest load, %s tx/s (cells %s).",
			groupDigits(t.Diagonal), strings.Join(on, ", "))
	default:
		s = fmt.Sprintf("The system is saturated beyond the diagonal c·r = %s tx/s (cells %s); the next load in the grid, %s tx/s, saturates.",
			groupDigits(t.Diagonal), strings.Join(on, ", "), groupDigits(t.Next))
	}
	if t.SaturatedTPS > 0 {
		s += fmt.Sprintf(" Saturated cells committed a median %s tx/s.", groupDigits(t.SaturatedTPS))
	}
	return s
}

func (m mdWriter) sweepExperiment(rec saturation.SweepRecord) {
	m.f("## Experiment\n\n")
	g := rec.Grid
	var params []string
	for _, p := range g.Params {
		params = append(params, fmt.Sprintf("`%s` ∈ {%s}", p.Key, strings.Join(p.Values, ", ")))
	}
	mode := "a fresh testnet per cell (independent cells)"
	if rec.Mode == results.ModeReuse {
		mode = fmt.Sprintf("one testnet for consecutive cells with the same testnet settings, mempools drained and %s s of cool-down between cells",
			fmtFloat(rec.CoolDownS))
	}
	finished, failed := 0, 0
	var first, last time.Time
	for _, c := range rec.Cells {
		if results.Finished(c.Status) {
			finished++
		}
		if c.Status == results.StatusFailed {
			failed++
		}
		if !c.Started.IsZero() && (first.IsZero() || c.Started.Before(first)) {
			first = c.Started
		}
		if c.Ended.After(last) {
			last = c.Ended
		}
	}
	rows := [][]string{
		{"testnet", fmt.Sprintf("%s: %d validators, %d nodes", rec.Testnet.Name, rec.Testnet.Validators, rec.Testnet.Nodes)},
		{"CometBFT", rec.Testnet.CometBFTVersion},
		{"app", rec.Testnet.App},
		{"transactions", fmt.Sprintf("%d B, %s pacing", rec.Testnet.TxSize, rec.Testnet.Pacing)},
		{"duration per cell", fmtFloat(g.DurationS) + " s"},
		{"connections (c)", joinInts(g.Connections)},
		{"rates per connection (r)", joinFloats(g.Rates) + " tx/s"},
	}
	if len(params) > 0 {
		rows = append(rows, []string{"other settings", strings.Join(params, "; ")})
	}
	rows = append(rows,
		[]string{"repeats", strconv.Itoa(g.Repeat)},
		[]string{"between cells", mode},
		[]string{"cells", fmt.Sprintf("%d of %d finished, %d failed", finished, len(rec.Cells), failed)},
		[]string{"wall time", wallTime(first, last)},
		[]string{"host", fmt.Sprintf("%s, %d CPUs, %s", rec.Host.Hostname, rec.Host.CPUs, rec.Host.OS+"/"+rec.Host.Arch)},
		[]string{"cometlab", rec.CometlabVersion},
	)
	m.table([]string{"sweep", "value"}, "ll", rows)
	m.f("Each cell is an ordinary run directory (`%s/<cell>-<repeat>/`) with its own report; the resolved manifest of each cell is in `%s/`.\n\n",
		results.CellsDir, results.ManifestsDir)
}

func wallTime(first, last time.Time) string {
	if first.IsZero() || last.IsZero() {
		return "—"
	}
	return last.Sub(first).Round(time.Second).String()
}

func (m mdWriter) criterion(c saturation.Criterion, extra string) {
	m.f("## Saturation criterion\n\nA run keeps up with its load when every check passes:\n\n")
	for _, s := range c.Describe() {
		m.f("- %s\n", s)
	}
	m.f("\n%s\n\n", extra)
}

// satRows returns one row per rate of t, "r=RATE" and then one cell per
// connection count: "" where the grid has no such cell, none where no
// repeat of it finished, else val of the cell.
func satRows(t *saturation.Table, none string, val func(*saturation.Cell) string) [][]string {
	var rows [][]string
	for _, r := range t.Rates {
		row := []string{"r=" + fmtFloat(r)}
		for _, c := range t.Conns {
			switch cell := t.Cell(c, r); {
			case cell == nil:
				row = append(row, "")
			case cell.Runs == 0:
				row = append(row, none)
			default:
				row = append(row, val(cell))
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// saturationTable writes the table in the seeds' form, then the expected
// load and the ratio in the same shape.
func (m mdWriter) saturationTable(rec saturation.SweepRecord, t *saturation.Table) {
	title := "Saturation table"
	if t.Group != "" {
		title += " — " + t.Group
	}
	m.f("## %s\n\n", title)
	m.f("Committed transactions of each experiment (c connections × r tx/s each for %s s; the mean over repeats). "+
		"**Bold**: the saturation diagonal; ✗: saturated (the cell fails the criterion).\n\n", fmtFloat(rec.Grid.DurationS))
	head := []string{"rate"}
	align := "l"
	for _, c := range t.Conns {
		head = append(head, "c="+strconv.Itoa(c))
		align += "r"
	}
	grid := func(val func(*saturation.Cell) string) [][]string { return satRows(t, "—", val) }
	mark := func(cell *saturation.Cell, s string) string {
		switch {
		case cell.OnDiagonal:
			return "**" + s + "**"
		case cell.Saturated:
			return s + " ✗"
		}
		return s
	}
	m.table(head, align, grid(func(c *saturation.Cell) string { return mark(c, groupDigits(c.Committed.Mean)) }))
	m.f("Expected transactions, c × r × duration:\n\n")
	m.table(head, align, grid(func(c *saturation.Cell) string { return groupDigits(c.Expected.Mean) }))
	m.f("Throughput ratio, committed ÷ expected:\n\n")
	m.table(head, align, grid(func(c *saturation.Cell) string {
		if c.Ratio.N == 0 {
			return "n/a"
		}
		return mark(c, strconv.FormatFloat(c.Ratio.Mean, 'f', 4, 64))
	}))
	m.f("%s\n\n", diagonalSentence(t))
}

func (m mdWriter) curve(plotted bool, caption string) {
	m.f("## Latency–throughput curve\n\n")
	if !plotted {
		m.f("No plot yet: no finished run with latencies.\n\n")
		return
	}
	m.f("![Latency vs throughput](%s)\n\n%s\n\n", results.LatencyThroughputPlot, caption)
}

// evidenceColumns are the key figures of one run, for the cell and step
// tables: expected, committed, ratio, tx/s, latency mean, p99, latency
// slope (rise), drain, heights after round 0.
func evidenceColumns(ev *saturation.Evidence) []string {
	if ev == nil {
		return []string{"—", "—", "—", "—", "—", "—", "—", "—", "—"}
	}
	opt := func(v *float64, f func(float64) string) string {
		if v == nil {
			return "n/a"
		}
		return f(*v)
	}
	ms := func(v float64) string { return groupDigits(v) + " ms" }
	cols := []string{groupDigits(ev.ExpectedTxs), groupDigits(ev.CommittedTxs),
		opt(ev.ThroughputRatio, func(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }),
		opt(ev.CommittedTPS, func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }),
		opt(ev.LatencyMeanMS, ms), opt(ev.LatencyP99MS, ms)}
	if t := ev.Trend; t != nil && t.Points >= 3 {
		cols = append(cols, fmt.Sprintf("%s (%s s)", strconv.FormatFloat(t.Slope, 'f', 4, 64), strconv.FormatFloat(t.Slope*(t.ToS-t.FromS), 'f', 2, 64)))
	} else {
		cols = append(cols, "n/a")
	}
	switch d := ev.Drain; {
	case d == nil:
		cols = append(cols, "n/a")
	case d.Drained:
		cols = append(cols, strconv.FormatFloat(d.Seconds, 'f', 1, 64)+" s")
	default:
		cols = append(cols, "> "+strconv.FormatFloat(d.Seconds, 'f', 1, 64)+" s")
	}
	if r := ev.Rounds; r != nil && r.Heights > 0 {
		cols = append(cols, fmt.Sprintf("%d/%d", r.Late, r.Heights))
	} else {
		cols = append(cols, "n/a")
	}
	return cols
}

var evidenceHead = []string{"expected", "committed", "ratio", "tx/s", "latency mean", "latency p99", "latency slope (rise)", "drain", "rounds > 0"}

// verdictText is "pass", "✗ check, check", or the run's status.
func verdictText(status string, v *saturation.Verdict) string {
	switch {
	case v == nil:
		return status
	case v.Pass:
		return "pass"
	}
	return "✗ " + strings.Join(v.Failed(), ", ")
}

func (m mdWriter) sweepCells(rec saturation.SweepRecord) {
	m.f("## Cells\n\nKey figures of every run (block latency; slope in s/s with the fitted rise over the steady window; drain after the load; heights committed after round 0).\n\n")
	head := append([]string{"cell", "repeat", "c·r"}, evidenceHead...)
	head = append(head, "verdict", "run")
	var rows [][]string
	var failed []string
	for _, c := range rec.Cells {
		conns, _ := strconv.Atoi(c.Params["c"])
		rate, _ := strconv.ParseFloat(c.Params["r"], 64)
		row := []string{"`" + c.ID + "`", strconv.Itoa(c.Repeat), groupDigits(float64(conns) * rate)}
		row = append(row, evidenceColumns(c.Evidence)...)
		row = append(row, verdictText(c.Status, c.Verdict), fmt.Sprintf("[%s](%s/%s)", c.Dir, c.Dir, results.ReportFile))
		if c.Evidence == nil {
			row[len(row)-1] = c.Dir
		}
		rows = append(rows, row)
		if c.Error != "" {
			failed = append(failed, fmt.Sprintf("`%s` repeat %d (%s): %s", c.ID, c.Repeat, c.Status, c.Error))
		}
	}
	m.table(head, "lrr"+strings.Repeat("r", len(evidenceHead))+"ll", rows)
	if len(failed) > 0 {
		m.f("Errors:\n\n")
		for _, f := range failed {
			m.f("- %s\n", f)
		}
		m.f("\n")
	}
}

func (m mdWriter) sweepRepeats(tables []*saturation.Table) {
	m.f("## Repeats\n\nMean over the finished repeats of each cell, with its 95 %% confidence interval (Student's t, n − 1 degrees of freedom).\n\n")
	iv := func(v saturation.CellInterval, f func(float64) string) string {
		switch v.N {
		case 0:
			return "n/a"
		case 1:
			return f(v.Mean)
		}
		return fmt.Sprintf("%s [%s, %s]", f(v.Mean), f(v.Low), f(v.High))
	}
	count := func(v float64) string { return groupDigits(v) }
	ratio := func(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }
	tps := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	var rows [][]string
	for _, t := range tables {
		for _, r := range t.Rates {
			for _, c := range t.Conns {
				cell := t.Cell(c, r)
				if cell == nil {
					continue
				}
				rows = append(rows, []string{"`" + cell.ID + "`", fmt.Sprintf("%d (%d failing)", cell.Runs, cell.Failed),
					iv(cell.Committed, count), iv(cell.Ratio, ratio), iv(cell.TPS, tps), iv(cell.LatencyMeanMS, count), iv(cell.LatencyP99MS, count)})
			}
		}
	}
	m.table([]string{"cell", "runs", "committed", "ratio", "tx/s", "latency mean (ms)", "latency p99 (ms)"}, "lrrrrrr", rows)
}

// saturationDictionary writes the appendix: the figures these reports use.
func (m mdWriter) saturationDictionary() {
	m.f("## Appendix: Data dictionary\n\n")
	var rows [][]string
	for _, id := range []string{"expected_txs", "committed_txs", "throughput_ratio", "committed_tps", "block_latency_mean_ms", "block_latency_p99_ms", "rounds_max"} {
		if d, ok := analysis.Lookup(id); ok {
			rows = append(rows, []string{"`" + d.ID + "`", d.Title, d.Unit, d.Better.String(), d.Definition})
		}
	}
	for _, d := range saturation.Dictionary() {
		rows = append(rows, []string{"`" + d.ID + "`", d.Title, d.Unit, d.Better.String(), d.Definition})
	}
	m.table([]string{"id", "title", "unit", "better", "definition"}, "lllll", rows)
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

func joinFloats(xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range slices.Clone(xs) {
		s[i] = fmtFloat(x)
	}
	return strings.Join(s, ", ")
}
