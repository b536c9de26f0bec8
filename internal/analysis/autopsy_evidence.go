package analysis

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/stats"
)

// autopsyContext indexes a run's records by height and node for the
// evidence of its slow heights.
type autopsyContext struct {
	in       Input
	medianMs float64
	events   []results.Event // in time order
	votes    map[int64][]results.Precommit
	adopt    map[int64]map[string]int64
	mempool  map[int64]map[string]int64
	capacity map[string]int64   // node → its mempool's capacity in the run's transactions (run.json)
	poolSize map[string]*Series // node → its scraped mempool_size (metrics.csv)
	zone     map[string]string  // node → its zone (run.json), for the nodes that have one
	cycle    []string           // round-0 proposer of height H is cycle[H mod len]; nil when not a fixed rotation
	// equivocated names, per height, the validators that evidence
	// committed in the run accuses of conflicting votes at that height.
	equivocated map[int64][]string
	// firstMedian is the median over the run's round-0 heights of their
	// first precommit's offset from the header time (NaN without
	// precommits).
	firstMedian float64
}

func newAutopsyContext(in Input, medianMs float64) *autopsyContext {
	c := &autopsyContext{in: in, medianMs: medianMs, votes: map[int64][]results.Precommit{},
		adopt: map[int64]map[string]int64{}, mempool: map[int64]map[string]int64{}}
	c.events = sortedEvents(in.Events)
	for _, p := range in.Precommits {
		c.votes[p.Height] = append(c.votes[p.Height], p)
	}
	for _, a := range in.Adoption {
		if c.adopt[a.Height] == nil {
			c.adopt[a.Height] = map[string]int64{}
		}
		c.adopt[a.Height][a.Node] = a.At
	}
	for _, m := range in.Mempool {
		if c.mempool[m.Height] == nil {
			c.mempool[m.Height] = map[string]int64{}
		}
		c.mempool[m.Height][m.Node] = m.Txs
	}
	c.poolSize = map[string]*Series{}
	if in.Metrics != nil {
		for _, n := range in.Metrics.Nodes() {
			if s := in.Metrics.One(n, "mempool_size"); s != nil {
				c.poolSize[n] = s
			}
		}
	}
	c.capacity, c.zone = map[string]int64{}, map[string]string{}
	for _, n := range in.Run.Nodes {
		c.capacity[n.Name] = n.MempoolCapacity
		if n.Zone != "" {
			c.zone[n.Name] = n.Zone
		}
	}
	// Evidence the run injected (forged votes for random blocks, not
	// votes of the consensus) says nothing about its height.
	injected := map[int64][]string{}
	for _, x := range InjectedEvidence(in.Events, nil, nil) {
		injected[x.Height] = append(injected[x.Height], x.Node)
	}
	c.equivocated = map[int64][]string{}
	for _, ev := range in.Evidence {
		name := c.name(ev.Validator)
		if i := slices.Index(injected[ev.EvidenceHeight], name); i >= 0 {
			injected[ev.EvidenceHeight] = slices.Delete(injected[ev.EvidenceHeight], i, i+1)
			continue
		}
		if ev.Type == "DuplicateVoteEvidence" && !slices.Contains(c.equivocated[ev.EvidenceHeight], name) {
			c.equivocated[ev.EvidenceHeight] = append(c.equivocated[ev.EvidenceHeight], name)
		}
	}
	var firsts []float64
	for _, b := range in.RunBlocks() {
		if f := firstPrecommit(c.votes[b.Height]); b.Round == 0 && !math.IsNaN(f) {
			firsts = append(firsts, f)
		}
	}
	c.firstMedian = math.NaN()
	if len(firsts) > 0 {
		slices.Sort(firsts)
		c.firstMedian = stats.Percentile(firsts, 50)
	}
	c.cycle = proposerCycle(in.Blocks, c.validators())
	if c.cycle == nil {
		c.cycle = completeCycle(in.Blocks, c.voters())
	}
	return c
}

// validators returns the number of validators: the precommits of a
// height, else the names known.
func (c *autopsyContext) validators() int {
	if len(c.in.Precommits) > 0 {
		return len(c.votes[c.in.Precommits[0].Height])
	}
	return len(c.in.Validators)
}

// proposerCycle learns the proposer rotation of a chain of n validators
// of equal power, where the proposer of (H, r) is cycle[(H+r) mod n]: from
// every block, the proposer it was committed with at its round. It returns
// nil when two blocks disagree (unequal powers, a changed set) or a slot
// of the cycle was never seen.
func proposerCycle(blocks []results.Block, n int) []string {
	if n < 2 {
		return nil
	}
	cycle := make([]string, n)
	for _, b := range blocks {
		i := int((b.Height + int64(b.Round)) % int64(n))
		if cycle[i] != "" && cycle[i] != b.Proposer {
			return nil
		}
		cycle[i] = b.Proposer
	}
	if slices.Contains(cycle, "") {
		return nil
	}
	return cycle
}

// voters returns the validator addresses of the first height with
// precommits (absent ones too: the collector names them), sorted.
func (c *autopsyContext) voters() []string {
	if len(c.in.Precommits) == 0 {
		return nil
	}
	var out []string
	for _, p := range c.votes[c.in.Precommits[0].Height] {
		out = append(out, strings.ToUpper(p.Validator))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// completeCycle fills the slots of the proposer rotation that no block
// shows: a validator that never proposes (one that is down throughout, an
// absent validator) leaves its slot empty. With equal powers CometBFT's
// proposers take turns in address order (ties of priority go to the lower
// address), so the cycle is a rotation of the sorted addresses: it returns
// the one rotation every block agrees with, else nil.
func completeCycle(blocks []results.Block, sorted []string) []string {
	n := len(sorted)
	if n < 2 {
		return nil
	}
	var found []string
	for k := range n {
		ok := true
		for _, b := range blocks {
			i := int((b.Height + int64(b.Round)) % int64(n))
			if !strings.EqualFold(sorted[(i+k)%n], b.Proposer) {
				ok = false
				break
			}
		}
		if ok {
			if found != nil {
				return nil
			}
			found = make([]string, n)
			for i := range n {
				found[i] = sorted[(i+k)%n]
			}
		}
	}
	return found
}

// name returns the node name of a validator address, else the address.
func (c *autopsyContext) name(addr string) string {
	if n := c.in.Validators[strings.ToUpper(addr)]; n != "" {
		return n
	}
	return addr
}

// heightEvidence is what the rules see of one slow height.
type heightEvidence struct {
	b          *results.Block
	ms, median float64
	proposer   string
	failed     []string            // the proposers of the failed rounds 0..r−1 (inferred from the rotation)
	votes      []results.Precommit // the validators' precommits for the height
	lateVotes  []string            // validators whose precommit was late (or nil) compared with the others
	absent     []string            // validators absent from the commit
	declared   []string            // validators absent by design (run.json absent): never started
	down       map[string]string   // node → what made it unavailable during the height's window
	perturbed  map[string]string   // node → the perturbation under way
	lagMs      map[string]float64  // node → how long after the first node it committed H−1
	execMs     map[string]float64  // node → block processing time in the window, ms per block
	execMedian float64
	cpu        map[string]float64 // node → highest CPU % of one core in the window
	busy       float64            // the host's highest busy cores over cores in the window
	gcMs       map[string]float64 // node → GC pause seconds summed in the window, in ms
	pool       map[string]int64   // node → its largest mempool within the height or right after committing it
	capacity   map[string]int64   // node → its mempool's capacity (0: unknown, CometBFT's default assumed)
	zone       map[string]string  // node → its zone, when the run has zones
	// equivocated are the validators that committed evidence accuses of
	// conflicting votes at the height.
	equivocated []string
	// latMs is the mean block latency of the height's transactions and
	// latMedian the run's median of it, for a height slow by latency
	// alone (0 otherwise); path is the load path's record of the span its
	// transactions waited, and target the node the load went to.
	latMs, latMedian float64
	path             loadPathWindow
	target           string
	// firstMs is the height's first precommit (for the block or nil) after
	// its header time, and firstMedian the run's median of it (NaN when
	// unknown).
	firstMs, firstMedian float64
}

// evidence gathers the figures of block b (interval ms, pool from poolIn).
func (c *autopsyContext) evidence(b *results.Block, ms float64, pool map[string]int64) *heightEvidence {
	e := &heightEvidence{b: b, ms: ms, median: c.medianMs, proposer: c.name(b.Proposer),
		votes: c.votes[b.Height], pool: pool, capacity: c.capacity, zone: c.zone, target: c.in.Run.Target, equivocated: c.equivocated[b.Height]}
	if c.cycle != nil {
		n := int64(len(c.cycle))
		for r := int64(0); r < int64(b.Round); r++ {
			e.failed = append(e.failed, c.name(c.cycle[(b.Height+r)%n]))
		}
	}
	e.lateVotes, e.absent = lateVoters(e.votes, c), absentVoters(e.votes, c)
	e.firstMs, e.firstMedian = firstPrecommit(e.votes), c.firstMedian
	if a := c.in.Run.Absent; a != nil {
		e.declared = a.Validators
	}
	lo, hi := b.Time, b.CommitTime
	e.down, e.perturbed = eventsIn(c.events, lo, hi, int64(2*c.medianMs*results.NsPerMs))
	e.lagMs = lag(c.adopt[b.Height-1])
	e.execMs, e.execMedian = c.execIn(lo, hi)
	e.cpu, e.busy = c.cpuIn(lo, hi)
	e.gcMs = c.gcIn(lo, hi)
	return e
}

// basics is the evidence every verdict starts with.
func (e *heightEvidence) basics() string {
	s := fmt.Sprintf("round %d, interval %.0f ms (median %.0f)", e.b.Round, e.ms, e.median)
	if e.latMs > 0 {
		s += fmt.Sprintf(", its transactions' block latency %.0f ms (median %.0f)", e.latMs, e.latMedian)
	}
	return s
}

// loadPathWindow is the load path over a span: sends made, late ones,
// the largest lag (ms) and replies refusing or rejecting a transaction.
type loadPathWindow struct {
	sends, late, errors int64
	maxLagMs            float64
}

// loadPathIn sums agg's LoadPath over the seconds of [lo, hi] (Unix ns).
func loadPathIn(agg *TxAggregates, lo, hi int64) loadPathWindow {
	var w loadPathWindow
	for k := lo / int64(results.NsPerS); k <= hi/int64(results.NsPerS); k++ {
		if p := agg.LoadPath[k]; p != nil {
			w.sends, w.late, w.errors = w.sends+p.Sends, w.late+p.Late, w.errors+p.Errors
			w.maxLagMs = max(w.maxLagMs, float64(p.MaxLagNs)/results.NsPerMs)
		}
	}
	return w
}

// firstPrecommit returns the earliest signed precommit's offset from the
// header time (the first stage of Stages), NaN when none was signed.
func firstPrecommit(votes []results.Precommit) float64 {
	first := math.NaN()
	for _, v := range votes {
		if (v.Flag == "commit" || v.Flag == "nil") && (math.IsNaN(first) || v.OffsetMs < first) {
			first = v.OffsetMs
		}
	}
	return first
}

// lateVoters returns the validators whose precommit is nil, or later than
// the median precommit by lateVoteMs (named, else by address).
func lateVoters(votes []results.Precommit, c *autopsyContext) []string {
	var offs []float64
	for _, v := range votes {
		if v.Flag == "commit" {
			offs = append(offs, v.OffsetMs)
		}
	}
	if len(offs) == 0 {
		return nil
	}
	slices.Sort(offs)
	med := offs[len(offs)/2]
	var late []string
	for _, v := range votes {
		if v.Flag == "nil" || (v.Flag == "commit" && v.OffsetMs > med+lateVoteMs) {
			late = append(late, voterName(v, c))
		}
	}
	return late
}

func voterName(v results.Precommit, c *autopsyContext) string {
	if v.Node != "" {
		return v.Node
	}
	return c.name(v.Validator)
}

// absentVoters returns the validators absent from a commit.
func absentVoters(votes []results.Precommit, c *autopsyContext) []string {
	var out []string
	for _, v := range votes {
		if v.Flag == "absent" {
			out = append(out, voterName(v, c))
		}
	}
	return out
}

// eventsIn returns the nodes unavailable during [lo, hi] (their last
// kill, term, pause, cut or exit at or before hi not followed by a start,
// resume or restore before lo) and the perturbations under way then, or
// that ended less than grace before lo: a node just restarted or
// reconnected is still catching up (a restart ends the moment it starts).
func eventsIn(events []results.Event, lo, hi, grace int64) (down, perturbed map[string]string) {
	down, perturbed = map[string]string{}, map[string]string{}
	for _, ev := range events {
		if ev.At > hi {
			break
		}
		switch ev.Kind {
		case results.EventKill, results.EventTerm, results.EventPause, results.EventCut, results.EventExit:
			down[ev.Node] = fmt.Sprintf("%s %+.1f s", ev.Kind, float64(ev.At-lo)/1e9)
		case results.EventStart, results.EventResume, results.EventRestore:
			if ev.At < lo {
				delete(down, ev.Node)
			}
		case results.EventPerturbBegin:
			perturbed[ev.Node] = ev.Detail
		case results.EventPerturbEnd:
			switch {
			case ev.At < lo-grace:
				delete(perturbed, ev.Node)
			case ev.At < lo:
				perturbed[ev.Node] = fmt.Sprintf("%s, ended %.1f s before", ev.Detail, float64(lo-ev.At)/1e9)
			}
		}
	}
	return down, perturbed
}

// lag returns how long after the first node each node committed a height.
func lag(at map[string]int64) map[string]float64 {
	var first int64
	for _, t := range at {
		if first == 0 || t < first {
			first = t
		}
	}
	out := map[string]float64{}
	for n, t := range at {
		out[n] = float64(t-first) / results.NsPerMs
	}
	return out
}
