package analysis

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// The bytes each node sent, by p2p message type, from CometBFT's counter
// p2p_message_send_bytes_total{message_type} (every line cometlab knows
// exposes it), checked against the node's own total where its line has one:
// p2p_peer_send_bytes_total{peer_id,chID} (all lines but v1.0 and v2.0).
// CometBFT adds a sent message's protobuf size to both counters at the same
// place (p2p/peer.go send), so their sums must agree.

// MessageType is a p2p message type of CometBFT's reactors, as the
// message_type label names it without its Go package ("consensus_BlockPart",
// "v1_Txs" → "BlockPart", "Txs"), with the id of its figures.
type MessageType struct {
	Name    string // the Go type name: BlockPart
	Reactor string // consensus, mempool, evidence, blocksync, pex, statesync
	ID      string // snake case: block_part
}

// MessageTypes returns the message types of every release line cometlab
// knows (v0.34–v2.0), by reactor: v1.0 added HasProposalBlockPart, v2.0's
// DOG HaveTx and ResetRoute.
func MessageTypes() []MessageType {
	by := []struct {
		reactor string
		names   []string
	}{
		{"consensus", []string{"NewRoundStep", "NewValidBlock", "Proposal", "ProposalPOL", "BlockPart", "Vote", "HasVote",
			"HasProposalBlockPart", "VoteSetMaj23", "VoteSetBits"}},
		{"mempool", []string{"Txs", "HaveTx", "ResetRoute"}},
		{"evidence", []string{"EvidenceList"}},
		{"blocksync", []string{"BlockRequest", "NoBlockResponse", "BlockResponse", "StatusRequest", "StatusResponse"}},
		{"pex", []string{"PexRequest", "PexAddrs"}},
		{"statesync", []string{"SnapshotsRequest", "SnapshotsResponse", "ChunkRequest", "ChunkResponse"}},
	}
	var out []MessageType
	for _, r := range by {
		for _, n := range r.names {
			out = append(out, MessageType{Name: n, Reactor: r.reactor, ID: snakeCase(n)})
		}
	}
	return out
}

// snakeCase turns a Go type name into snake case: ProposalPOL →
// proposal_pol, HaveTx → have_tx.
func snakeCase(s string) string {
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		up := r >= 'A' && r <= 'Z'
		if up && i > 0 && (!(rs[i-1] >= 'A' && rs[i-1] <= 'Z') || (i+1 < len(rs) && rs[i+1] >= 'a' && rs[i+1] <= 'z')) {
			b.WriteByte('_')
		}
		if up {
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// messageName returns the message type a message_type label names:
// what follows the Go package ("consensus_BlockPart" → "BlockPart").
func messageName(label string) string {
	if _, n, ok := strings.Cut(label, "_"); ok {
		return n
	}
	return label
}

// SentBytesUnaccountedMaxPct is the largest share of a node's total bytes
// sent that its bytes by message type may miss (or exceed) before the
// difference is an anomaly: the two counters are read in one scrape, a few
// messages apart at most.
const SentBytesUnaccountedMaxPct = 1.0

// msgBytesDictionary returns the entries of the bytes sent by message type.
func msgBytesDictionary() []Metric {
	const src = "metrics.csv: cometbft_p2p_message_send_bytes_total{message_type}"
	out := []Metric{
		{ID: "p2p_sent_bytes", Title: "Bytes sent", Unit: UnitBytes, Better: Neutral, Group: GroupResources, PerNode: true, Source: src,
			Definition: "Bytes a node sent to its peers (the protobuf size of the p2p messages it handed to a connection, every message type): the sum over message types of the increase of the counter over the whole scrape " +
				"(from the node's first scrape, a series that appeared later counting from 0; a fall is a restart and counts from 0). Run-wide: the sum over nodes."},
		{ID: "p2p_sent_bytes_per_tx", Title: "Bytes sent per tx", Unit: UnitBytes, Better: LowerIsBetter, Group: GroupResources, PerNode: true, Source: src + ", sent.csv, txs.csv",
			Definition: "p2p_sent_bytes ÷ committed_txs: what the gossip of the whole run (consensus included, idle or not) cost per committed transaction. Run-wide: every node's bytes ÷ committed_txs, the network's cost of a transaction."},
		{ID: "p2p_sent_bytes_unaccounted_pct", Title: "Bytes sent not by type", Unit: UnitPct, Better: LowerIsBetter, Group: GroupResources, PerNode: true,
			Source: src + ", cometbft_p2p_peer_send_bytes_total",
			Definition: fmt.Sprintf("The check that the bytes by message type are the node's whole traffic: |p2p_sent_bytes − the node's total| ÷ the total × 100, the total being the increase of p2p_peer_send_bytes_total summed over its peers and channels (counted as p2p_sent_bytes is). "+
				"CometBFT adds every sent message to both counters; above %.0f %% is an anomaly. Run-wide: the largest over nodes. v1.0 and v2.0 expose no per-peer counter: not computed.", SentBytesUnaccountedMaxPct)},
	}
	for _, t := range MessageTypes() {
		out = append(out, Metric{ID: "p2p_sent_bytes_per_tx_" + t.ID, Title: "Bytes per tx: " + t.Name, Unit: UnitBytes, Better: Neutral, Group: GroupResources, PerNode: true,
			Source:     src + ", sent.csv, txs.csv",
			Definition: fmt.Sprintf("Bytes of %s messages (%s reactor) a node sent, counted as p2p_sent_bytes is, ÷ committed_txs (0 for a node that sent none). Run-wide: every node's ÷ committed_txs; absent when no node sent any.", t.Name, t.Reactor)})
	}
	return append(out, Metric{ID: "p2p_sent_bytes_per_tx_other", Title: "Bytes per tx: other types", Unit: UnitBytes, Better: Neutral, Group: GroupResources, PerNode: true,
		Source:     src + ", sent.csv, txs.csv",
		Definition: "As the per-type figures, for message types of none of the reactors cometlab knows (a note names them); absent when there are none."})
}

// counterIncrease is the increase of a counter series over the whole
// scrape of its node, whose first scrape was at first: a series first
// seen later counts from 0 (CometBFT exposes a labelled counter once it is
// first incremented).
func counterIncrease(s *Series, first int64) float64 {
	if len(s.V) == 0 {
		return 0
	}
	inc := Increase(s.V)
	if s.T[0] > first {
		inc += s.V[0]
	}
	return inc
}

// msgBytesFigures puts the bytes sent by message type: per node, per
// committed transaction, and their check against the node's total.
func msgBytesFigures(set *SeriesSet, b *builder, nodes []string, committed float64) {
	mb := &msgBytes{known: map[string]string{}, perType: map[string]float64{}, byNode: map[string]map[string]float64{}, worst: math.NaN()}
	for _, t := range MessageTypes() {
		mb.known[t.Name] = t.ID
	}
	firsts := nodeTimes(set)
	for _, n := range nodes {
		first := int64(math.MaxInt64)
		if t := firsts[n]; len(t) > 0 {
			first = t[0]
		}
		mb.node(set, b, n, first, committed)
	}
	if !mb.seen {
		b.note("p2p_sent_bytes not computed: metrics.csv has no p2p_message_send_bytes_total series")
		return
	}
	b.put("p2p_sent_bytes", mb.all, "")
	why := "no transaction of the run was committed"
	if committed <= 0 {
		committed = math.NaN()
	}
	b.put("p2p_sent_bytes_per_tx", mb.all/committed, why)
	unsent := mb.putTypes(b, nodes, committed, why)
	if len(mb.others) > 0 {
		slices.Sort(mb.others)
		b.note("bytes sent of p2p message types cometlab does not know, counted as other: %s", strings.Join(mb.others, ", "))
	}
	if unsent > 0 {
		b.note("p2p_sent_bytes_per_tx_<type> not computed for the %d message types no node sent (see the dictionary)", unsent)
	}
	switch {
	case !mb.checked:
		b.note("p2p_sent_bytes_unaccounted_pct not computed: the nodes expose no p2p_peer_send_bytes_total (v1.0 and v2.0 count bytes by message type only)")
	default:
		b.put("p2p_sent_bytes_unaccounted_pct", mb.worst, "no node sent a byte to a peer")
	}
}

// msgBytes is what msgBytesFigures gathers node by node.
type msgBytes struct {
	known   map[string]string             // message type name → figure id
	perType map[string]float64            // id → run-wide bytes
	byNode  map[string]map[string]float64 // node → id → bytes
	all     float64                       // every node's bytes
	worst   float64                       // the largest unaccounted share, %; NaN: none
	others  []string                      // the type names of no known reactor
	seen    bool                          // some node had the series
	checked bool                          // some node had p2p_peer_send_bytes_total
}

// node adds node n's bytes by message type (its counters' increases since
// its first scrape at first), puts its own figures and checks them
// against its bytes sent to peers.
func (mb *msgBytes) node(set *SeriesSet, b *builder, n string, first int64, committed float64) {
	ss := set.Find(n, "p2p_message_send_bytes_total")
	if len(ss) == 0 {
		return
	}
	mb.seen = true
	node := map[string]float64{}
	sum := 0.0
	for _, s := range ss {
		v := counterIncrease(s, first)
		name := messageName(s.Label("message_type"))
		id, ok := mb.known[name]
		if !ok {
			id = "other"
			if !slices.Contains(mb.others, name) {
				mb.others = append(mb.others, name)
			}
		}
		node[id] += v
		sum += v
	}
	mb.all += sum
	b.putNode(n, "p2p_sent_bytes", sum)
	if committed > 0 {
		b.putNode(n, "p2p_sent_bytes_per_tx", sum/committed)
	}
	mb.byNode[n] = node
	for id, v := range node {
		mb.perType[id] += v
	}
	ps := set.Find(n, "p2p_peer_send_bytes_total")
	if len(ps) == 0 {
		return
	}
	mb.checked = true
	tot := 0.0
	for _, s := range ps {
		tot += counterIncrease(s, first)
	}
	pct := math.NaN()
	if tot > 0 {
		pct = math.Abs(sum-tot) / tot * 100
	}
	b.putNode(n, "p2p_sent_bytes_unaccounted_pct", pct)
	if !(pct <= mb.worst) && !math.IsNaN(pct) {
		mb.worst = pct
	}
	if pct > SentBytesUnaccountedMaxPct {
		b.anomaly("%s sent %.0f bytes by p2p message type but %.0f to its peers (%.1f %% apart): the bytes by message type do not account for its traffic", n, sum, tot, pct)
	}
}

// putTypes puts each message type's bytes per committed transaction, run
// wide and per node, and returns how many known types no node sent: a
// type no node sent is left out, not put as 0 bytes (the list holds every
// line's types, most of which a run never sends).
func (mb *msgBytes) putTypes(b *builder, nodes []string, committed float64, why string) int {
	unsent := 0
	var ids []string
	for _, t := range MessageTypes() {
		ids = append(ids, t.ID)
	}
	for _, id := range append(ids, "other") {
		if mb.perType[id] <= 0 {
			if id != "other" {
				unsent++
			}
			continue
		}
		b.put("p2p_sent_bytes_per_tx_"+id, mb.perType[id]/committed, why)
		for _, n := range nodes {
			if node, ok := mb.byNode[n]; ok && !math.IsNaN(committed) {
				b.putNode(n, "p2p_sent_bytes_per_tx_"+id, node[id]/committed)
			}
		}
	}
	return unsent
}

// IsMessageTypeMetric reports whether id is a figure of one message type's
// bytes (p2p_sent_bytes_per_tx_<type>, or _other): present only for the
// types some node of the run sent.
func IsMessageTypeMetric(id string) bool {
	t, ok := strings.CutPrefix(id, "p2p_sent_bytes_per_tx_")
	return ok && t != ""
}
