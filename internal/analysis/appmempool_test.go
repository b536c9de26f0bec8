package analysis

import (
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/results"
)

// TestSyncFigures: the app mempool's and adaptive sync's figures come from
// their counters on the nodes that ran them, 0 where such a node counted
// nothing, and are absent for a run without them; the app and nop nodes
// are left out of the mempool size figures, with a note.
func TestSyncFigures(t *testing.T) {
	const s = int64(1e9)
	row := func(at int64, node, name string, v float64) results.Metric {
		return results.Metric{Time: at * s, Node: node, Name: "cometbft_" + name, Value: v}
	}
	var rows []results.Metric
	for _, n := range []string{"v1", "v2", "v3", "v4"} {
		rows = append(rows, row(1, n, "consensus_height", 1), row(9, n, "consensus_height", 9),
			row(1, n, "mempool_size", 0), row(9, n, "mempool_size", 7))
	}
	rows = append(rows, row(5, "v1", "mempool_size", 99), // left out where v1 keeps no mempool
		row(1, "v1", "mempool_reaped_txs", 10), row(9, "v1", "mempool_reaped_txs", 110),
		row(1, "v3", "blocksync_ingested_blocks", 0), row(9, "v3", "blocksync_ingested_blocks", 40),
		row(1, "v3", "blocksync_already_included_blocks", 1), row(9, "v3", "blocksync_already_included_blocks", 3),
		row(1, "v3", "blocksync_ingested_block_duration_sum", 0), row(9, "v3", "blocksync_ingested_block_duration_sum", 0.2),
		row(1, "v3", "blocksync_ingested_block_duration_count", 0), row(9, "v3", "blocksync_ingested_block_duration_count", 40))
	nodes := []string{"v1", "v2", "v3", "v4"}
	cases := []struct {
		name string
		run  []results.Node
		want map[string]float64 // run-wide; absent ids must be absent
		node map[string]float64 // v2's
		note string
	}{
		{"flood, no adaptive sync", []results.Node{{Name: "v1"}, {Name: "v2"}, {Name: "v3"}, {Name: "v4"}},
			map[string]float64{"mempool_size_max_txs": 99}, nil, ""},
		{"app mempool and adaptive sync",
			[]results.Node{{Name: "v1", Mempool: "app"}, {Name: "v2", Mempool: "app"}, {Name: "v3", AdaptiveSync: true}, {Name: "v4", Mempool: "nop"}},
			map[string]float64{"mempool_reaped_txs": 100, "blocksync_ingested_blocks": 40, "blocksync_already_included_blocks": 2,
				"blocksync_ingest_mean_ms": 5, "mempool_size_max_txs": 7},
			map[string]float64{"mempool_reaped_txs": 0}, "mempool size figures leave out v1 (app), v2 (app), v4 (nop)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := Input{Run: results.Run{Nodes: c.run}, Metrics: NewSeriesSet(rows)}
			b := &builder{s: &Summary{Metrics: map[string]float64{}}}
			mempoolFigures(in.Metrics, b, withMempool(in, b, nodes), 0, 0)
			syncFigures(in, in.Metrics, b, nodes)
			for _, m := range syncDictionary() {
				want, ok := c.want[m.ID]
				got, has := b.s.Metrics[m.ID]
				if ok != has || got != want {
					t.Errorf("%s = %v (present %v), want %v (present %v)", m.ID, got, has, want, ok)
				}
			}
			if got := b.s.Metrics["mempool_size_max_txs"]; got != c.want["mempool_size_max_txs"] {
				t.Errorf("mempool_size_max_txs = %v, want %v", got, c.want["mempool_size_max_txs"])
			}
			for id, want := range c.node {
				if got, ok := b.s.Nodes["v2"][id]; !ok || got != want {
					t.Errorf("v2 %s = %v (%v), want %v", id, got, ok, want)
				}
			}
			notes := strings.Join(b.s.Notes, "\n")
			if c.note != "" && !strings.Contains(notes, c.note) || c.note == "" && strings.Contains(notes, "leave out") {
				t.Errorf("notes %q, want %q", notes, c.note)
			}
		})
	}
}
