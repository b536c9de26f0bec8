package analysis

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cometlab/cometlab/internal/results"
)

// maxDisagreements bounds the disagreements a summary lists (the count
// is complete).
const maxDisagreements = 10

// Safety is the run's safety check: did the nodes commit the same blocks
// and app states, was any transaction committed twice, was any
// acknowledged transaction lost without explanation, and what evidence
// of misbehaviour did the chain commit.
type Safety struct {
	// Checked says hashes.csv was there (a run before it has no
	// agreement check; its other checks still hold).
	Checked bool `json:"checked"`
	// Heights counts the heights that two nodes or more reported; Nodes
	// names the nodes that reported any.
	Heights int64    `json:"heights"`
	Nodes   []string `json:"nodes,omitempty"`
	// Disagreements are the first disagreements (at most 10: a height's
	// block hash, then its app hash), by height; DisagreeingHeights counts
	// every height with one.
	Disagreements      []Disagreement `json:"disagreements,omitempty"`
	DisagreeingHeights int64          `json:"disagreeing_heights"`
	// CommittedTwice counts extra commits of a transaction (duplicate_txs).
	// TwiceExplained says what in the run lets CometBFT commit a
	// transaction again (a node restarted with an empty mempool cache), ""
	// when nothing: then they are violations.
	CommittedTwice int64  `json:"committed_twice"`
	TwiceExplained string `json:"twice_explained,omitempty"`
	// LostAcked counts transactions a reply accepted (code 0, from the
	// node or the sentinel) that the chain never committed; -1 when
	// unknown (no replies.csv). Explained says what in the run can drop
	// an accepted transaction, "" when nothing: then they are violations.
	LostAcked int64  `json:"lost_acked"`
	Explained string `json:"explained,omitempty"`
	// Evidence is the evidence of misbehaviour committed in the run's
	// blocks (evidence.csv), each naming its validator's node when the
	// run has its home.
	Evidence []EvidenceItem `json:"evidence,omitempty"`
}

// Disagreement is a height at which the nodes committed different hashes.
type Disagreement struct {
	Height int64  `json:"height"`
	Hash   string `json:"hash"` // "block" or "app"
	// Majority is the hash the most nodes committed (ties: the smallest),
	// and Agreed those nodes; Differing the others with what they had.
	Majority  string     `json:"majority"`
	Agreed    []string   `json:"agreed"`
	Differing []NodeHash `json:"differing"`
}

// NodeHash is a node's hash at a height.
type NodeHash struct {
	Node string `json:"node"`
	Hash string `json:"hash"`
}

// EvidenceItem is one evidence.csv row with its validator's node.
type EvidenceItem struct {
	results.Evidence
	Node string `json:"node,omitempty"`
}

// Violations counts the violations: disagreeing heights, extra commits
// and acknowledged transactions lost without explanation.
func (s *Safety) Violations() int64 {
	if s == nil {
		return 0
	}
	n := s.DisagreeingHeights
	if s.TwiceExplained == "" {
		n += s.CommittedTwice
	}
	if s.Explained == "" && s.LostAcked > 0 {
		n += s.LostAcked
	}
	return n
}

// Agreement compares what the nodes committed at each height (hashes.csv
// rows, any source): a height where two nodes (or two rows of one node)
// hold different non-empty block hashes, or different app hashes, is a
// disagreement. It returns the heights two nodes or more reported, the
// nodes, and the disagreements by height (block before app).
func Agreement(rows []results.HashRow) (heights int64, nodes []string, dis []Disagreement) {
	type key struct {
		h   int64
		app bool
	}
	seen := map[key]map[string][]string{} // → hash → nodes
	reporters := map[int64]map[string]bool{}
	for i := range rows {
		r := &rows[i]
		if !slices.Contains(nodes, r.Node) {
			nodes = append(nodes, r.Node)
		}
		for _, f := range []struct {
			app  bool
			hash string
		}{{false, r.BlockHash}, {true, r.AppHash}} {
			if f.hash == "" {
				continue
			}
			k := key{r.Height, f.app}
			if seen[k] == nil {
				seen[k] = map[string][]string{}
			}
			if !slices.Contains(seen[k][f.hash], r.Node) {
				seen[k][f.hash] = append(seen[k][f.hash], r.Node)
			}
			if reporters[r.Height] == nil {
				reporters[r.Height] = map[string]bool{}
			}
			reporters[r.Height][r.Node] = true
		}
	}
	for _, rep := range reporters {
		if len(rep) >= 2 {
			heights++
		}
	}
	slices.Sort(nodes)
	for k, byHash := range seen {
		if len(byHash) > 1 {
			dis = append(dis, disagreement(k.h, k.app, byHash))
		}
	}
	slices.SortFunc(dis, func(a, b Disagreement) int {
		return cmp.Or(cmp.Compare(a.Height, b.Height), cmp.Compare(a.Hash, b.Hash))
	})
	return heights, nodes, dis
}

// disagreement names the majority hash of byHash and the nodes that
// differ from it.
func disagreement(h int64, app bool, byHash map[string][]string) Disagreement {
	d := Disagreement{Height: h, Hash: "block"}
	if app {
		d.Hash = "app"
	}
	hashes := make([]string, 0, len(byHash))
	for hash := range byHash {
		hashes = append(hashes, hash)
	}
	slices.Sort(hashes)
	for _, hash := range hashes {
		if len(byHash[hash]) > len(d.Agreed) {
			d.Majority, d.Agreed = hash, byHash[hash]
		}
	}
	d.Agreed = slices.Sorted(slices.Values(d.Agreed))
	for _, hash := range hashes {
		if hash == d.Majority {
			continue
		}
		for _, n := range byHash[hash] {
			d.Differing = append(d.Differing, NodeHash{Node: n, Hash: hash})
		}
	}
	slices.SortFunc(d.Differing, func(a, b NodeHash) int { return cmp.Compare(a.Node, b.Node) })
	return d
}

// lossExplanation says what in the run can drop a transaction a reply
// accepted (broadcast_tx_async's code 0 only says the node took it, or
// the sentinel queued it), "" when nothing does. In order: the run did
// not complete; the mempools were not waited for, or had not emptied
// when the wait gave up; a node was killed, stopped, wiped or exited
// before the drain ended (a mempool is not persisted); the app is the
// user's own (its CheckTx may refuse what was accepted); the mempool was
// full during the load (rejected, by reply error, counts sends refused
// with "mempool is full"): CometBFT's flood mempool checks for room once
// before CheckTx and again after it, and a transaction whose CheckTx
// passed while others filled the last places is dropped after the reply
// said code 0 (broadcast_tx_async answers once the first check passes;
// broadcast_tx_sync returns CheckTx's code 0 all the same: cometbft#1516).
// An app-side mempool keeps its transactions itself: not this.
func lossExplanation(run results.Run, events []results.Event, rejected map[string]int64) string {
	switch {
	case run.Status != results.StatusComplete:
		return fmt.Sprintf("the run ended %s", run.Status)
	case run.Drain == nil:
		return "the run did not wait for the mempools to empty"
	case !run.Drain.Drained:
		return "the mempools had not emptied when the drain gave up"
	}
	end := run.LoadEnd.Add(time.Duration(run.Drain.Seconds * float64(time.Second))).UnixNano()
	for _, e := range events {
		switch e.Kind {
		case results.EventKill, results.EventTerm, results.EventWipe, results.EventExit:
			if e.At <= end {
				return fmt.Sprintf("%s: %s before the drain ended (a mempool is not persisted)", e.Node, e.Kind)
			}
		}
	}
	if run.App != "" && run.App != "kvstore" && run.App != "e2e" {
		return fmt.Sprintf("the app %q is the user's own: its CheckTx may refuse what broadcast_tx_async accepted", run.App)
	}
	var full int64
	for reason, n := range rejected {
		if strings.Contains(reason, "mempool is full") {
			full += n
		}
	}
	if full > 0 && !slices.ContainsFunc(run.Nodes, func(n results.Node) bool { return n.Mempool == "app" }) {
		return fmt.Sprintf("the mempool was full during the load (%d sends refused with \"mempool is full\"): CometBFT's flood mempool checks for room "+
			"before CheckTx and again after it, and drops a transaction whose CheckTx passed while others took the last places, "+
			"after the reply said code 0 (broadcast_tx_async answers once the first check passes; broadcast_tx_sync returns CheckTx's code 0 all the same, cometbft#1516)", full)
	}
	return ""
}

// twiceExplanation says what in the run lets CometBFT commit a
// transaction twice, "" when nothing does: a node that started again
// (killed, stopped, wiped or dead, then started) has an empty mempool
// cache, so a transaction already committed can enter its mempool again
// from a peer that has not yet committed it, and be proposed again.
// CometBFT leaves replay protection to the app, and the kvstore has none.
func twiceExplanation(run results.Run, events []results.Event) string {
	var app []string
	for _, n := range run.Nodes {
		if n.Mempool == "app" {
			app = append(app, n.Name)
		}
	}
	if len(app) > 0 {
		return fmt.Sprintf("%s ran the app-side mempool (mempool = \"app\"): the app keeps the transactions and builds each block it proposes "+
			"from them, so replay protection is the app's alone (CometBFT's mempool cache never sees the commits); the e2e app's mock mempool "+
			"forgets a transaction only on the proposer that reaps it, so every other validator that holds it proposes it again", strings.Join(app, ", "))
	}
	stopped := map[string]string{}
	for _, e := range sortedEvents(events) {
		switch e.Kind {
		case results.EventKill, results.EventTerm, results.EventWipe, results.EventExit:
			if _, ok := stopped[e.Node]; !ok {
				stopped[e.Node] = e.Kind
			}
		case results.EventStart:
			if kind, ok := stopped[e.Node]; ok {
				return fmt.Sprintf("%s started again after a %s: its mempool cache was empty, so a transaction already committed "+
					"could enter its mempool from a lagging peer and be proposed again (CometBFT leaves replay protection to the app; the kvstore has none)", e.Node, kind)
			}
		}
	}
	return ""
}

// safety puts the safety figures and returns the check; lostAcked is -1
// when unknown.
func safety(in Input, b *builder, lostAcked int64, noHashes bool) *Safety {
	s := &Safety{Checked: !noHashes, LostAcked: lostAcked, CommittedTwice: int64(b.s.Metrics["duplicate_txs"])}
	if s.CommittedTwice > 0 {
		s.TwiceExplained = twiceExplanation(in.Run, in.Events)
	}
	if s.Checked {
		var dis []Disagreement
		s.Heights, s.Nodes, dis = Agreement(in.Hashes)
		for i := range dis {
			if i == 0 || dis[i].Height != dis[i-1].Height {
				s.DisagreeingHeights++
			}
		}
		s.Disagreements = dis[:min(len(dis), maxDisagreements)]
		b.put("disagreeing_heights", float64(s.DisagreeingHeights), "")
		b.put("agreed_heights", float64(s.Heights-s.DisagreeingHeights), "")
	} else {
		b.note("disagreeing_heights not computed: no %s (a run made before it)", results.HashesFile)
	}
	if lostAcked >= 0 {
		s.Explained = lossExplanation(in.Run, in.Events, b.s.Rejected)
		b.put("lost_acked_txs", float64(lostAcked), "")
		unexplained := lostAcked
		if s.Explained != "" {
			unexplained = 0
		}
		b.put("unexplained_lost_txs", float64(unexplained), "")
	}
	for _, e := range in.Evidence {
		s.Evidence = append(s.Evidence, EvidenceItem{Evidence: e, Node: in.Validators[e.Validator]})
	}
	unexplained := s.CommittedTwice
	if s.TwiceExplained != "" {
		unexplained = 0
	}
	b.put("unexplained_duplicate_txs", float64(unexplained), "")
	b.put("evidence_committed", float64(len(s.Evidence)), "")
	b.put("safety_violations", float64(s.Violations()), "")
	return s
}
