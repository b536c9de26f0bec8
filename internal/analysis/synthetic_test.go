package analysis

import "github.com/cometlab/cometlab/internal/results/resultstest"

// synthetic is resultstest.Synthetic as an Input.
func synthetic(conns, perConn int, rate float64, dups bool) Input {
	r := resultstest.Synthetic(conns, perConn, rate, dups)
	return Input{Run: r.Run, Sent: r.Sent, Replies: r.Replies, Txs: r.Txs, Blocks: r.Blocks, Adoption: r.Adoption,
		Metrics: NewSeriesSet(r.Metrics), Resources: r.Resources, Host: r.Host}
}
