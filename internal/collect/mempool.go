package collect

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/rpc"
)

// MempoolTimeout bounds each question to a node's mempool after a commit.
const MempoolTimeout = 2 * time.Second

// mempoolSampler asks a node's mempool size each time the node commits a
// height (mempool.csv), so that the series has one point per block at the
// moment that matters (right after the commit has removed the block's
// transactions) instead of scrapes at a fixed interval that beat against
// the block interval. At most one question is in flight per node: a
// commit heard while the previous one is unanswered is skipped (a gap).
type mempoolSampler struct {
	w       *results.Writer
	timeout time.Duration
	nodes   map[string]*mempoolNode
	wg      sync.WaitGroup
}

type mempoolNode struct {
	client  *rpc.Client
	busy    atomic.Bool
	rows    atomic.Int64
	skipped atomic.Int64
	failed  atomic.Int64
	lastErr atomic.Value // string
}

// MempoolStats is what the sampler did for one node.
type MempoolStats struct {
	Node      string
	Rows      int64  // samples written
	Skipped   int64  // commits heard while the previous question was unanswered
	Failures  int64  // questions that failed or timed out
	LastError string // of the last failure
}

// SampleMempools makes h ask each node's num_unconfirmed_txs as soon as it
// hears the node commit a height, writing one row per answer to w
// (mempool.csv), each question within timeout (MempoolTimeout when 0).
// Call it before Run.
func (h *Heights) SampleMempools(w *results.Writer, timeout time.Duration) {
	if timeout <= 0 {
		timeout = MempoolTimeout
	}
	s := &mempoolSampler{w: w, timeout: timeout, nodes: map[string]*mempoolNode{}}
	for _, n := range h.nodes {
		s.nodes[n.Name] = &mempoolNode{client: rpc.New(n.Addr)}
	}
	h.mempool = s
}

// MempoolStats returns, per node in the watcher's order, what the mempool
// sampler did; nil without one.
func (h *Heights) MempoolStats() []MempoolStats {
	if h.mempool == nil {
		return nil
	}
	var out []MempoolStats
	for _, n := range h.nodes {
		m := h.mempool.nodes[n.Name]
		e, _ := m.lastErr.Load().(string)
		out = append(out, MempoolStats{Node: n.Name, Rows: m.rows.Load(), Skipped: m.skipped.Load(), Failures: m.failed.Load(), LastError: e})
	}
	return out
}

// sample asks node's mempool after its commit of height, unless a question
// to it is still in flight.
func (s *mempoolSampler) sample(ctx context.Context, node string, height int64) {
	m := s.nodes[node]
	if m == nil {
		return
	}
	if !m.busy.CompareAndSwap(false, true) {
		m.skipped.Add(1)
		return
	}
	s.wg.Go(func() {
		defer m.busy.Store(false)
		at := time.Now()
		cctx, cancel := context.WithTimeout(ctx, s.timeout)
		txs, bytes, err := m.client.MempoolSize(cctx)
		cancel()
		if err != nil {
			if ctx.Err() == nil {
				m.failed.Add(1)
				m.lastErr.Store(err.Error())
			}
			return
		}
		s.w.Write(&results.MempoolSample{Height: height, Node: node, At: at.UnixNano(), Txs: txs, Bytes: bytes})
		m.rows.Add(1)
	})
}

// wait waits for the questions in flight and flushes the file.
func (s *mempoolSampler) wait() error {
	s.wg.Wait()
	return s.w.Flush()
}
