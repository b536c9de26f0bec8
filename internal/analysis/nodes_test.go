package analysis

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// nodeModel returns the synthetic nodes of in (resultstest.Records.Nodes).
func nodeModel(in Input) *resultstest.Nodes {
	return resultstest.Records{Run: in.Run, Blocks: in.Blocks, Adoption: in.Adoption}.Nodes()
}

// metricRows returns the metrics.csv rows of in's synthetic nodes.
func metricRows(in Input) []results.Metric {
	var rows []results.Metric
	nodeModel(in).Generate(func(m *results.Metric) error {
		rows = append(rows, *m)
		return nil
	}, nil)
	return rows
}

func TestNodeFigures(t *testing.T) {
	in := synthetic(2, 600, 20, false)
	base := Summarize(in)
	for _, id := range []string{"peers_min", "mempool_size_max_txs", "rss_max_mib", "cpu_mean_pct", "data_dir_end_mib", "block_processing_time_mean_ms"} {
		for _, n := range []string{"n0", "n1"} {
			if _, ok := base.Nodes[n][id]; !ok {
				t.Errorf("%s of %s missing", id, n)
			}
		}
	}
	if got := base.Metrics["peers_min"]; got != 1 {
		t.Errorf("peers_min = %v, want 1 (two nodes)", got)
	}
	if got := base.Metrics["mempool_rejected_txs"]; got != 3 {
		t.Errorf("mempool_rejected_txs = %v, want 3", got)
	}
	if got := base.Metrics["mempool_size_end_txs"]; got != 0 {
		t.Errorf("mempool_size_end_txs = %v, want 0", got)
	}

	tests := []struct {
		name      string
		model     func(m *resultstest.Nodes)
		anomalies []string
		notes     []string
		want      map[string]float64
	}{
		{
			name:      "mempool not drained",
			model:     func(m *resultstest.Nodes) { m.Leftover = map[string]int{"n1": 42} },
			anomalies: []string{"the mempool of n1 still held 42 transactions at its last sample"},
			want:      map[string]float64{"mempool_size_end_txs": 42},
		},
		{
			name:  "node dies halfway",
			model: func(m *resultstest.Nodes) { m.Stop = map[string]int64{"n1": m.LoadStart + 15*int64(time.Second)} },
			anomalies: []string{
				"n1 has no sample in metrics.csv from 14.0 s to ",
				"n1 has no sample in resources.csv from 14.0 s to ",
				"n1's consensus height ended at",
			},
			notes: []string{"the last mempool sample of n1 is from 14.0 s after the load start, before the load ended"},
		},
		{
			name:      "node without metrics",
			model:     func(m *resultstest.Nodes) { m.NoMetrics = []string{"n1"} },
			anomalies: []string{"n1 has no sample in metrics.csv at all: run.json gives it no metrics endpoint"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := synthetic(2, 600, 20, false)
			m := nodeModel(in)
			tt.model(m)
			var rows []results.Metric
			in.Resources = nil
			m.Generate(func(r *results.Metric) error { rows = append(rows, *r); return nil },
				func(r *results.Resource) error { in.Resources = append(in.Resources, *r); return nil })
			in.Metrics = NewSeriesSet(rows)
			s := Summarize(in)
			checkSummary(t, s)
			for _, a := range tt.anomalies {
				if !slices.ContainsFunc(s.Anomalies, func(x string) bool { return strings.Contains(x, a) }) {
					t.Errorf("no anomaly contains %q; anomalies: %q", a, s.Anomalies)
				}
			}
			for _, n := range tt.notes {
				if !slices.ContainsFunc(s.Notes, func(x string) bool { return strings.Contains(x, n) }) {
					t.Errorf("no note contains %q; notes: %q", n, s.Notes)
				}
			}
			for id, want := range tt.want {
				if got := s.Metrics[id]; got != want {
					t.Errorf("%s = %v, want %v", id, got, want)
				}
			}
		})
	}
}

func TestResourcesFromMetrics(t *testing.T) {
	in := synthetic(2, 200, 20, false)
	in.Resources = nil
	in.Missing = []string{results.ResourceFile}
	s := Summarize(in)
	for _, id := range []string{"rss_max_mib", "cpu_mean_pct", "cpu_max_pct"} {
		if _, ok := s.Metrics[id]; !ok {
			t.Errorf("%s not computed from process_* series", id)
		}
	}
	for _, id := range []string{"data_dir_end_mib", "load1_max"} {
		if _, ok := s.Metrics[id]; ok {
			t.Errorf("%s computed without resources.csv", id)
		}
	}
	if !slices.ContainsFunc(s.Notes, func(x string) bool { return strings.Contains(x, "taken from the nodes' process_* metrics") }) {
		t.Errorf("no note on the fallback: %q", s.Notes)
	}
}

// TestAppProcesses checks that an external app's process, sampled in
// resources.csv beside its node, is a row of the resource figures but not
// a node, and stays out of the run-wide figures.
func TestAppProcesses(t *testing.T) {
	in := Input{Run: results.Run{Nodes: []results.Node{{Name: "v1"}, {Name: "v2"}}}}
	for i, r := range []struct {
		node string
		rss  float64
	}{{"v1", 100}, {"v1/app", 10}, {"v2", 200}, {"v2/app", 20}} {
		for k := range 3 {
			in.Resources = append(in.Resources, results.Resource{Time: int64(k+1) * 1e9, Node: r.node, RSS: int64(r.rss * mib), CPU: float64(i)})
		}
	}
	if got := RunNodes(in); !slices.Equal(got, []string{"v1", "v2"}) {
		t.Errorf("RunNodes %v, want the two nodes", got)
	}
	if got := RunProcesses(in); !slices.Equal(got, []string{"v1", "v2", "v1/app", "v2/app"}) {
		t.Errorf("RunProcesses %v", got)
	}
	b := &builder{s: &Summary{Metrics: map[string]float64{}}}
	resourceFigures(in, b, RunProcesses(in), 0, 10e9)
	if got := b.s.Metrics["rss_max_mib"]; got != 200 {
		t.Errorf("run-wide RSS max %v MiB, want the nodes' 200", got)
	}
	if got := b.s.Metrics["rss_mean_mib"]; got != 150 {
		t.Errorf("run-wide RSS mean %v MiB, want the nodes' 150", got)
	}
	if got := b.s.Nodes["v2/app"]["rss_max_mib"]; got != 20 {
		t.Errorf("v2's app RSS max %v MiB, want 20", got)
	}
}

// TestPruningFigures checks the block store base and the anomaly of an app
// that asked for pruning on a chain that pruned nothing.
func TestPruningFigures(t *testing.T) {
	metric := func(node string, at int64, base float64) results.Metric {
		return results.Metric{Time: at, Node: node, Name: "cometbft_state_block_store_base_height", Labels: `chain_id="c"`, Value: base}
	}
	for _, tc := range []struct {
		name    string
		retain  any // run.json's app_config retain_blocks as decoded (float64) or set (int64)
		last    int64
		rows    []results.Metric
		base    float64 // want; NaN for absent
		anomaly string
		note    string
	}{
		{"pruned", float64(100), 400, []results.Metric{metric("v1", 1, 1), metric("v1", 2, 250), metric("v2", 2, 240)}, 250, "", ""},
		{"nothing pruned", int64(100), 400, []results.Metric{metric("v1", 1, 1), metric("v2", 2, 1)}, 1,
			"app.retain_blocks = 100 and the chain reached height 400, but no node pruned a block", ""},
		{"too short to prune", float64(100), 105, []results.Metric{metric("v1", 1, 1)}, 1, "", ""},
		{"no pruning asked", nil, 400, []results.Metric{metric("v1", 1, 1)}, 1, "", ""},
		{"release without the metric", float64(100), 400, nil, math.NaN(), "", "whether blocks were pruned is not checked"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := Input{Run: results.Run{LastHeight: tc.last}}
			if tc.retain != nil {
				in.Run.AppConfig = map[string]any{"retain_blocks": tc.retain}
			}
			b := &builder{s: &Summary{Metrics: map[string]float64{}}}
			pruningFigures(in, NewSeriesSet(tc.rows), b, []string{"v1", "v2"})
			got, ok := b.s.Metrics["block_store_base_height"]
			if math.IsNaN(tc.base) != !ok || (ok && got != tc.base) {
				t.Errorf("block_store_base_height %v (%v), want %v", got, ok, tc.base)
			}
			if (tc.anomaly == "") != (len(b.s.Anomalies) == 0) || (tc.anomaly != "" && !strings.Contains(b.s.Anomalies[0], tc.anomaly)) {
				t.Errorf("anomalies %q, want %q", b.s.Anomalies, tc.anomaly)
			}
			if tc.note != "" && !slices.ContainsFunc(b.s.Notes, func(n string) bool { return strings.Contains(n, tc.note) }) {
				t.Errorf("notes %q, want %q", b.s.Notes, tc.note)
			}
		})
	}
}

// TestProposalTimeFigures: v1.0's proposal timestamp difference, a
// histogram by is_timely, gives the mean over every proposal and the
// untimely ones; a release without it gives neither.
func TestProposalTimeFigures(t *testing.T) {
	m := func(node, name, timely string, at int64, v float64) results.Metric {
		return results.Metric{Time: at, Node: node, Name: "cometbft_consensus_proposal_timestamp_difference_" + name,
			Labels: "chain_id=c;is_timely=" + timely, Value: v}
	}
	rows := []results.Metric{
		// v1: 10 timely proposals in the run, 0.3 s late in all (30 ms each).
		m("v1", "sum", "true", 1, 0.1), m("v1", "count", "true", 1, 2), m("v1", "sum", "true", 2, 0.4), m("v1", "count", "true", 2, 12),
		// v2: 4 timely (0.2 s in all) and 2 untimely (1.8 s in all).
		m("v2", "sum", "true", 1, 0), m("v2", "count", "true", 1, 0), m("v2", "sum", "true", 2, 0.2), m("v2", "count", "true", 2, 4),
		m("v2", "sum", "false", 1, 0), m("v2", "count", "false", 1, 0), m("v2", "sum", "false", 2, 1.8), m("v2", "count", "false", 2, 2),
	}
	b := &builder{s: &Summary{Metrics: map[string]float64{}}}
	proposalTimeFigures(NewSeriesSet(rows), b, []string{"v1", "v2"})
	// (0.3 + 0.2 + 1.8) s over 16 proposals.
	want := map[string]float64{"untimely_proposals": 2, "proposal_timestamp_diff_mean_ms": 2300.0 / 16}
	for id, v := range want {
		if got, ok := b.s.Metrics[id]; !ok || math.Abs(got-v) > 1e-9 {
			t.Errorf("%s = %v (%v), want %v", id, got, ok, v)
		}
	}
	b = &builder{s: &Summary{Metrics: map[string]float64{}}}
	proposalTimeFigures(NewSeriesSet(nil), b, []string{"v1"})
	if len(b.s.Metrics) != 0 {
		t.Errorf("a release without the series: %v, want no figure", b.s.Metrics)
	}
}
