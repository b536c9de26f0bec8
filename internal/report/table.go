package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/cometlab/cometlab/internal/analysis"
)

// tableIDs returns the ids Table shows, in order; "" separates blocks.
func tableIDs() []string {
	return []string{
		"sent_txs", "committed_txs", "app_succeeded_txs", "app_failed_txs", "refused_txs", "rejected_txs", "missing_txs", "duplicate_txs", "unsent_txs", "",
		"expected_txs", "throughput_ratio", "committed_tps", "tps_mean", "tps_stddev", "tps_max", "blocks_per_s_mean", "",
		"block_latency_min_ms", "block_latency_mean_ms", "block_latency_p50_ms", "block_latency_p99_ms", "block_latency_max_ms",
		"observed_latency_p50_ms", "observed_latency_p99_ms", "",
		"late_sends", "send_lag_p99_ms", "",
		"mempool_size_max_txs", "mempool_size_end_txs", "rss_max_mib", "cpu_mean_pct", "load1_max",
		"adoption_p50_ms", "adoption_p100_ms", "nodes_behind",
	}
}

// Table writes the key figures of s as an aligned text table for a
// terminal: one line per figure with the dictionary's title, the value
// (right-aligned) and its unit, "n/a" for a figure that was not computed;
// then the summary's anomalies and notes.
func Table(w io.Writer, s analysis.Summary) {
	type row struct{ title, value, unit string }
	var rows []row
	tw, vw := 0, 0
	for _, id := range tableIDs() {
		if id == "" {
			rows = append(rows, row{})
			continue
		}
		m := metricFor(id)
		if _, ok := s.Metrics[id]; !ok && (id == "refused_txs" || analysis.IsAppMetric(id)) {
			continue // only for runs through a sentinel, or with the app's verdicts
		}
		r := row{title: m.Title, value: "n/a"}
		if v, ok := s.Metrics[id]; ok {
			r.value = formatValue(m, v)
			if m.Unit != analysis.UnitRatio && m.Unit != analysis.UnitLoad {
				r.unit = m.Unit
			}
		}
		tw, vw = max(tw, len(r.title)), max(vw, len(r.value))
		rows = append(rows, r)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "run %s (%s)\n\n", s.RunID, s.Status)
	if lines := ScenarioLines(s); len(lines) > 0 {
		for _, line := range lines {
			fmt.Fprintf(&b, "  %s\n", strings.ReplaceAll(line, "**", ""))
		}
		b.WriteByte('\n')
	}
	safety, unsafe := SafetyLine(s)
	if unsafe {
		fmt.Fprintf(&b, "  SAFETY VIOLATION: %s\n\n", safety)
	}
	if line := IssuesLine(s); line != "" {
		fmt.Fprintf(&b, "  ISSUES DISCOVERED: %s See findings.json.\n\n", line)
	}
	if !unsafe && safety != "" {
		fmt.Fprintf(&b, "  safety: %s\n\n", safety)
	}
	if line := DisturbanceLine(s); line != "" {
		fmt.Fprintf(&b, "  HOST BUSY WITH OTHER WORK: %s\n\n", line)
	}
	if line := TimeScaleLine(s); line != "" {
		fmt.Fprintf(&b, "  %s\n\n", line)
	}
	for _, r := range rows {
		if r.title == "" {
			b.WriteByte('\n')
			continue
		}
		line := fmt.Sprintf("  %-*s  %*s %s", tw, r.title, vw, r.value, r.unit)
		b.WriteString(strings.TrimRight(line, " "))
		b.WriteByte('\n')
	}
	slow := SlowLine(s)
	if len(s.Notes)+len(s.Anomalies) > 0 || slow != "" {
		b.WriteByte('\n')
	}
	if slow != "" {
		fmt.Fprintf(&b, "slow heights: %s\n", slow)
	}
	for _, a := range s.Anomalies {
		fmt.Fprintf(&b, "anomaly: %s\n", a)
	}
	for _, n := range s.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	io.WriteString(w, b.String())
}
