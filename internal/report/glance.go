package report

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/saturation"
)

// The opening of report.md: the run's answer first, then the setup in one
// line with a link to the appendix that holds the rest.

// appendixAnchor is the heading id of "## Appendix: Experiment", as
// GitHub and HTML (parser.WithAutoHeadingID) both derive it.
const appendixAnchor = "appendix-experiment"

// verdictOf judges the run in dir by the default saturation criterion.
// The evidence comes from in and s as the sweep's does, the drain from the
// mempool series of in.Metrics (metrics.csv as analysis read it, not read
// again); when in holds no transactions (read streamed), the latency trend
// is fitted while streaming txs.csv, so that it is not held in memory.
func verdictOf(dir string, in *analysis.Input, s analysis.Summary) (saturation.Verdict, error) {
	c := saturation.DefaultCriterion()
	ev := saturation.EvidenceOf(c, *in, s, in.Metrics.Samples(saturation.MempoolMetric), nil)
	if l := in.Run.Load; in.Txs == nil && !in.Run.LoadStart.IsZero() && l.DurationS > 0 {
		fit := saturation.NewTrendFit(in.Run.LoadStart.UnixNano(), c.SteadyFrom*l.DurationS, c.SteadyTo*l.DurationS)
		err := results.ScanTxs(dir, func(txs []results.Tx) error {
			for i := range txs {
				fit.Add(&txs[i])
			}
			return nil
		})
		switch {
		case err == nil:
			t := fit.Trend().InModel(in.Run.Scale())
			ev.Trend = &t
		case !errors.Is(err, fs.ErrNotExist):
			return saturation.Verdict{}, fmt.Errorf("read %s: %w", results.TxsFile, err)
		}
	}
	return c.Judge(ev), nil
}

// TimeScaleLine says, for a run at time scale k ≠ 1 (s.TimeScale), that
// it was scaled and what that means for its figures; when time_scale =
// "auto" chose k (s.TimeScaleAuto), how, and whether the host was busier
// than its limit during the load anyway (host_busy_mean_pct above
// analysis.BusyLimitPct; for a scaled run whatever chose k, as its
// figures of time are then the busy host's); "" for a run in real time
// that "auto" did not choose. The report and the terminal summary open with it.
func TimeScaleLine(s analysis.Summary) string {
	k, auto := s.TimeScale, s.TimeScaleAuto
	if (k == 0 || k == 1) && auto == nil {
		return ""
	}
	var line string
	if k != 0 && k != 1 {
		ks := fmtFloat(k)
		line = fmt.Sprintf("Scaled in time by k = %s: every time constant ×%s, every rate ÷%s; figures are in model time.", ks, ks, ks) +
			" The plots' time axes, and what the report reads from the records rather than summary.json, keep the host's time (÷" + ks + " for the model's)."
	}
	busy, ok := s.Metrics["host_busy_mean_pct"]
	saturated := ok && busy > analysis.BusyLimitPct
	if auto == nil {
		if saturated {
			// A scaled run is meant to leave the nodes CPU to spare: a
			// saturated host makes its figures of time the host's.
			line += fmt.Sprintf(" The host was saturated: %.0f %% busy during the load (mean), above its %d %% limit, so the nodes queued for CPU"+
				" and the figures of time are upper bounds on the model's (a larger k would leave room).", busy, analysis.BusyLimitPct)
		}
		return line
	}
	line = strings.TrimSpace(line + fmt.Sprintf(` time_scale = "auto" chose k = %s: %s.`, fmtFloat(auto.Chosen), auto.Reason))
	if saturated {
		line += fmt.Sprintf(" The host was saturated anyway: %.0f %% busy during the load (mean), above its %d %% limit, so the nodes queued for CPU.",
			busy, analysis.BusyLimitPct)
	}
	return line
}

// DisturbanceLine says, when the run's host was disturbed (see
// analysis.Disturbance), by how much; "" for a quiet host or a run without
// host.csv. The report and the terminal summary open with it.
func DisturbanceLine(s analysis.Summary) string {
	pct, disturbed, _ := analysis.Disturbance(s)
	if !disturbed {
		return ""
	}
	return fmt.Sprintf("%.0f %% of the host's CPU went to neither the testnet nor cometlab during the load (mean; max %.0f %% in a second; steal %.1f %%), "+
		"above the %d %% threshold: its figures may be slower than on a quiet host.",
		pct, s.Metrics["host_other_cpu_max_pct"], s.Metrics["host_steal_mean_pct"], analysis.DisturbedPct)
}

// glance writes the title and the run's answer: first the answer of the
// scenario it played (ScenarioLines: a partition, an upgrade, an absent
// stake, a rotation), then what was committed, the throughput, the
// latency, the saturation verdict, the anomalies (the worst named) and
// the slow heights' causes (SlowLine), then the run's errors and its
// setup in one line.
func (m mdWriter) glance(run results.Run, s analysis.Summary, v saturation.Verdict) {
	m.f("# Run %s — %s\n\n", s.RunID, s.Status)
	for _, line := range ScenarioLines(s) {
		title, text, _ := strings.Cut(line, ": ")
		m.f("- **%s**: %s\n", title, text)
	}
	if line := TimeScaleLine(s); line != "" {
		m.f("- **%s** (docs/timescale.md)\n", line)
	}
	safety, unsafe := SafetyLine(s)
	if unsafe {
		m.f("- **SAFETY VIOLATION**: %s\n", safety)
	}
	if line := IssuesLine(s); line != "" {
		m.f("- **Issues discovered**: %s See [Issues discovered](#issues-discovered).\n", line)
	}
	if !unsafe && safety != "" {
		m.f("- **Safety**: %s\n", safety)
	}
	if line := DisturbanceLine(s); line != "" {
		m.f("- **Host busy with other work**: %s\n", line)
	}
	sent, committed := s.Metrics["sent_txs"], s.Metrics["committed_txs"]
	if sent == 0 {
		m.f("- **Committed**: no transaction was sent.\n")
	} else {
		m.f("- **Committed**: %s of %s sent transactions (%s expected; throughput ratio %s).\n",
			groupDigits(committed), groupDigits(sent), bareValue(s, "expected_txs"), bareValue(s, "throughput_ratio"))
	}
	offered := ""
	if e, d := s.Metrics["expected_txs"], run.Load.DurationS; e > 0 && d > 0 {
		offered = fmt.Sprintf(" against %s offered", formatWithUnit(metricFor("committed_tps"), e/d))
	}
	m.f("- **Throughput**: %s committed%s (1-second windows: mean %s, max %s).\n",
		metricValue(s, "committed_tps"), offered, metricValue(s, "tps_mean"), metricValue(s, "tps_max"))
	m.f("- **Block latency**: mean %s, p50 %s, p99 %s.\n",
		metricValue(s, "block_latency_mean_ms"), metricValue(s, "block_latency_p50_ms"), metricValue(s, "block_latency_p99_ms"))
	if v.Pass {
		m.f("- **Saturation**: kept up with its load (every check of the default saturation criterion passed; see [Saturation](#saturation)).\n")
	} else {
		var failed []string
		for _, c := range v.Checks {
			if !c.Pass {
				failed = append(failed, c.Name+" ("+c.Detail+")")
			}
		}
		m.f("- **Saturation**: did not keep up by the default saturation criterion: %s failed (see [Saturation](#saturation)).\n", strings.Join(failed, "; "))
	}
	switch n := len(s.Anomalies); n {
	case 0:
		m.f("- **Anomalies**: none.\n")
	case 1:
		m.f("- **Anomalies**: 1: %s (see [Anomalies](#anomalies)).\n", strings.TrimSuffix(s.Anomalies[0], "."))
	default:
		m.f("- **Anomalies**: %d; the worst: %s (see [Anomalies](#anomalies)).\n", n, strings.TrimSuffix(s.Anomalies[0], "."))
	}
	if line := SlowLine(s); line != "" {
		m.f("- **Slow heights**: %s See [Why these blocks were slow](#why-these-blocks-were-slow).\n", upperFirst(line))
	}
	m.f("\n")
	if len(run.Errors) > 0 {
		m.f("**Errors:**\n\n")
		for _, e := range run.Errors {
			m.f("- %s\n", e)
		}
		m.f("\n")
	}
	l := run.Load
	conns := fmt.Sprintf("%d connections", l.Connections)
	if l.Connections == 1 {
		conns = "1 connection"
	}
	load := fmt.Sprintf("%s × %s tx/s for %s s", conns, fmtFloat(l.Rate), fmtFloat(l.DurationS))
	if l.Shaped() {
		load = fmt.Sprintf("%s, %s, for %s s", conns, l.ShapeDetail, fmtFloat(l.DurationS))
	}
	if len(l.Clients) > 0 {
		var cs []string
		for _, c := range l.Clients {
			cs = append(cs, fmt.Sprintf("%s %d × %s tx/s", c.Name, c.Connections, fmtFloat(c.Rate)))
		}
		load = fmt.Sprintf("%d clients (%s) for %s s", len(cs), strings.Join(cs, ", "), fmtFloat(l.DurationS))
	}
	to := run.Target
	if run.Sentinel != nil {
		to = "the sentinel in front of " + run.Target
	}
	nodes := fmt.Sprintf("%d nodes", len(run.Nodes))
	if run.KeyType != "" && run.KeyType != "ed25519" {
		nodes += " (validator keys " + run.KeyType + ")"
	}
	if run.LibP2P {
		nodes += " on go-libp2p"
	}
	if s := syncSettings(run.Nodes); s != "" {
		nodes += " (" + s + ")"
	}
	m.f("Setup: CometBFT %s, %s, %s, to %s. The load, testnet, nodes, host, timeline and resolved manifest are in the [appendix](#%s).\n\n",
		run.CometBFTVersion, nodes, load, to, appendixAnchor)
}

// saturationChecks writes the default saturation criterion's checks on
// the run.
func (m mdWriter) saturationChecks(v saturation.Verdict) {
	m.f("## Saturation\n\n")
	m.f("The default saturation criterion (the one `cometlab sweep` and `cometlab saturate` use unless told otherwise) applied to this run:\n\n")
	var rows [][]string
	for _, c := range v.Checks {
		rows = append(rows, []string{c.Name, passText(c.Pass), c.Detail})
	}
	m.table([]string{"check", "result", "measured"}, "lll", rows)
}

func passText(ok bool) string {
	if ok {
		return "pass"
	}
	return "**fail**"
}

// syncSettings says which nodes ran a mempool other than flood or adaptive
// sync ("mempool app on 4 nodes, adaptive sync on validator04"), "" when
// none did.
func syncSettings(nodes []results.Node) string {
	count := func(want func(results.Node) bool) string {
		var names []string
		for _, n := range nodes {
			if want(n) {
				names = append(names, n.Name)
			}
		}
		switch {
		case len(names) == 0:
			return ""
		case len(names) == len(nodes):
			return fmt.Sprintf("%d nodes", len(names))
		case len(names) <= 3:
			return strings.Join(names, ", ")
		}
		return fmt.Sprintf("%d of %d nodes", len(names), len(nodes))
	}
	var parts []string
	for _, kind := range []string{"app", "nop"} {
		if on := count(func(n results.Node) bool { return n.Mempool == kind }); on != "" {
			parts = append(parts, "mempool "+kind+" on "+on)
		}
	}
	if on := count(func(n results.Node) bool { return n.AdaptiveSync }); on != "" {
		parts = append(parts, "adaptive sync on "+on)
	}
	return strings.Join(parts, ", ")
}
