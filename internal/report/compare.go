package report

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/compare"
	"github.com/cometlab/cometlab/internal/results"
)

// CompareOptions tune WriteCompare.
type CompareOptions struct {
	// PlotWidth and PlotHeight are the plots' size in pixels; 0 means
	// DefaultPlotWidth × DefaultPlotHeight.
	PlotWidth, PlotHeight int
	// Command is the command line that made the comparison, shown in the
	// report so that it can be repeated; "" leaves it out.
	Command string
	// Preface is Markdown put right after the verdict (cometlab ab's
	// sequential decisions, or the A/A noise), before the tables.
	Preface string
	// Calibration marks an A/A experiment (both sides the same setup): the
	// report opens with the Preface, its calibration, and the comparison's
	// verdict follows as a count of false alarms, never as a headline.
	Calibration bool
}

// WriteCompare writes the comparison c of sides (baseline first, as
// compare.Sides took them) into dir, creating it: compare.md, compare.html (the
// same, self-contained), compare.json (c itself) and the overlay plots
// under plots/. Every file is written atomically.
func WriteCompare(dir string, c compare.Result, sides []compare.Side, opts CompareOptions) error {
	if err := os.MkdirAll(filepath.Join(dir, results.PlotsDir), 0o755); err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	plots, err := writeComparePlots(dir, sides, opts)
	if err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	var b bytes.Buffer
	compareMarkdown(&b, c, plots, opts)
	return writeCompareFiles(dir, "cometlab "+compareTitle(c), b.Bytes(), c)
}

// writeCompareFiles writes the Markdown, its HTML page (in which links to
// other comparisons' compare.md point to their compare.html) and the JSON
// of v.
func writeCompareFiles(dir, title string, md []byte, v any) error {
	if err := results.WriteFileAtomic(filepath.Join(dir, results.CompareMD), md); err != nil {
		return fmt.Errorf("compare: write %s: %w", results.CompareMD, err)
	}
	page, err := HTML(title, bytes.ReplaceAll(md, []byte("/"+results.CompareMD+")"), []byte("/"+results.CompareHTML+")")), dir)
	if err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	if err := results.WriteFileAtomic(filepath.Join(dir, results.CompareHTML), page); err != nil {
		return fmt.Errorf("compare: write %s: %w", results.CompareHTML, err)
	}
	if err := results.WriteJSON(filepath.Join(dir, results.CompareJSON), v); err != nil {
		return fmt.Errorf("compare: write %s: %w", results.CompareJSON, err)
	}
	return nil
}

func compareTitle(c compare.Result) string {
	var labels []string
	for _, s := range c.Candidates {
		labels = append(labels, s.Label)
	}
	return fmt.Sprintf("%s vs %s", strings.Join(labels, ", "), c.Baseline.Label)
}

// VerdictText is how reports write a verdict.
func VerdictText(v compare.Verdict) string {
	switch v {
	case compare.Better:
		return "better"
	case compare.Worse:
		return "worse"
	case compare.NoChange:
		return "no significant change"
	case compare.NotJudged:
		return "not judged"
	case compare.NotComparable:
		return "not comparable"
	case compare.Missing:
		return "missing"
	case compare.NoiseUnknown:
		return "noise unknown"
	}
	return string(v)
}

// cellVerdict is the short verdict of a table cell: changes in bold, and
// "no significant change" split by why.
func cellVerdict(c compare.Cell) string {
	switch {
	case c.Verdict == compare.Worse:
		return "**worse**"
	case c.Verdict == compare.Better:
		return "**better**"
	case c.Verdict == compare.NoChange && c.Beyond && c.Tested:
		return "not significant"
	case c.Verdict == compare.NoChange && c.Beyond:
		return "untested"
	case c.Verdict == compare.NoChange:
		return "no change"
	case c.Verdict == compare.NotJudged:
		return "—"
	}
	return VerdictText(c.Verdict)
}

// signed formats a difference of metric m with its sign.
func signed(m analysis.Metric, v float64) string {
	s := formatValue(m, v)
	if strings.Trim(s, "-0.,") == "" {
		return "0"
	}
	if v > 0 {
		s = "+" + s
	}
	return strings.Replace(s, "-", "−", 1)
}

// pctText formats Δ % ("+12.3 %"), or says why there is none.
func pctText(c compare.Cell) string {
	switch {
	case c.Delta == nil:
		return ""
	case *c.Delta == 0:
		return "0 %"
	case c.DeltaPct == nil:
		return "n/a (baseline 0)"
	}
	return strings.Replace(fmt.Sprintf("%+.1f %%", *c.DeltaPct), "-", "−", 1)
}

// pText formats a p-value.
func pText(p *float64) string {
	switch {
	case p == nil:
		return ""
	case *p < 1e-4:
		return "< 0.0001"
	case *p < 0.001:
		return strconv.FormatFloat(*p, 'f', 4, 64)
	}
	return strconv.FormatFloat(*p, 'f', 3, 64)
}

func ciText(m analysis.Metric, iv *compare.Interval) string {
	if iv == nil {
		return ""
	}
	return "[" + signed(m, iv.Lo) + ", " + signed(m, iv.Hi) + "]"
}

// meanText is valueText for the mean over n runs (formatMean).
func meanText(m analysis.Metric, v *float64, n int) string {
	if v == nil {
		return "—"
	}
	return formatMean(m, *v, n)
}

func valueText(m analysis.Metric, v *float64) string {
	if v == nil {
		return "—"
	}
	return formatValue(m, *v)
}

// compareMarkdown writes compare.md: verdict, what was compared, the
// differences between the runs, warnings, metric tables by group, the
// changes with their reasons, the distributions, the plots and the method.
func compareMarkdown(w io.Writer, c compare.Result, plots []comparePlot, opts CompareOptions) {
	m := mdWriter{w: w}
	th := c.Method.Thresholds
	if opts.Calibration {
		m.f("# A/A calibration: %s\n\n", compareTitle(c))
		if opts.Preface != "" {
			m.f("%s\n\n", strings.TrimSpace(opts.Preface))
		}
		m.f("## The fixed-sample comparison of the pairs\n\n")
		m.f("Both sides ran the same setup, so any metric called worse or better below is a false alarm: the comparison of every run "+
			"of one side with every run of the other, as `cometlab compare` makes it, called **%s**.\n\n", falseAlarmText(c))
	} else {
		m.f("# Comparison: %s\n\n", compareTitle(c))
		m.f("**Verdict: %s.**\n\n", strings.ToUpper(VerdictText(c.Verdict)))
	}
	for ci := range c.Candidates {
		m.f("- %s\n", verdictSentence(c, ci))
	}
	m.f("\nA metric is better or worse when its change is at least %s %% (CometBFT's regression rule; per-metric thresholds may differ) "+
		"and significant at α = %s.\n\n", fmtFloat(th.DefaultPct), fmtFloat(th.Alpha))
	if opts.Command != "" {
		m.f("```sh\n%s\n```\n\n", opts.Command)
	}
	if opts.Preface != "" && !opts.Calibration {
		m.f("%s\n\n", strings.TrimSpace(opts.Preface))
	}

	m.f("## What was compared\n\n")
	var rows [][]string
	for i, s := range append([]compare.SideInfo{c.Baseline}, c.Candidates...) {
		role := "candidate"
		if i == 0 {
			role = "baseline"
		}
		for _, r := range s.Runs {
			rows = append(rows, []string{role, s.Label, "`" + r.Dir + "`", r.Status, r.Version})
		}
	}
	m.table([]string{"side", "label", "run directory", "status", "CometBFT"}, "lllll", rows)

	m.f("## Differences between the runs\n\n")
	m.f("Versions, load and status, then every setting of run.json, the manifest, the nodes' `config.toml` and the genesis " +
		"consensus parameters whose value differs (a side whose repeats differ lists each value, separated by /).\n\n")
	head := []string{"setting", c.Baseline.Label}
	for _, s := range c.Candidates {
		head = append(head, s.Label)
	}
	rows = nil
	for _, d := range c.Differences {
		row := []string{"`" + d.Key + "`"}
		for _, v := range d.Values {
			row = append(row, strings.ReplaceAll(v, " | ", " / "))
		}
		rows = append(rows, row)
	}
	m.table(head, strings.Repeat("l", len(head)), rows)

	if len(c.Warnings) > 0 {
		m.f("## Warnings\n\n")
		for _, w := range c.Warnings {
			m.f("- %s\n", w)
		}
		m.f("\n")
	}

	compareTables(m, c)
	compareChanges(m, c)
	compareDistributions(m, c)
	if len(plots) > 0 {
		m.f("## Plots\n\n")
		for _, p := range plots {
			m.f("### %s\n\n![%s](%s)\n\n%s\n\n", p.title, p.title, p.path, p.caption)
		}
	}
	compareMethod(m, c)
}

// compareTables writes one table per metric group, in the dictionary's
// order; groups without a metric in the inputs are left out.
func compareTables(m mdWriter, c compare.Result) {
	groups := analysis.Groups()
	for _, r := range c.Metrics {
		if !slices.Contains(groups, r.Group) {
			groups = append(groups, r.Group)
		}
	}
	head := []string{"metric", c.Baseline.Label}
	align := "lr"
	for _, s := range c.Candidates {
		head = append(head, s.Label, "Δ", "Δ %", fmt.Sprintf("%s %% CI of Δ", fmtFloat(100*c.Method.Confidence)), "p", "verdict")
		align += "rrrrrl"
	}
	m.f("## Metrics\n\n")
	m.f("Baseline and candidate values are the mean over each side's runs. Δ = candidate − baseline; Δ %% = 100·Δ/|baseline|. " +
		"The interval and p-value come from the test named under *Changes* and *Method*; *untested* is a change beyond the threshold " +
		"that single runs cannot judge, *—* a figure that describes the run.\n\n")
	for _, g := range groups {
		var rows [][]string
		for _, r := range c.Metrics {
			if r.Group != g {
				continue
			}
			mt := metricFor(r.ID)
			title := mt.Title
			if mt.Unit != "" && mt.Unit != analysis.UnitRatio {
				title += " (" + mt.Unit + ")"
			}
			row := []string{title, meanText(mt, r.Baseline, len(r.BaselineRuns))}
			for _, cell := range r.Candidates {
				d := ""
				if cell.Delta != nil {
					d = signedMean(mt, *cell.Delta, max(len(r.BaselineRuns), len(cell.Runs)))
				}
				ci := ciText(mt, cell.CI)
				if cell.Rate != nil {
					ci = ratioInterval(*cell.Rate)
				}
				row = append(row, meanText(mt, cell.Value, len(cell.Runs)), d, pctText(cell), ci, pText(cell.P), cellVerdict(cell))
			}
			rows = append(rows, row)
		}
		if len(rows) == 0 {
			continue
		}
		m.f("### %s%s\n\n", strings.ToUpper(g[:1]), g[1:])
		m.table(head, align, rows)
	}
}

// compareChanges lists every change beyond its threshold, with the reason
// of its verdict and the test.
func compareChanges(m mdWriter, c compare.Result) {
	m.f("## Changes beyond the threshold\n\n")
	n := 0
	for ci, s := range c.Candidates {
		for _, r := range c.Metrics {
			cell := r.Candidates[ci]
			if !cell.Beyond || cell.Verdict == compare.NotJudged {
				continue
			}
			n++
			test := ""
			if cell.Test != "" {
				test = " — " + cell.Test
			}
			m.f("- %s, %s: %s: %s%s.\n", cellVerdict(cell), s.Label, metricFor(r.ID).Title, cell.Reason, test)
		}
	}
	if n == 0 {
		m.f("None: every judged metric is within its threshold.\n")
	}
	m.f("\n")
}

func compareDistributions(m mdWriter, c compare.Result) {
	if len(c.Distributions) == 0 {
		return
	}
	m.f("## Distributions\n\n")
	m.f("Mean, median and 99th percentile of each distribution (the runs of a side pooled), and for each candidate the change of each "+
		"with its %s %% confidence interval, and the p-value of the test.\n\n", fmtFloat(100*c.Method.Confidence))
	head := []string{"distribution", "side", "runs", "n", "mean", "median", "p99", "Δ mean", "Δ median", "Δ p99", "p", "test"}
	var rows [][]string
	for _, d := range c.Distributions {
		mt := analysis.Metric{Unit: d.Unit}
		stats := func(s *compare.DistStats) []string {
			if s == nil {
				return []string{"", "0", "—", "—", "—"}
			}
			return []string{strconv.Itoa(s.Runs), groupDigits(float64(s.N)), formatValue(mt, s.Mean), formatValue(mt, s.Median), formatValue(mt, s.P99)}
		}
		title := d.Title + " (" + d.Unit + ")"
		rows = append(rows, append(append([]string{title, c.Baseline.Label}, stats(d.Baseline)...), "", "", "", "", ""))
		for ci, cell := range d.Candidates {
			dd := func(x *compare.DistDelta) string {
				if x == nil {
					return ""
				}
				s := signed(mt, x.Delta)
				if x.CI != nil {
					s += " " + ciText(mt, x.CI)
				}
				return s
			}
			rows = append(rows, append(append([]string{"", c.Candidates[ci].Label}, stats(cell.Stats)...),
				dd(cell.Mean), dd(cell.Median), dd(cell.P99), pText(cell.P), cell.Test))
		}
	}
	m.table(head, "llrrrrrrrrrl", rows)
	var defs []string
	for _, d := range compare.Distributions() {
		defs = append(defs, fmt.Sprintf("*%s*: %s.", d.Title, d.Definition))
	}
	m.f("%s\n\n", strings.Join(defs, " "))
}

func compareMethod(m mdWriter, c compare.Result) {
	th := c.Method.Thresholds
	m.f("## Method\n\n")
	m.f("- **Values.** Every figure is recomputed from each run's records with this cometlab's metric dictionary " +
		"(figures only an older or newer `summary.json` has are shown, not judged). A side with repeated runs is the mean of its runs.\n")
	m.f("- **Threshold.** A change counts when |Δ %%| ≥ %s %% (CometBFT's QA rule)", fmtFloat(th.DefaultPct))
	if len(th.Metric) > 0 {
		var o []string
		for _, id := range slices.Sorted(maps.Keys(th.Metric)) {
			t := th.Metric[id]
			var parts []string
			if t.Pct != nil {
				parts = append(parts, fmtFloat(*t.Pct)+" %")
			}
			if t.MinDelta > 0 {
				parts = append(parts, "floor "+fmtFloat(t.MinDelta))
			}
			if t.Ignore {
				parts = append(parts, "ignored")
			}
			o = append(o, fmt.Sprintf("`%s` %s", id, strings.Join(parts, ", ")))
		}
		m.f(", with these per-metric thresholds: %s", strings.Join(o, "; "))
	}
	m.f(". With a zero baseline Δ %% is undefined and any change (above a floor) counts.\n")
	m.f("- **Significance** (α = %s): p < α or the %s %% interval of Δ excludes 0.\n", fmtFloat(th.Alpha), fmtFloat(100*c.Method.Confidence))
	m.f("  - With repeated runs on a side, the runs' own values decide (Student's t, Welch's when both sides have repeats): the between-run noise. " +
		"Two runs a side make a weak test; three or more are better.\n")
	m.f("  - With single runs, a figure of a distribution is tested on that distribution: a cluster bootstrap of the figure's Δ "+
		"(%d resamples, seed %d; the transactions of one block share its commit time, so whole blocks are resampled) and a Mann–Whitney U test of "+
		"the per-block means (or of the 1-second windows, or the block intervals). The chain's counts (committed, rejected, missing, "+
		"duplicate transactions) are tested as proportions (two-proportion z test). Extremes (min, max), adoption spreads, the load "+
		"generator's own counts and other figures of single runs have no noise estimate: a change beyond the threshold is reported as "+
		"*untested*, never as worse.\n", c.Method.Resamples, c.Method.Seed)
	m.f("  - Within-run tests cannot see run-to-run noise (a busier host slows a whole run). So with single runs a change that the " +
		"within-run test calls significant is judged against the between-run noise measured by an A/A experiment (`cometlab ab --aa`, " +
		"given as `compare --noise noise.json`): Δ divided by the RMS of the A/A pairs' differences follows Student's t with as many " +
		"degrees of freedom as pairs when nothing changed; the p-values of the metrics judged so are corrected by Holm's step-down " +
		"method (intervals at the Bonferroni level), so that an unchanged candidate has at most an α chance of any metric called " +
		"worse or better. Extremes (min, max) stay untested. Without a measured noise for the metric it is *noise unknown*: reported, " +
		"never worse. Lost and duplicate transactions are judged within the run (a healthy setup has none in any run). Repeat the runs " +
		"(`LABEL=run1,run2,run3`) for verdicts from the runs' own spread.\n")
	m.f("- **Verdict.** *worse* (or *better*) needs both a change beyond the threshold and significance, in the direction the metric "+
		"dictionary calls worse (better); the comparison is worse when any metric of any candidate is. `cometlab compare` then exits with code %d.\n\n", 4)
}

// CompareTableIDs are the metrics CompareTable shows.
func CompareTableIDs() []string {
	return []string{"committed_txs", "missing_txs", "throughput_ratio", "committed_tps", "tps_mean",
		"block_latency_mean_ms", "block_latency_p50_ms", "block_latency_p99_ms", "block_latency_max_ms",
		"observed_latency_p50_ms", "observed_latency_p99_ms", "block_interval_mean_s", "rounds_max",
		"adoption_p100_ms", "adoption_lag_p99_ms"}
}

// CompareTable writes the key figures of a comparison as an aligned text
// table for a terminal: per metric the baseline, and per candidate the
// value, Δ % and verdict; then the overall verdict.
func CompareTable(w io.Writer, c compare.Result) {
	head := []string{"", c.Baseline.Label}
	for _, s := range c.Candidates {
		head = append(head, s.Label, "Δ %", "verdict")
	}
	rows := [][]string{head}
	for _, id := range CompareTableIDs() {
		i := slices.IndexFunc(c.Metrics, func(r compare.Row) bool { return r.ID == id })
		if i < 0 {
			continue
		}
		r := c.Metrics[i]
		mt := metricFor(id)
		title := mt.Title
		if mt.Unit != "" && mt.Unit != analysis.UnitRatio {
			title += " (" + mt.Unit + ")"
		}
		row := []string{title, meanText(mt, r.Baseline, len(r.BaselineRuns))}
		for _, cell := range r.Candidates {
			row = append(row, meanText(mt, cell.Value, len(cell.Runs)), pctText(cell), strings.Trim(cellVerdict(cell), "*"))
		}
		rows = append(rows, row)
	}
	width := make([]int, len(head))
	for _, r := range rows {
		for i, s := range r {
			width[i] = max(width[i], len([]rune(s)))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		for i, s := range r {
			pad := strings.Repeat(" ", width[i]-len([]rune(s)))
			if i == 0 || i == len(r)-1 || (i > 1 && (i-2)%3 == 2) {
				b.WriteString(s + pad)
			} else {
				b.WriteString(pad + s)
			}
			b.WriteString("  ")
		}
		b.WriteString("\n")
	}
	out := strings.ReplaceAll(b.String(), "  \n", "\n")
	io.WriteString(w, strings.TrimRight(strings.Join(trimLines(out), "\n"), "\n")+"\n\n")
	fmt.Fprintf(w, "verdict: %s", VerdictText(c.Verdict))
	for _, s := range c.Candidates {
		fmt.Fprintf(w, "; %s: %d worse, %d better", s.Label, s.Worse, s.Better)
	}
	fmt.Fprintln(w)
	for _, wn := range c.Warnings {
		fmt.Fprintf(w, "warning: %s\n", wn)
	}
}

func trimLines(s string) []string {
	lines := strings.Split(s, "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	return lines
}
