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

// TestTracesHalt: a chain that halted for 20 s (blocks every 1.2 s, none
// from 20 s to 40 s) has a blocks-per-minute trace that reaches 0 in the
// halt, not a line from before it to after it.
func TestTracesHalt(t *testing.T) {
	start := time.Unix(1000, 0)
	in := analysis.Input{Run: results.Run{LoadStart: start}}
	for h, at := int64(1), 1200*time.Millisecond; at < 60*time.Second; at += 1200 * time.Millisecond {
		if at > 20*time.Second && at < 40*time.Second {
			continue
		}
		in.Blocks = append(in.Blocks, results.Block{Height: h, Time: start.Add(at).UnixNano(), RunTxs: 100})
		h++
	}
	zero, tr := 0, Traces(in, nil, nil)[TraceBlocksPerMin]
	for i, x := range tr.X {
		if x > 20 && x < 40 && tr.Y[i] == 0 {
			zero++
		}
	}
	if zero == 0 {
		t.Errorf("blocks per minute never 0 in the halt from 20 to 40 s")
	}
}

// TestTracesHost: the node processes' CPU and peers averaged over the
// nodes, the host's load1, and each height's round at its commit.
func TestTracesHost(t *testing.T) {
	start := time.Unix(1000, 0)
	in := analysis.Input{Run: results.Run{LoadStart: start}}
	var res []results.Resource
	var met []results.Metric
	for s := int64(0); s < 10; s++ {
		at := start.UnixNano() + s*1e9 + 5e8
		res = append(res, results.Resource{Time: at, Node: "a", CPU: 10, Load1: 2.5}, results.Resource{Time: at + 1e6, Node: "b", CPU: 30, Load1: 2.5})
		met = append(met, results.Metric{Time: at, Node: "a", Name: "cometbft_p2p_peers", Value: 3}, results.Metric{Time: at, Node: "b", Name: "cometbft_p2p_peers", Value: 5})
		in.Blocks = append(in.Blocks, results.Block{Height: s + 1, Time: at, Round: int32(s / 9)})
	}
	tr := Traces(in, met, res)
	for name, want := range map[string]float64{TraceCPU: 20, TraceLoad1: 2.5, TracePeers: 4} {
		if got := tr[name]; len(got.Y) != 10 || got.Y[0] != want || got.Y[9] != want {
			t.Errorf("%s: %v, want 10 points of %v", name, got.Y, want)
		}
	}
	if got := tr[TraceRounds]; len(got.Y) != 10 || got.Y[8] != 0 || got.Y[9] != 1 {
		t.Errorf("rounds %v, want 0 × 9 then 1", got.Y)
	}
}
