package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
)

// Options tunes Write.
type Options struct {
	// PlotWidth and PlotHeight are the plots' size in pixels; 0 means
	// DefaultPlotWidth × DefaultPlotHeight.
	PlotWidth, PlotHeight int

	// Input holds the run's records when the caller has read them
	// already (analysis.ReadStream or ReadInput, metrics.csv included),
	// so that a run's files are read once; nil means Write reads them
	// (analysis.ReadStream).
	Input *analysis.Input
}

// latencyPlot is the latency plot's path inside the run directory (slash
// separated, as Markdown links are).
const latencyPlot = results.PlotsDir + "/latency.png"

// Write writes the run directory dir's report.md, its plots under plots/
// and report.html (the same report as one self-contained page), each file
// atomically, from s and from dir's run.json, manifest.toml, txs.csv,
// blocks.csv, adoption.csv, metrics.csv and resources.csv. run.json must
// be there; for every other missing file (or series) the report says what
// is missing where its plots would be. A plot that can no longer be drawn
// is removed from plots/.
func Write(dir string, s analysis.Summary, opts Options) error {
	run, err := results.ReadRun(dir)
	if err != nil {
		return fmt.Errorf("report %s: %w", dir, err)
	}
	manifest, err := os.ReadFile(filepath.Join(dir, results.ManifestFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("report: read manifest: %w", err)
	}
	in := opts.Input
	if in == nil {
		read, err := analysis.ReadStream(dir)
		if err != nil {
			return fmt.Errorf("report: %w", err)
		}
		in = &read
	}
	pd := newPlotData(in.Run, in, s, opts) // the records' load: a time-scaled run's host time
	plots := drawPlots(pd)
	if err := os.MkdirAll(filepath.Join(dir, results.PlotsDir), 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	for _, sp := range plotSpecs() {
		r := plots[sp.file]
		path := filepath.Join(dir, filepath.FromSlash(r.path()))
		var nd noData
		switch {
		case r.err == nil:
			if err := results.WriteFileAtomic(path, r.png); err != nil {
				return fmt.Errorf("report: write %s: %w", r.path(), err)
			}
		case errors.As(r.err, &nd):
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("report: %w", err)
			}
		default:
			return fmt.Errorf("report: draw %s: %w", r.path(), r.err)
		}
	}

	verdict, err := verdictOf(dir, in, s)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}

	if err := writeNodeFigures(dir, s, analysis.RunProcesses(*in)); err != nil {
		return fmt.Errorf("report: %w", err)
	}

	var b bytes.Buffer
	md := mdWriter{w: &b, plots: plots, many: pd.many(), full: &[]nodeTableSpec{}}
	md.glance(run, s, verdict)
	md.issues(in)
	md.saturationChecks(verdict)
	md.anomalies(s)
	md.autopsy(s)
	md.scenarios(s, run)
	md.clients(s, run)
	md.lanes(s)
	md.appVerdicts(s)
	md.consensusOrApp(s)
	md.latency(s)
	md.throughput(s)
	md.events(s, in, run, pd.start, pd.end)
	md.trend(s, in)
	md.mempool(s, in)
	md.consensus(s, in)
	md.resources(s, in)
	md.msgBytes(s, in)
	md.adoption(s, in, run, !hasEvents(s, in, pd.start, pd.end))
	md.zones(s, in, run)
	md.hosts(run)
	md.accounting(s)
	md.results(s)
	md.notes(s)
	md.topology(in, run, pd.start, pd.end)
	md.nodeAppendix(s)
	md.experiment(run, manifest)
	md.dictionary()
	if err := results.WriteFileAtomic(filepath.Join(dir, results.ReportFile), b.Bytes()); err != nil {
		return fmt.Errorf("report: write %s: %w", results.ReportFile, err)
	}
	page, err := HTML("cometlab run "+run.ID, b.Bytes(), dir)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := results.WriteFileAtomic(filepath.Join(dir, results.ReportHTML), page); err != nil {
		return fmt.Errorf("report: write %s: %w", results.ReportHTML, err)
	}
	return nil
}

// mdWriter writes the sections of report.md.
type mdWriter struct {
	w     io.Writer
	plots map[string]plotResult
	many  bool             // more than manyNodes nodes: the per-node plots show their spread
	full  *[]nodeTableSpec // the per-node tables summarised, for the appendix; nil: never summarise
}

func (m mdWriter) f(format string, a ...any) { fmt.Fprintf(m.w, format, a...) }

// table writes a Markdown table; align holds "l" or "r" per column.
func (m mdWriter) table(head []string, align string, rows [][]string) {
	m.f("| %s |\n|", strings.Join(head, " | "))
	for i := range head {
		if i < len(align) && align[i] == 'r' {
			m.f(" ---: |")
		} else {
			m.f(" --- |")
		}
	}
	m.f("\n")
	for _, r := range rows {
		for i := range r {
			r[i] = cell(r[i])
		}
		m.f("| %s |\n", strings.Join(r, " | "))
	}
	m.f("\n")
}

func metricValue(s analysis.Summary, id string) string {
	v, ok := s.Metrics[id]
	if !ok {
		return "n/a"
	}
	return formatWithUnit(metricFor(id), v)
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05.000 MST")
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func (m mdWriter) experiment(run results.Run, manifest []byte) {
	l := run.Load
	m.f("## Appendix: Experiment\n\n### Load\n\n")
	expected := []string{"expected transactions (c × r × duration)", groupDigits(float64(l.ExpectedTxs()))}
	if l.Shaped() {
		expected = []string{"expected transactions (the shape's schedule)", groupDigits(float64(l.ExpectedTxs()))}
	}
	rows := [][]string{
		{"connections (c)", strconv.Itoa(l.Connections)},
		{"rate per connection (r)", fmtFloat(l.Rate) + " tx/s"},
		{"transaction size", strconv.Itoa(l.Size) + " B"},
		{"duration", fmtFloat(l.DurationS) + " s"},
		{"pacing", l.Pacing},
		{"late threshold", fmtFloat(l.LateThreshold) + " s"},
		expected,
		{"target", fmt.Sprintf("%s (%s)", run.Target, run.Endpoint)},
	}
	if k := run.Scale(); k != 1 {
		h := l.HostTime(k)
		rows = append(rows, []string{"time scale (k)", fmt.Sprintf("%s: the host sent %s tx/s per connection for %s s; the values above are the model's",
			fmtFloat(k), fmtFloat(h.Rate), fmtFloat(h.DurationS))})
	}
	if l.Txs != "" {
		rows[2][1] = "— (the user's own; see sent.csv)"
	}
	if l.Shaped() {
		rows = slices.Insert(rows, 2, []string{"shape (rates per connection)", l.ShapeDetail})
	}
	if l.Txs != "" {
		rows = slices.Insert(rows, 2, []string{"transactions", "the user's own, from " + l.Txs + ", matched on the chain by SHA-256"})
	}
	m.table([]string{"parameter", "value"}, "ll", rows)

	m.f("### Testnet\n\n")
	heights := "—"
	if run.FirstHeight != 0 || run.LastHeight != 0 {
		heights = fmt.Sprintf("%d … %d", run.FirstHeight, run.LastHeight)
	}
	testnet := [][]string{
		{"CometBFT version", run.CometBFTVersion},
		{"app", appText(run.App, run.AppConfig)},
	}
	testnet = slices.Insert(testnet, 1, sourceRows(run)...)
	if run.KeyType != "" {
		testnet = append(testnet, []string{"validator key type", codeSpan(run.KeyType)})
	}
	if run.LibP2P {
		testnet = append(testnet, []string{"p2p", "go-libp2p (QUIC over UDP)"})
	}
	m.table([]string{"testnet", "value"}, "ll", append(testnet, [][]string{
		{"cometlab version", run.CometlabVersion},
		{"heights walked", heights},
	}...))
	m.nodes(run.Nodes)

	h := run.Host
	mem := "—"
	if h.MemBytes > 0 {
		mem = strconv.FormatFloat(float64(h.MemBytes)/(1<<30), 'f', 1, 64) + " GiB"
	}
	m.f("### Host\n\n")
	m.table([]string{"hostname", "OS/arch", "CPUs", "memory", "kernel", "Go"}, "llrrll", [][]string{
		{h.Hostname, h.OS + "/" + h.Arch, strconv.Itoa(h.CPUs), mem, h.Kernel, h.Go},
	})

	m.f("### Timeline\n\n")
	m.table([]string{"started", "load start", "load end", "ended"}, "llll", [][]string{
		{fmtTime(run.Started), fmtTime(run.LoadStart), fmtTime(run.LoadEnd), fmtTime(run.Ended)},
	})

	m.f("### Manifest\n\n")
	if manifest == nil {
		m.f("%s not found.\n\n", results.ManifestFile)
		return
	}
	m.f("The resolved manifest (every default filled in):\n\n```toml\n%s", manifest)
	if !bytes.HasSuffix(manifest, []byte("\n")) {
		m.f("\n")
	}
	m.f("```\n\n")
}

// nodes writes the appendix's table of the run's nodes (none: nothing).
func (m mdWriter) nodes(nodes []results.Node) {
	if len(nodes) == 0 {
		return
	}
	var rows [][]string
	for _, n := range nodes {
		metrics := n.Metrics
		if metrics == "" {
			metrics = "—"
		}
		rows = append(rows, []string{n.Name, nodeMode(n), n.Version, n.RPC, codeSpan(n.P2P), metrics})
	}
	m.f("### Nodes\n\n")
	m.table([]string{"node", "mode", "version", "RPC", "P2P", "metrics"}, "llllll", rows)
}

// nodeMode is a node's mode with what sets it apart: "validator (twin
// of validator01) (clock +2s) (mempool app)".
func nodeMode(n results.Node) string {
	mode := n.Mode
	if n.TwinOf != "" {
		mode += " (twin of " + n.TwinOf + ")"
	}
	if n.ClockSkewS != 0 {
		mode += fmt.Sprintf(" (clock %+gs)", n.ClockSkewS)
	}
	if len(n.App) > 0 {
		mode += " (app: " + settingsText(n.App) + ")"
	}
	if n.Mempool != "" {
		mode += " (mempool " + n.Mempool + ")"
	}
	if n.AdaptiveSync {
		mode += " (adaptive sync)"
	}
	return mode
}

func (m mdWriter) results(s analysis.Summary) {
	m.f("## All figures\n\n")
	byGroup := map[string][][]string{}
	groups := analysis.Groups()
	seen := map[string]bool{}
	for _, d := range analysis.Dictionary() {
		if v, ok := s.Metrics[d.ID]; ok {
			byGroup[d.Group] = append(byGroup[d.Group], []string{d.Title, formatWithUnit(d, v), "`" + d.ID + "`"})
			seen[d.ID] = true
		}
	}
	var other []string
	for id := range s.Metrics {
		if !seen[id] {
			other = append(other, id)
		}
	}
	slices.Sort(other)
	for _, id := range other {
		byGroup["other"] = append(byGroup["other"], []string{id, formatWithUnit(metricFor(id), s.Metrics[id]), "`" + id + "`"})
	}
	if len(other) > 0 {
		groups = append(groups, "other")
	}
	for _, g := range groups {
		if len(byGroup[g]) == 0 {
			continue
		}
		m.f("### %s%s\n\n", strings.ToUpper(g[:1]), g[1:])
		m.table([]string{"metric", "value", "id"}, "lrl", byGroup[g])
	}
}

func (m mdWriter) latency(s analysis.Summary) {
	m.f("## Latency\n\n")
	m.f("*Block latency* is the commit time of the transaction's block H (the time of block H+1, BFT time) " +
		"minus the send time in its payload, as CometBFT's `loadtime report` computes it; " +
		"*observed latency* is when the target node committed the block, by the clock of the host running cometlab, minus the send time.\n\n")
	m.plot("latency.png", "mean "+metricValue(s, "block_latency_mean_ms"))
	var rows [][]string
	for _, st := range []string{"min", "mean", "stddev", "p50", "p90", "p95", "p99", "max"} {
		row := []string{st, metricValue(s, "block_latency_"+st+"_ms"), "—"}
		if _, ok := analysis.Lookup("observed_latency_" + st + "_ms"); ok {
			row[2] = metricValue(s, "observed_latency_"+st+"_ms")
		}
		rows = append(rows, row)
	}
	m.table([]string{"statistic", "block latency", "observed latency"}, "lrr", rows)
	m.plot("latency_hist.png", "")
	m.plot("latency_cdf.png", "")
}

func (m mdWriter) accounting(s analysis.Summary) {
	m.f("## Accounting\n\n")
	sent, committed := s.Metrics["sent_txs"], s.Metrics["committed_txs"]
	refused, through := s.Metrics["refused_txs"]
	switch {
	case sent == 0:
		m.f("No transaction was sent.\n\n")
	case committed == sent:
		m.f("All %s sent transactions were committed.\n\n", groupDigits(sent))
	case through:
		m.f("Of %s sent transactions, %s were committed, %s refused by the sentinel (each with an explicit error), %s rejected and %s missing (neither committed, refused nor rejected: dropped without an error).\n\n",
			groupDigits(sent), groupDigits(committed), groupDigits(refused), groupDigits(s.Metrics["rejected_txs"]), groupDigits(s.Metrics["missing_txs"]))
	default:
		m.f("Of %s sent transactions, %s were committed, %s rejected and %s missing (neither committed nor rejected: dropped without an error).\n\n",
			groupDigits(sent), groupDigits(committed), groupDigits(s.Metrics["rejected_txs"]), groupDigits(s.Metrics["missing_txs"]))
	}
	var rows [][]string
	for _, id := range []string{"sent_txs", "committed_txs", "app_succeeded_txs", "app_failed_txs", "refused_txs", "rejected_txs", "missing_txs", "duplicate_txs", "unsent_txs", "unanswered_txs", "late_sends"} {
		if _, ok := s.Metrics[id]; (id == "refused_txs" && !through) || (analysis.IsAppMetric(id) && !ok) {
			continue
		}
		rows = append(rows, []string{metricFor(id).Title, metricValue(s, id)})
	}
	m.table([]string{"fate", "transactions"}, "lr", rows)

	if len(s.Refused) > 0 {
		m.f("Refusals by the sentinel, by reason:\n\n")
		m.table([]string{"reason", "transactions"}, "lr", reasonRows(s.Refused))
	}
	if len(s.Rejected) > 0 {
		m.f("Rejections by reply message:\n\n")
		m.table([]string{"reason", "transactions"}, "lr", reasonRows(s.Rejected))
	}
	if v := s.Metrics["duplicate_txs"]; v > 0 {
		m.f("Committed more than once: %s extra copies (rows of %s flagged duplicate), not counted as committed.\n\n", groupDigits(v), results.TxsFile)
	}
	if v := s.Metrics["unsent_txs"]; v > 0 {
		m.f("Scheduled sends that could not be made (see the error column of %s): %s; they are not part of the sent count.\n\n", results.SentFile, groupDigits(v))
	}
}

func (m mdWriter) notes(s analysis.Summary) {
	if len(s.Notes) == 0 {
		return
	}
	m.f("## Notes\n\n")
	for _, n := range s.Notes {
		m.f("- %s\n", n)
	}
	m.f("\n")
}

func (m mdWriter) dictionary() {
	m.f("## Appendix: Data dictionary\n\n")
	m.f("### Figures\n\n")
	m.f("Every figure of summary.json (`metrics`, and per node under `nodes` where *per node* says so), " +
		"with its unit, which direction is better, and the run-directory files it is computed from.\n\n")
	var rows [][]string
	for _, d := range analysis.Dictionary() {
		per := ""
		switch {
		case d.PerNode:
			per = "yes"
		case d.PerPerturbation:
			per = "per perturbation"
		}
		rows = append(rows, []string{"`" + d.ID + "`", d.Title, d.Unit, d.Better.String(), per, d.Source, d.Definition})
	}
	m.table([]string{"id", "title", "unit", "better", "per node", "source", "definition"}, "lllllll", rows)
	m.f("### Plots\n\n")
	m.f("Time runs along x in seconds since the load start unless the definition says otherwise; the load window is shaded.\n\n")
	rows = nil
	for _, p := range plotSpecs() {
		def := p.def
		if note, ok := spreadNotes()[p.file]; ok && m.many {
			def += " " + note
		}
		rows = append(rows, []string{"`" + results.PlotsDir + "/" + p.file + "`", p.title, p.unit, p.source, def})
	}
	m.table([]string{"plot", "title", "y axis", "source", "definition"}, "lllll", rows)
}

// appText names the app and its settings, sorted by key:
// "e2e (vote_extension_size = 2048, vote_extensions_enable_height = 1)".
func appText(app string, settings map[string]any) string {
	if len(settings) == 0 {
		return app
	}
	return app + " (" + settingsText(settings) + ")"
}

// settingsText lists settings sorted by key: "a = 1, b = 2s".
func settingsText(settings map[string]any) string {
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s = %v", k, settings[k])
	}
	return strings.Join(parts, ", ")
}
