package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/cometlab/cometlab/internal/analysis"
)

// msgBytes writes "Bytes sent by message type" for a run whose nodes'
// metrics count the bytes they sent by p2p message type (p2p_sent_bytes):
// run-wide, each type the nodes sent with its bytes per committed
// transaction and its share of every byte sent, largest first, and the
// plot of each node's by type; the check of those bytes against the
// nodes' own totals; each node's figures. Nothing for a run without the
// figures.
func (m mdWriter) msgBytes(s analysis.Summary, in *analysis.Input) {
	if _, ok := s.Metrics["p2p_sent_bytes"]; !ok {
		return
	}
	m.f("## Bytes sent by message type\n\n")
	m.f("The nodes sent %s to their peers in all (every node's p2p messages, counted by CometBFT's p2p_message_send_bytes_total by message type)", metricValue(s, "p2p_sent_bytes"))
	perTx, ok := s.Metrics["p2p_sent_bytes_per_tx"]
	if !ok || perTx <= 0 {
		m.f(": no figure per committed transaction (%s).\n\n", noteOf(s, "p2p_sent_bytes_per_tx", "see Notes"))
	} else {
		m.f(", %s per committed transaction; by message type, over all nodes:\n\n", metricValue(s, "p2p_sent_bytes_per_tx"))
		m.table([]string{"message type", "reactor", "bytes per committed tx", "share of the total"}, "llrr", msgBytesRows(s, perTx))
		m.plot("msg_bytes.png", "")
	}
	m.msgBytesCheck(s)
	m.nodeTable(s, "Bytes sent by message type", analysis.RunNodes(*in), []string{"p2p_sent_bytes", "p2p_sent_bytes_per_tx", "p2p_sent_bytes_unaccounted_pct"})
}

// msgBytesRows are the rows of the types some node sent, largest first,
// their share of perTx, the bytes of every type per committed transaction.
func msgBytesRows(s analysis.Summary, perTx float64) [][]string {
	var out [][]string
	for _, t := range sentTypes(s) {
		id := "p2p_sent_bytes_per_tx_" + t.ID
		out = append(out, []string{t.Name, t.Reactor, metricValue(s, id), fmt.Sprintf("%.1f %%", s.Metrics[id]/perTx*100)})
	}
	return out
}

// sentTypes returns the message types some node sent (those with a
// run-wide p2p_sent_bytes_per_tx_<type>), "other types" among them, by
// their bytes, largest first (ties in the dictionary's order).
func sentTypes(s analysis.Summary) []analysis.MessageType {
	var out []analysis.MessageType
	for _, t := range append(analysis.MessageTypes(), analysis.MessageType{Name: "other types", Reactor: "—", ID: "other"}) {
		if _, ok := s.Metrics["p2p_sent_bytes_per_tx_"+t.ID]; ok {
			out = append(out, t)
		}
	}
	v := func(t analysis.MessageType) float64 { return s.Metrics["p2p_sent_bytes_per_tx_"+t.ID] }
	slices.SortStableFunc(out, func(a, b analysis.MessageType) int { return cmp.Compare(v(b), v(a)) })
	return out
}

// msgBytesCheck writes the check that the bytes by message type are the
// nodes' whole traffic (p2p_sent_bytes_unaccounted_pct), or why it was not
// made.
func (m mdWriter) msgBytesCheck(s analysis.Summary) {
	v, ok := s.Metrics["p2p_sent_bytes_unaccounted_pct"]
	switch {
	case !ok:
		m.f("Not checked against the nodes' own totals: %s.\n\n", noteOf(s, "p2p_sent_bytes_unaccounted_pct", "see Notes"))
	case v > analysis.SentBytesUnaccountedMaxPct:
		m.f("**The bytes by message type do not account for the nodes' traffic**: they are up to %s off a node's own total (p2p_peer_send_bytes_total, every peer and channel), above the %.0f %% allowed (see Anomalies).\n\n",
			metricValue(s, "p2p_sent_bytes_unaccounted_pct"), analysis.SentBytesUnaccountedMaxPct)
	default:
		m.f("Check: the bytes by message type are every node's traffic, within %s of its own total (p2p_peer_send_bytes_total, every peer and channel; at most %.0f %% allowed).\n\n",
			metricValue(s, "p2p_sent_bytes_unaccounted_pct"), analysis.SentBytesUnaccountedMaxPct)
	}
}

// noteOf returns why figure id was not computed, from the note that
// starts "id not computed: ", or def.
func noteOf(s analysis.Summary, id, def string) string {
	for _, n := range s.Notes {
		if why, ok := strings.CutPrefix(n, id+" not computed: "); ok {
			return why
		}
	}
	return def
}
