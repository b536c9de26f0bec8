package report

import (
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
	"github.com/cometlab/cometlab/internal/saturation"
)

// TestVerdictStreamed checks that the report's saturation verdict from a
// streamed reading (txs.csv and metrics.csv scanned, not held) is the one
// the sweep gets from the whole records.
func TestVerdictStreamed(t *testing.T) {
	for _, dir := range []string{smallRun, qaRun} {
		full, err := analysis.ReadInput(dir)
		if err != nil {
			t.Fatal(err)
		}
		s := analysis.Summarize(full)
		metrics, err := results.ReadMetrics(dir)
		if err != nil {
			t.Fatal(err)
		}
		c := saturation.DefaultCriterion()
		want := c.Judge(saturation.EvidenceOf(c, full, s, metrics, nil))
		stream, err := analysis.ReadStream(dir)
		if err != nil {
			t.Fatal(err)
		}
		got, err := verdictOf(dir, &stream, s)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: streamed verdict\n%+v\nwant\n%+v", dir, got, want)
		}
		if strings.Contains(checkDetail(got, saturation.CheckLatency), "not tested") {
			t.Errorf("%s: latency trend not tested: %s", dir, checkDetail(got, saturation.CheckLatency))
		}
	}
}

// TestReportReadsMetricsOnce: given the records analysis read (as a run
// and `cometlab report` give them), Write does not read metrics.csv again:
// the file made unreadable afterwards changes nothing in report.md, which
// is still its golden.
func TestReportReadsMetricsOnce(t *testing.T) {
	for _, c := range []struct{ dir, golden string }{{smallRun, "small"}, {qaRun, "qa"}} {
		t.Run(c.golden, func(t *testing.T) {
			dir := copyRun(t, c.dir)
			s, in, err := analysis.AnalyzeInput(dir)
			if err != nil {
				t.Fatal(err)
			}
			resultstest.WriteFile(t, filepath.Join(dir, results.MetricsFile), []byte("not metrics.csv\n"))
			if err := Write(dir, s, Options{Input: &in}); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(dir, results.ReportFile))
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join("testdata", c.golden, results.ReportFile+".golden"))
			if err != nil {
				t.Fatal(err)
			}
			if d := resultstest.Diff(string(want), string(got)); d != "" {
				t.Errorf("report.md differs from its golden:\n%s", d)
			}
		})
	}
}

func checkDetail(v saturation.Verdict, name string) string {
	for _, c := range v.Checks {
		if c.Name == name {
			return c.Detail
		}
	}
	return ""
}

// TestGlance checks the opening list of report.md for a run that sent
// nothing, one that kept up without anomalies and one that failed with
// several.
func TestGlance(t *testing.T) {
	run := results.Run{CometBFTVersion: "v0.38.26", Target: "validator00",
		Load:  results.Load{Connections: 1, Rate: 20, DurationS: 30},
		Nodes: []results.Node{{Name: "validator00"}, {Name: "validator01"}}}
	pass := saturation.Verdict{Pass: true, Checks: []saturation.Check{{Name: "throughput", Pass: true, Detail: "ratio 1.0000 ≥ 0.98"}}}
	fail := saturation.Verdict{Checks: []saturation.Check{{Name: "run", Pass: true, Detail: "complete"},
		{Name: "throughput", Detail: "ratio 0.5000 < 0.98"}, {Name: "drain", Detail: "mempools not empty after 10.0 s (x)"}}}
	kept := map[string]float64{"sent_txs": 600, "committed_txs": 600, "expected_txs": 600, "throughput_ratio": 1,
		"committed_tps": 20, "tps_mean": 20, "tps_max": 24, "block_latency_mean_ms": 1200, "block_latency_p50_ms": 1100, "block_latency_p99_ms": 2100}
	tests := []struct {
		name string
		s    analysis.Summary
		v    saturation.Verdict
		want []string
	}{
		{"nothing sent", analysis.Summary{Metrics: map[string]float64{"expected_txs": 600}}, fail,
			[]string{"- **Committed**: no transaction was sent.", "- **Block latency**: mean n/a, p50 n/a, p99 n/a."}},
		{"kept up", analysis.Summary{Metrics: kept}, pass, []string{
			"- **Committed**: 600 of 600 sent transactions (600 expected; throughput ratio 1.0000).",
			"- **Throughput**: 20.0 tx/s committed against 20.0 tx/s offered (1-second windows: mean 20.0 tx/s, max 24.0 tx/s).",
			"- **Block latency**: mean 1200.0 ms, p50 1100.0 ms, p99 2100.0 ms.",
			"- **Saturation**: kept up with its load",
			"- **Anomalies**: none.",
			"Setup: CometBFT v0.38.26, 2 nodes, 1 connection × 20 tx/s for 30 s, to validator00.",
			"[appendix](#appendix-experiment)"}},
		{"slow heights", analysis.Summary{Metrics: slowFigures(kept), Autopsy: []results.Verdict{
			{Height: 7, Round: 1, IntervalMs: 4210.4, Cause: "proposer_absent", Node: "validator01"},
			{Height: 9, IntervalMs: 2503, Cause: "mempool_full", Node: "validator00"}}}, pass, []string{
			"- **Slow heights**: Overloaded, a mempool full at 5 of 25 heights; 3 of 25 heights slow: 2 mempool_full, 1 proposer_absent; " +
				"the slowest, height 7 (4,210 ms, round 1), proposer_absent on validator01. See [Why these blocks were slow](#why-these-blocks-were-slow)."}},
		{"no slow height", analysis.Summary{Metrics: func() map[string]float64 {
			m := slowFigures(kept)
			m["slow_heights"], m["mempool_full_heights"] = 0, 0
			return m
		}()}, pass, []string{"- **Slow heights**: None of 25 heights slow. See"}},
		{"failed", analysis.Summary{Metrics: kept, Anomalies: []string{"v1 exited.", "3 txs missing"}}, fail, []string{
			"- **Saturation**: did not keep up by the default saturation criterion: throughput (ratio 0.5000 < 0.98); drain (mempools not empty after 10.0 s (x)) failed",
			"- **Anomalies**: 2; the worst: v1 exited (see [Anomalies](#anomalies))."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			mdWriter{w: &b}.glance(run, tt.s, tt.v)
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("opening lacks %q:\n%s", w, b.String())
				}
			}
		})
	}
}

// slowFigures is kept with the autopsy's figures of 25 heights: 3 slow
// (2 mempool_full, 1 proposer_absent), a mempool full at 5.
func slowFigures(kept map[string]float64) map[string]float64 {
	m := maps.Clone(kept)
	m["blocks"], m["slow_heights"], m["mempool_full_heights"] = 25, 3, 5
	m["slow_heights_mempool_full"], m["slow_heights_proposer_absent"] = 2, 1
	return m
}
