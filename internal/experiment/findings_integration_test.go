package experiment_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/report"
	"github.com/cometlab/cometlab/internal/results"
)

// checkFindings checks a real run's issues: findings.json scanned every
// node's log, cometlab's own row is in resources.csv with its share of
// the host stated in the report, and the report's and the terminal
// summary's first lines name the node that crashed (crashed != "") or,
// for a healthy run, no issue at all (its routine error lines counted,
// not shouted).
func checkFindings(t *testing.T, dir string, s analysis.Summary, crashed string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, results.FindingsFile))
	if err != nil {
		t.Fatal(err)
	}
	var f analysis.Findings
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Logs) < 4 {
		t.Errorf("findings.json scanned %d logs, want every node's", len(f.Logs))
	}
	for _, lf := range f.Logs {
		if lf.Lines == 0 {
			t.Errorf("%s: no line scanned", lf.File)
		}
	}
	t.Logf("issues: %+v", f.Issues)
	md, err := os.ReadFile(filepath.Join(dir, results.ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(md), "\n", 4)
	var table bytes.Buffer
	report.Table(&table, s)
	termLines := strings.SplitN(table.String(), "\n", 4)
	if crashed == "" {
		if len(f.Alarms()) > 0 || len(s.Issues) > 0 || strings.Contains(lines[2], "Issues discovered") || strings.Contains(termLines[2], "ISSUES") {
			t.Errorf("a healthy run reports issues: %v\n%s", s.Issues, lines[2])
		}
		if _, ok := s.Metrics["log_error_lines"]; !ok || s.Metrics["log_panics"] != 0 {
			t.Errorf("log figures %v", s.Metrics)
		}
	} else {
		want := crashed + " crashed"
		if !strings.HasPrefix(lines[2], "- **Issues discovered**: "+want) {
			t.Errorf("report's first line %q does not say %q", lines[2], want)
		}
		if !strings.HasPrefix(termLines[2], "  ISSUES DISCOVERED: "+want) {
			t.Errorf("terminal's first line %q does not say %q", termLines[2], want)
		}
		if s.Metrics["node_exits"] < 1 {
			t.Errorf("node_exits %v", s.Metrics["node_exits"])
		}
	}
	rows, err := results.ReadResources(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range rows {
		if r.Node == results.HarnessProcess && r.RSS > 0 {
			n++
		}
	}
	if n == 0 {
		t.Error("resources.csv has no row of cometlab itself")
	}
	if v, ok := s.Metrics["harness_host_share_pct"]; !ok || v <= 0 || !strings.Contains(string(md), "cometlab itself (load generator") {
		t.Errorf("harness share %v (%v); report states it: %v", v, ok, strings.Contains(string(md), "cometlab itself"))
	}
	t.Logf("cometlab: %.1f %% of one core, %.1f %% of the host, RSS max %.0f MiB", s.Metrics["harness_cpu_mean_pct"], s.Metrics["harness_host_share_pct"], s.Metrics["harness_rss_max_mib"])
}
