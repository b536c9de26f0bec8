package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/saturation"
)

// QASaturation is one side's saturation step: its search and grid (nil
// when they have not run) and their directories relative to the QA's.
type QASaturation struct {
	Label              string
	SearchDir, GridDir string
	Search             *saturation.SearchRecord
	Grid               *saturation.SweepRecord
}

// QAInputs is what the QA report needs besides qa.json: each side's
// saturation step, and each step's run directories (relative to the QA
// directory) for the links to their reports.
type QAInputs struct {
	Saturation []QASaturation
	Runs       map[string][]string
	// Disturbed are the runs of each step set aside because their host
	// was busy and measured again (DIR.disturbed, relative to the QA
	// directory), by step id.
	Disturbed map[string][]string
	// Sweeps are the steps run as a sweep (the vote-extension sweep, the
	// storage matrix), by step id.
	Sweeps map[string]*saturation.SweepRecord
	// Provenance is what each side ran, by side (baseline first); Notes
	// the release notes' headings between their releases (nil: none read).
	Provenance []QAProvenance
	Notes      *QAReleaseNotes
}

// WriteQA writes the QA report of the QA directory dir from rec (its
// qa.json) and in: qa.md and qa.html, atomically, in the published
// reports' order — the pass/fail table at the top, the setup and the
// plan, the saturation tables side by side, the chosen load and its rule,
// then each test with its figures (baseline | candidate | Δ % | verdict by
// the QA rule), its overlaid plots and the links to its runs' reports,
// then the steps that did not run and why. The same inputs always give
// the same files.
func WriteQA(dir string, rec results.QARecord, in QAInputs) error {
	curve, err := writeCurve(dir, "Latency vs throughput — "+qaTitle(rec), qaCurve(in.Saturation), Options{})
	if err != nil {
		return err
	}
	var b bytes.Buffer
	m := mdWriter{w: &b}
	m.qaHeader(rec)
	m.qaSetup(rec, in)
	for _, st := range rec.Steps {
		switch st.ID {
		case "saturation":
			m.qaSaturation(rec, st, in.Saturation, curve)
		case "qa-load":
			m.qaLoad(rec, st)
		default:
			if st.Status == results.QASkipped || st.Status == results.QANotBuilt {
				continue
			}
			m.qaTest(dir, rec, st, in)
		}
	}
	m.qaNotRun(rec)
	m.qaDictionary(rec)
	md := b.Bytes()
	for _, name := range []string{results.ReportFile, results.CompareMD, results.SweepReportFile, results.SaturateReportFile} {
		html := strings.TrimSuffix(name, ".md") + ".html"
		md = bytes.ReplaceAll(md, []byte("/"+name+")"), []byte("/"+html+")"))
	}
	if err := results.WriteFileAtomic(filepath.Join(dir, results.QAReportFile), b.Bytes()); err != nil {
		return fmt.Errorf("report: write %s: %w", results.QAReportFile, err)
	}
	page, err := HTML("cometlab QA "+qaTitle(rec), md, dir)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return results.WriteFileAtomic(filepath.Join(dir, results.QAHTMLFile), page)
}

func qaTitle(rec results.QARecord) string {
	if len(rec.Labels) < 2 {
		return ""
	}
	return rec.Labels[1] + " against " + rec.Labels[0]
}

// qaStepTitle is a step's title as the plan gives it.
func qaStepTitle(rec results.QARecord, id string) string {
	if ps := rec.Plan.PlanStep(id); ps != nil && ps.Title != "" {
		return ps.Title
	}
	return id
}

// qaVerdictText is a test's verdict for the pass/fail table.
func qaVerdictText(st results.QAStep) string {
	switch {
	case st.Status == results.QANotBuilt:
		return "not built"
	case st.Status == results.QASkipped:
		return "skipped"
	case st.Status == results.QAPending || st.Status == results.StatusRunning:
		return "not run yet"
	case st.Status == results.QAInterrupted:
		return "interrupted"
	case st.Verdict == results.QAVerdictRegression || st.Verdict == results.QAVerdictUnsafe || st.Verdict == results.QAVerdictFailed:
		return "**" + strings.ToUpper(st.Verdict) + "**"
	case st.Verdict == "":
		return "—"
	}
	return strings.ReplaceAll(st.Verdict, "_", " ")
}

func (m mdWriter) qaHeader(rec results.QARecord) {
	verdict := rec.Verdict
	if verdict == "" {
		verdict = rec.Status
	}
	m.f("# QA: %s — %s\n\n", qaTitle(rec), strings.ToUpper(strings.ReplaceAll(verdict, "_", " ")))
	nodes, vals := 0, 0
	if len(rec.Testnets) > 1 {
		nodes, vals = rec.Testnets[1].Nodes, rec.Testnets[1].Validators
	}
	m.f("Made by `cometlab qa` on one machine (%d CPUs) with %d nodes (%d validators) per testnet: the method of CometBFT's QA "+
		"(saturation table, QA load, tests against the baseline) at the scale of one host, not of the published 200-node testnets. "+
		"A figure is a **regression** when it is worse than the baseline by %s %% or more **and** the difference is significant over "+
		"the repeats (α = %s, Holm-corrected over a test's figures); a figure worse but within %[4]s %%, or worse by over %[4]s %% but not "+
		"significant (undecided), is stated as such; each figure's table gives the %[4]s %% rule and the significance in columns of their own.\n\n", rec.Host.CPUs, nodes, vals, fmtFloat(rec.ThresholdPct), fmtFloat(rec.Alpha))
	if rec.AnalyzedBy != "" {
		m.f("Every run analysed and every verdict derived again by cometlab %s on %s (`cometlab report`), from the runs as the QA "+
			"(cometlab %s) recorded them.\n\n", rec.AnalyzedBy, rec.AnalyzedAt.Format("2006-01-02 15:04 UTC"), rec.CometlabVersion)
	}
	var rows [][]string
	for _, st := range rec.Steps {
		if st.ID == "qa-load" || st.ID == "saturation" && st.Verdict != results.QAVerdictUnsafe && st.Status != results.StatusFailed {
			continue // not a test: listed only when a verdict of the QA comes from it
		}
		what := st.Summary
		if st.Error != "" {
			what = st.Error
		}
		title := qaStepTitle(rec, st.ID)
		anchor := headingID(title)
		if st.Status == results.QASkipped || st.Status == results.QANotBuilt {
			anchor = "steps-not-run"
		}
		rows = append(rows, []string{title, qaVerdictText(st), foldCell(what, anchor)})
	}
	m.table([]string{"test", "result", "what it found"}, "lll", rows)
}

func (m mdWriter) qaSetup(rec results.QARecord, in QAInputs) {
	m.f("## Setup\n\n")
	for i, label := range rec.Labels {
		role, spec := "Baseline", rec.Baseline
		if i == 1 {
			role, spec = "Candidate", rec.Candidate
		}
		spec = codeSpan(spec)
		if spec == "—" {
			spec = "not given: the manifest as given"
		}
		line := fmt.Sprintf("- %s **%s** (--%s %s)", role, label, strings.ToLower(role), spec)
		if i < len(rec.Testnets) {
			t := rec.Testnets[i]
			line += fmt.Sprintf(": CometBFT %s, app %s, %d nodes (%d validators), transactions of %d bytes", t.CometBFTVersion, t.App, t.Nodes,
				t.Validators, t.TxSize)
		}
		m.f("%s; manifest [%s](%s).\n", line, results.ManifestsDir+"/"+label+".toml", results.ManifestsDir+"/"+label+".toml")
	}
	h := rec.Host
	m.f("- Host: %s, %s/%s, %d CPUs, kernel %s, %s.\n", h.Hostname, h.OS, h.Arch, h.CPUs, h.Kernel, h.Go)
	if rec.Command != "" {
		m.f("- Command: %s\n", codeSpan(rec.Command))
	}
	m.f("- Status: %s, %s elapsed.\n\n", rec.Status, fmtS(rec.ElapsedS))
	m.qaProvenance(in.Provenance, in.Notes)
	m.f("### Plan\n\n")
	m.qaPlan(rec.Plan)
}

func (m mdWriter) qaSaturation(rec results.QARecord, st results.QAStep, sats []QASaturation, curve bool) {
	m.f("## Saturation point\n\n")
	if st.Status == results.QASkipped {
		m.f("Not run: %s.\n\n", st.Summary)
		return
	}
	if st.Error != "" {
		m.f("**The step failed:** %s\n\n", st.Error)
	}
	if st.Verdict == results.QAVerdictUnsafe {
		m.qaSafetyViolation(rec, st.Summary)
	}
	m.f("Each side's saturation search (one connection, from the manifest's rate) found its knee; the c × r grid then "+
		"brackets it, the method's c ∈ {1, 2, 4} × r ∈ {200, 400, 800, 1600} scaled to where this testnet saturates "+
		"(r = knee × %s). Cells: committed transactions (the mean over repeats); **bold**: the saturation diagonal; ✗: saturated.\n\n",
		factorsList(rec.Plan.Factors))
	for _, s := range sats {
		if s.Search != nil && s.Search.Outcome != nil {
			m.f("- **%s**: %s ([search](%s/%s), [grid](%s/%s)).\n", s.Label, s.Search.Outcome.Summary, s.SearchDir, results.SaturateReportFile,
				s.GridDir, results.SweepReportFile)
		}
	}
	m.f("\n")
	m.qaSideBySide(rec, sats)
	for _, s := range sats {
		if s.Grid == nil {
			continue
		}
		if ts := saturation.Tables(s.Grid.GridCells()); len(ts) > 0 {
			m.f("%s: %s\n\n", s.Label, diagonalSentence(ts[0]))
		}
	}
	if curve {
		m.f("![Latency vs throughput](%s)\n\nThe grid's cells of both sides, as the v0.34 report's latency–throughput curve: "+
			"one point per cell (the mean of its repeats), x = committed tx/s over all connections, y = block latency; solid lines "+
			"and dots the mean, dashed lines and crosses the p99; one colour per side and connection count c, points joined in "+
			"order of r. Where a side's curve turns up, more offered load no longer adds throughput, only latency: its "+
			"saturation; a candidate's curve below the baseline's is faster at the same throughput, one reaching further right "+
			"commits more.\n\n", results.LatencyThroughputPlot)
	}
}

// qaSideBySide is the saturation tables of the sides in one table: a row
// per factor of the knee, each side's rate and its cells.
func (m mdWriter) qaSideBySide(rec results.QARecord, sats []QASaturation) {
	head := []string{"r"}
	align := "l"
	var tables []*saturation.Table
	for _, s := range sats {
		var t *saturation.Table
		if s.Grid != nil {
			if ts := saturation.Tables(s.Grid.GridCells()); len(ts) > 0 {
				t = ts[0]
			}
		}
		tables = append(tables, t)
		head = append(head, s.Label+" r")
		align += "r"
		for _, c := range rec.Plan.Connections {
			head = append(head, fmt.Sprintf("%s c=%d", s.Label, c))
			align += "r"
		}
	}
	var rows [][]string
	n := 0
	for _, t := range tables {
		if t != nil {
			n = max(n, len(t.Rates))
		}
	}
	for i := range n {
		row := []string{"knee × " + factorAt(rec.Plan.Factors, i)}
		for _, t := range tables {
			if t == nil || i >= len(t.Rates) {
				row = append(row, "—")
				for range rec.Plan.Connections {
					row = append(row, "—")
				}
				continue
			}
			r := t.Rates[i]
			row = append(row, fmtFloat(r))
			for _, c := range rec.Plan.Connections {
				row = append(row, satCell(t.Cell(c, r)))
			}
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		m.f("No grid cell has finished yet.\n\n")
		return
	}
	m.table(head, align, rows)
}

func satCell(c *saturation.Cell) string {
	switch {
	case c == nil || c.Runs == 0:
		return "—"
	case c.OnDiagonal:
		return "**" + groupDigits(c.Committed.Mean) + "**"
	case c.Saturated:
		return groupDigits(c.Committed.Mean) + " ✗"
	}
	return groupDigits(c.Committed.Mean)
}

func factorAt(fs []float64, i int) string {
	if i >= len(fs) {
		return "?"
	}
	switch fs[i] {
	case 0.25:
		return "¼"
	case 0.5:
		return "½"
	}
	return fmtFloat(fs[i])
}

func factorsList(fs []float64) string {
	var parts []string
	for i := range fs {
		parts = append(parts, factorAt(fs, i))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func (m mdWriter) qaLoad(rec results.QARecord, st results.QAStep) {
	m.f("## QA load\n\n")
	if l := rec.Load; l != nil {
		m.f("**c = %d, r = %s tx/s** (%s tx/s in all). The rule: %s.\n\n", l.Connections, fmtFloat(l.Rate),
			groupDigits(float64(l.Connections)*l.Rate), l.Rule)
		return
	}
	m.f("Not chosen yet (%s).\n\n", st.Status)
}

// qaTest is one test's section: its verdict, the figures table, the
// overlaid plots of its comparison, the issues its runs discovered and
// their autopsy (qaAutopsy), and the links to its runs.
func (m mdWriter) qaTest(dir string, rec results.QARecord, st results.QAStep, in QAInputs) {
	runs, sweep := in.Runs[st.ID], in.Sweeps[st.ID]
	m.f("## %s\n\n", qaStepTitle(rec, st.ID))
	if n := saturatedRuns(dir, runs); n > 0 {
		m.f("**The host was saturated** in %d of its %d runs (its cores more than %d %% busy during the load, the testnet itself "+
			"included): their figures measure this host as much as CometBFT; see the host's headroom below.\n\n", n, len(runs), analysis.BusyLimitPct)
	}
	if ps := rec.Plan.PlanStep(st.ID); ps != nil {
		for _, r := range ps.Runs {
			m.f("%s: %s, %s", r.Side, r.What, planCount(r))
			if len(r.Changes) > 0 {
				m.f(" (%s)", codeSpan(strings.Join(r.Changes, " ")))
			}
			m.f(".\n")
		}
		m.f("\n")
	}
	m.f("**Result: %s**", strings.Trim(qaVerdictText(st), "*"))
	switch {
	case st.Error != "":
		m.f(" — %s", st.Error)
	case st.Summary != "":
		m.f(" — %s", st.Summary)
	}
	m.f(".\n\n")
	if len(st.Figures) > 0 {
		m.qaFigures(rec, st.Figures)
	}
	switch {
	case sweep != nil && st.ID == "storage" && len(st.Dirs) > 0:
		m.qaStorage(filepath.Join(dir, st.Dirs[0]), *sweep)
	case sweep != nil:
		m.qaSweep(*sweep)
		if len(st.Dirs) > 0 {
			m.qaSweepPlots(dir, st.Dirs[0], *sweep)
		}
	}
	for _, d := range st.Dirs {
		if _, err := os.Stat(filepath.Join(dir, d, results.SweepReportFile)); err == nil {
			m.f("The sweep, with every cell's figures: [%s](%s/%s).\n\n", d+"/"+results.SweepReportFile, d, results.SweepReportFile)
		}
		if _, err := os.Stat(filepath.Join(dir, d, results.CompareMD)); err == nil {
			m.f("The comparison with every figure, its test and interval: [%s](%s/%s).\n\n", d+"/"+results.CompareMD, d, results.CompareMD)
		}
		plots, _ := filepath.Glob(filepath.Join(dir, d, results.PlotsDir, "compare_*.png"))
		slices.Sort(plots)
		bare := false // the last plot has no caption under it
		for _, p := range plots {
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				continue
			}
			if title, caption, ok := comparePlotCaption(filepath.Base(p)); ok {
				m.f("%s![%s](%s)\n\n%s\n\n", map[bool]string{true: "\n"}[bare], title, filepath.ToSlash(rel), caption)
				bare = false
				continue
			}
			name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "compare_"), ".png")
			m.f("![%s](%s)\n", strings.ReplaceAll(name, "_", " "), filepath.ToSlash(rel))
			bare = true
		}
		if bare {
			m.f("\n")
		}
	}
	if st.ID == "rotation" {
		m.qaRotationHeights(dir, runs)
	}
	m.qaAutopsy(dir, runs, in.Disturbed[st.ID])
	if len(runs) > 0 {
		var links []string
		for _, r := range runs {
			links = append(links, fmt.Sprintf("[%s](%s/%s)", filepath.Base(r), r, results.ReportFile))
		}
		m.f("Runs: %s.\n\n", strings.Join(links, ", "))
	}
}

// qaNotRun lists the steps that did not run and why.
func (m mdWriter) qaNotRun(rec results.QARecord) {
	var lines []string
	for _, st := range rec.Steps {
		if st.Status == results.QASkipped || st.Status == results.QANotBuilt {
			lines = append(lines, fmt.Sprintf("- %s: %s", qaStepTitle(rec, st.ID), st.Summary))
		}
	}
	if len(lines) == 0 {
		return
	}
	m.f("## Steps not run\n\n%s\n\n", strings.Join(lines, "\n"))
}
