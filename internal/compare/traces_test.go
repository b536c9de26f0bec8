package compare

import (
	"math"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
)

// TestTracesFollowBlocks: blocks every 1.2 s with 100 transactions each
// are 50 blocks/min and 5,000 txs/min at every point of the traces — the
// 5-s windows they replace alternated 48 and 60 (4 or 5 blocks a window);
// the mempool trace is the mean over nodes after each height, from
// mempool.csv, even when metrics.csv has scrapes.
func TestTracesFollowBlocks(t *testing.T) {
	start := time.Unix(1000, 0)
	in := analysis.Input{Run: results.Run{LoadStart: start}}
	const interval = 1200 * time.Millisecond
	for h := int64(1); h <= 60; h++ {
		at := start.Add(time.Duration(h) * interval).UnixNano()
		in.Blocks = append(in.Blocks, results.Block{Height: h, Time: at, RunTxs: 100})
		in.Mempool = append(in.Mempool,
			results.MempoolSample{Height: h, Node: "a", At: at + 1e6, Txs: 10},
			results.MempoolSample{Height: h, Node: "b", At: at + 2e6, Txs: 30})
	}
	scraped := []results.Metric{{Time: start.UnixNano(), Node: "a", Name: "cometbft_mempool_size", Value: 999}}
	tr := Traces(in, scraped, nil)
	for name, want := range map[string]float64{TraceBlocksPerMin: 50, TraceTxsPerMin: 5000, TraceMempool: 20} {
		got := tr[name]
		if len(got.X) < 40 {
			t.Errorf("%s: %d points", name, len(got.X))
			continue
		}
		for i, y := range got.Y {
			if math.Abs(y-want) > 1e-6 {
				t.Errorf("%s: point %d at %.1f s is %v, want %v", name, i, got.X[i], y, want)
				break
			}
		}
	}
	if x := tr[TraceMempool].X[0]; math.Abs(x-1.201) > 1e-9 {
		t.Errorf("first mempool point at %v s, want 1.201 (height 1's first sample)", x)
	}
}
