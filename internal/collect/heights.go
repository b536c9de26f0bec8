package collect

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/rpc"
)

// Endpoint names a node's RPC address.
type Endpoint struct {
	Name string
	Addr string // http://host:port
}

// Heights follows new block headers on every node and records, for each
// node and height, the local time the node had committed it (adoption.csv).
// A broken subscription (a node that stopped) is retried every second;
// heights missed meanwhile are a gap, not an error. With SampleMempools,
// each commit heard also asks the node's mempool size (mempool.csv); with
// RecordHashes, each header's hashes are written (hashes.csv); with
// SampleCPUAtCommits, the node's processes' CPU times (commitcpu.csv).
type Heights struct {
	nodes  []Endpoint
	w      *results.Writer
	logger *slog.Logger

	mu     sync.Mutex
	latest map[string]int64

	mempool *mempoolSampler // nil unless SampleMempools was called
	hashes  *results.Writer // nil unless RecordHashes was called
	cpu     *cpuAtCommit    // nil unless SampleCPUAtCommits was called
}

// NewHeights returns a watcher writing to w.
func NewHeights(nodes []Endpoint, w *results.Writer, logger *slog.Logger) *Heights {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Heights{nodes: nodes, w: w, logger: logger, latest: map[string]int64{}}
}

// Run follows every node until ctx ends.
func (h *Heights) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	for _, n := range h.nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.follow(ctx, n)
		}()
	}
	wg.Wait()
	if h.hashes != nil {
		h.finalHashes(context.WithoutCancel(ctx))
	}
	var merr error
	if h.mempool != nil {
		merr = h.mempool.wait()
	}
	var herr, cerr error
	if h.hashes != nil {
		herr = h.hashes.Flush()
	}
	if h.cpu != nil {
		cerr = h.cpu.w.Flush()
	}
	return errors.Join(h.w.Flush(), merr, herr, cerr)
}

func (h *Heights) follow(ctx context.Context, n Endpoint) {
	for ctx.Err() == nil {
		err := rpc.SubscribeHeaders(ctx, n.Addr, func(hd rpc.Header, at time.Time) {
			height := hd.Height
			if h.hashes != nil && height > 1 {
				h.hashes.Write(headerRow(n.Name, hd))
			}
			h.mu.Lock()
			if height > h.latest[n.Name] {
				h.latest[n.Name] = height
			}
			h.mu.Unlock()
			h.w.Write(&results.Adoption{Height: height, Node: n.Name, At: at.UnixNano()})
			if h.cpu != nil {
				h.cpu.sample(n.Name, height, at)
			}
			if h.mempool != nil {
				h.mempool.sample(ctx, n.Name, height)
			}
		})
		if ctx.Err() != nil {
			return
		}
		h.logger.Debug("height subscription broken; retrying", "node", n.Name, "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// Latest returns the highest height seen on node name.
func (h *Heights) Latest(name string) int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.latest[name]
}
