package analysis

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/cometlab/cometlab/internal/results"
)

// ClientSummary is one load client's accounting and latency (a run with
// [[load.client]] tables): every transaction it sent is committed,
// refused (by a gateway's limit, with its reason), rejected (by the node)
// or missing.
type ClientSummary struct {
	Name string `json:"name"`
	Key  string `json:"key"`
	// OfferedTPS is the client's asked-for rate: connections × rate.
	OfferedTPS float64 `json:"offered_tps"`
	Sent       int64   `json:"sent_txs"`
	Unsent     int64   `json:"unsent_txs"`
	Committed  int64   `json:"committed_txs"`
	Refused    int64   `json:"refused_txs"`
	Rejected   int64   `json:"rejected_txs"`
	Missing    int64   `json:"missing_txs"`
	// CommittedTPS is Committed over the load's duration.
	CommittedTPS float64 `json:"committed_tps"`
	// Latencies in ms of its committed transactions; absent when none.
	BlockP50    *float64 `json:"block_latency_p50_ms,omitempty"`
	BlockP99    *float64 `json:"block_latency_p99_ms,omitempty"`
	ObservedP50 *float64 `json:"observed_latency_p50_ms,omitempty"`
	ObservedP99 *float64 `json:"observed_latency_p99_ms,omitempty"`
	// Reasons counts its refused and rejected transactions by message.
	Reasons map[string]int64 `json:"reasons,omitempty"`
}

// CommittedShare is the share of the client's sent transactions that were
// committed, 0 when it sent none.
func (c ClientSummary) CommittedShare() float64 {
	if c.Sent == 0 {
		return 0
	}
	return float64(c.Committed) / float64(c.Sent)
}

// clientLatency holds one client's latencies (ns) and its commits per
// second.
type clientLatency struct {
	block, observed Sketch
	perSecond       []int64 // committed txs by the second of their commit since the load start
}

// addCommit counts a commit at commit (Unix ns) of a run that started at
// start.
func (c *clientLatency) addCommit(start, commit int64) {
	if start == 0 || commit < start {
		return
	}
	k := (commit - start) / int64(results.NsPerS)
	if k >= maxOfferedSeconds {
		return
	}
	for int64(len(c.perSecond)) <= k {
		c.perSecond = append(c.perSecond, 0)
	}
	c.perSecond[k]++
}

// ClientCommits returns, for client i of the run's load, its committed
// transactions in each second since the load start (by their commit
// time); nil without clients.
func (a *TxAggregates) ClientCommits(i int) []int64 {
	if i < 0 || i >= len(a.clients) {
		return nil
	}
	return a.clients[i].perSecond
}

// clientOf returns the latencies of the client connection conn belongs
// to, nil when the load has no clients.
func (a *TxAggregates) clientOf(conn int) *clientLatency {
	if a.clients == nil {
		return nil
	}
	if i := a.load.ClientOf(conn); i >= 0 {
		return &a.clients[i]
	}
	return nil
}

// newClients returns a summary per client of run's load, counts zero.
func newClients(run results.Run) []ClientSummary {
	var out []ClientSummary
	for _, c := range run.Load.Clients {
		out = append(out, ClientSummary{Name: c.Name, Key: c.Key, OfferedTPS: float64(c.Connections) * c.Rate})
	}
	return out
}

// finishClients puts each client's rates and latencies, once the
// accounting has counted its transactions.
func finishClients(a *TxAggregates, run results.Run, cs []ClientSummary) {
	for i := range cs {
		c := &cs[i]
		if run.Load.DurationS > 0 {
			c.CommittedTPS = float64(c.Committed) / run.Load.DurationS
		}
		if i < len(a.clients) {
			l := &a.clients[i]
			c.BlockP50, c.BlockP99 = sketchMs(&l.block, 50), sketchMs(&l.block, 99)
			c.ObservedP50, c.ObservedP99 = sketchMs(&l.observed, 50), sketchMs(&l.observed, 99)
		}
	}
}

// clientAnomalies names the clients whose transactions went missing.
func clientAnomalies(b *builder, cs []ClientSummary) {
	for _, c := range cs {
		if c.Missing > 0 {
			b.anomalyOf(severeTxs, "client %s: %s missing (neither committed nor refused)", c.Name, count(float64(c.Missing), "sent transaction is", "sent transactions are"))
		}
	}
}

// Reason is one reason of a refusal or rejection and how many
// transactions it was given for.
type Reason struct {
	Msg string
	N   int64
}

// SortedReasons returns the reasons of a count by reason (Summary.Rejected,
// Summary.Refused, ClientSummary.Reasons) by count, most first, then by
// message.
func SortedReasons(reasons map[string]int64) []Reason {
	var rs []Reason
	for msg, n := range reasons {
		rs = append(rs, Reason{msg, n})
	}
	slices.SortFunc(rs, func(a, b Reason) int { return cmp.Or(cmp.Compare(b.N, a.N), strings.Compare(a.Msg, b.Msg)) })
	return rs
}

// reasonsText lists reasons by count, most first, as "\"msg\" (n)".
func reasonsText(reasons map[string]int64, few int) string {
	var parts []string
	for _, r := range SortedReasons(reasons) {
		parts = append(parts, fmt.Sprintf("%q (%d)", r.Msg, r.N))
	}
	return JoinFew(parts, few, "and %d other reasons")
}
