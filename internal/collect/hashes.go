package collect

import (
	"context"
	"time"

	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/rpc"
)

// HashesTimeout bounds the questions to each node at the end (/status and
// /abci_info).
const HashesTimeout = 2 * time.Second

// RecordHashes makes h write, for every header it hears, the hashes the
// node committed (hashes.csv): from node n's header of height H+1, block
// H's hash and the app hash after H. When h's Run ends it also asks every
// node once for its latest block hash (/status) and its app's last app
// hash (/abci_info): a node whose app diverged halts before any header
// carries its app hash, and only the app row names it. Call it before Run.
func (h *Heights) RecordHashes(w *results.Writer) { h.hashes = w }

// headerRow is the hashes.csv row of node's header hd: block hd.Height−1.
func headerRow(node string, hd rpc.Header) *results.HashRow {
	return &results.HashRow{Height: hd.Height - 1, Node: node, BlockHash: hd.LastBlockHash, AppHash: hd.AppHash, Source: results.HashFromHeader}
}

// finalHashes asks each node its latest block hash and its app's app hash
// and writes a row for each answer; a node that does not answer (stopped,
// or its RPC down) has none.
func (h *Heights) finalHashes(ctx context.Context) {
	for _, n := range h.nodes {
		c := rpc.New(n.Addr)
		qctx, cancel := context.WithTimeout(ctx, HashesTimeout)
		if st, err := c.Status(qctx); err == nil && st.SyncInfo.LatestBlockHash != "" {
			h.hashes.Write(&results.HashRow{Height: int64(st.SyncInfo.LatestBlockHeight), Node: n.Name,
				BlockHash: st.SyncInfo.LatestBlockHash, Source: results.HashFromStatus})
		} else if err != nil {
			h.logger.Debug("hashes: status", "node", n.Name, "err", err)
		}
		if ai, err := c.ABCIInfo(qctx); err == nil && ai.LastBlockHeight > 0 {
			h.hashes.Write(&results.HashRow{Height: ai.LastBlockHeight, Node: n.Name, AppHash: ai.LastBlockAppHash, Source: results.HashFromApp})
		} else if err != nil {
			h.logger.Debug("hashes: abci_info", "node", n.Name, "err", err)
		}
		cancel()
	}
}
