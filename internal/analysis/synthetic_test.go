package analysis

import (
	"fmt"

	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

func synthetic(conns, perConn int, rate float64, dups bool) Input {
	r := resultstest.Synthetic(conns, perConn, rate, dups)
	return Input{Run: r.Run, Sent: r.Sent, Replies: r.Replies, Txs: r.Txs, Blocks: r.Blocks, Adoption: r.Adoption,
		Metrics: NewSeriesSet(r.Metrics), Resources: r.Resources, Host: r.Host}
}

// agreedHashes is what nodes that agree at every height of blocks write
// to hashes.csv.
func agreedHashes(blocks []results.Block, nodes ...string) []results.HashRow {
	var rows []results.HashRow
	for _, b := range blocks {
		for _, n := range nodes {
			rows = append(rows, results.HashRow{Height: b.Height, Node: n, BlockHash: fmt.Sprintf("B%X", b.Height),
				AppHash: fmt.Sprintf("A%X", b.Height), Source: results.HashFromHeader})
		}
	}
	return rows
}
