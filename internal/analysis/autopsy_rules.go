package analysis

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// The causes of a slow height (docs/autopsy.md): autopsy.csv's cause
// column and the suffix of the slow_heights_<cause> metrics.
const (
	CauseEquivocation   = "equivocation"    // evidence committed later shows a validator signed conflicting votes at the height
	CauseProposerAbsent = "proposer_absent" // a proposer of a failed round was down, or absent from the commit
	CausePerturbation   = "perturbation"    // a perturbation was under way, and no rule above named its effect
	CauseNodeLagging    = "node_lagging"    // a proposer of a failed round committed the previous height late
	CauseVotesLate      = "votes_late"      // validators' precommits were nil, absent or late
	CauseExecution      = "execution"       // block processing took far longer than the run's median
	CauseGCPause        = "gc_pause"        // a node's GC paused it for long within the height
	CauseProposalLate   = "proposal_late"   // round 0, and the first precommit came late: the proposer's proposal did
	CauseHostContention = "host_contention" // the host's CPUs, or a node's, were saturated
	CauseMempoolFull    = "mempool_full"    // a node's mempool was (nearly) at its capacity
	CauseLoadPath       = "load_path"       // slow by latency alone: the transactions were held on their way to the node
	CauseUnexplained    = "unexplained"     // no rule matched: no guess is made
)

// Causes returns the cause vocabulary, in the order of the rules.
func Causes() []string {
	var out []string
	for _, r := range allRules() {
		out = append(out, r.Cause)
	}
	return append(out, CauseUnexplained)
}

// allRules returns Rules, then the rules of LatencyRules not among them.
func allRules() []Rule {
	out := Rules()
	for _, r := range LatencyRules() {
		if !slices.ContainsFunc(out, func(x Rule) bool { return x.Cause == r.Cause }) {
			out = append(out, r)
		}
	}
	return out
}

// LatencyRules returns the rules tried, in order, on a height slow by its
// transactions' latency alone: its interval and round were usual, so the
// rules of failed rounds and long intervals do not apply.
func LatencyRules() []Rule {
	var out []Rule
	for _, r := range Rules() {
		if r.Cause == CausePerturbation || r.Cause == CauseMempoolFull {
			out = append(out, r)
		}
	}
	return append(out, Rule{CauseLoadPath, "(a height slow by its transactions' latency alone) in the span its transactions waited before the height, " +
		"≥ 1 % of the load's sends were late by more than the late threshold, the latest by ≥ half the height's extra latency (the generator behind its schedule: a write to the node blocked, or its host was busy), " +
		"or replies refused or rejected transactions (a sentinel's refusals, a full mempool's rejections)", loadPath})
}

// Rule is one row of the autopsy's rule table: a cause and the test of a
// slow height's evidence that names it. Match returns the node blamed and
// the figures that triggered it.
type Rule struct {
	Cause string
	Doc   string // the condition, as docs/autopsy.md states it
	Match func(e *heightEvidence) (node, evidence string, ok bool)
}

// Rules returns the rule table, in the order the rules are tried: the
// first that matches gives the verdict.
func Rules() []Rule {
	return []Rule{
		{CauseEquivocation, "evidence of misbehaviour committed in the run (evidence.csv) names a validator that signed conflicting votes at the height " +
			"(a byzantine validator, or a twin: two processes holding one key)", equivocation},
		{CauseProposerAbsent, "a proposer of a failed round (inferred from the proposer rotation) was down per events.csv " +
			"(kill, term, pause, cut, exit) or absent from the height's commit without having lagged (a node that lagged is node_lagging)", proposerAbsent},
		{CauseNodeLagging, "a proposer of a failed round committed the previous height ≥ 50 % of the median interval after the first node", nodeLagging},
		{CausePerturbation, "a perturbation (perturb-begin … perturb-end, and two median intervals after it: a restarted node catches up) overlapped the height", perturbation},
		{CauseMempoolFull, "a node's mempool within the height (scrapes of mempool_size) or right after its commit held ≥ 95 % of its capacity (mempool.size, or max_txs_bytes over the load's transaction size; " +
			"CometBFT's default 5000 for a run that did not record it): the offered load exceeded what the chain committed, " +
			"and the big blocks' processing, GC and CPU that follow are its effects", mempoolFull},
		{CauseExecution, "a node's block processing in the height's scrapes was ≥ 3 × the run's median, and longer than it by ≥ half the height's extra interval (interval − median)", execution},
		{CauseGCPause, "a node's GC pauses summed ≥ 50 ms within the height (go_gc_duration_seconds_sum, scraped by default)", gcPause},
		{CauseProposalLate, "the height committed in round 0 and its first precommit came ≥ 500 ms, and ≥ half the height's extra interval, " +
			"later after the header time than the run's median: no validator could vote for the block until the proposer's proposal arrived", proposalLate},
		{CauseHostContention, "the host's busy cores ≥ 90 % of its cores, or a node ≥ 90 % of a core, within the height", hostContention},
		{CauseVotesLate, "validators' precommits were nil, absent (validators absent by design not counted), or ≥ 500 ms after the median precommit", votesLate},
	}
}

func equivocation(e *heightEvidence) (string, string, bool) {
	if len(e.equivocated) == 0 {
		return "", "", false
	}
	n := joinNodes(slices.Clone(e.equivocated))
	return n, "evidence of conflicting votes at this height by " + n, true
}

func proposerAbsent(e *heightEvidence) (string, string, bool) {
	absent := e.absent
	for _, p := range e.failed {
		if ev, ok := e.down[p]; ok {
			return p, fmt.Sprintf("%s proposer of a failed round, %s", p, ev), true
		}
		if slices.Contains(e.declared, p) {
			return p, fmt.Sprintf("%s proposer of a failed round, absent by design (in the genesis, never started)", p), true
		}
		if slices.Contains(absent, p) && !e.lagged(p) { // a node that lagged missed the commit: node_lagging names it
			return p, fmt.Sprintf("%s proposer of a failed round, precommit absent", p), true
		}
	}
	return "", "", false
}

func nodeLagging(e *heightEvidence) (string, string, bool) {
	for _, p := range e.failed {
		if e.lagged(p) {
			why := fmt.Sprintf("%s proposer of a failed round, committed the previous height %.0f ms after the first node", p, e.lagMs[p])
			if slices.Contains(e.absent, p) {
				why += ", precommit absent"
			}
			return p, why, true
		}
	}
	return "", "", false
}

// lagged reports whether node committed the previous height at least
// lagFraction of the median interval after the first node.
func (e *heightEvidence) lagged(node string) bool {
	l, ok := e.lagMs[node]
	return ok && e.median > 0 && l >= lagFraction*e.median
}

func perturbation(e *heightEvidence) (string, string, bool) {
	if len(e.perturbed) == 0 {
		return "", "", false
	}
	nodes := slices.Sorted(maps.Keys(e.perturbed))
	var parts []string
	for _, n := range nodes {
		parts = append(parts, n+" "+e.perturbed[n])
	}
	return joinNodes(nodes), "perturbation " + strings.Join(parts, ", "), true
}

// worst returns the node with the highest value in m at or above limit.
func worst(m map[string]float64, limit float64) (string, float64, bool) {
	best, v := "", 0.0
	for _, n := range slices.Sorted(maps.Keys(m)) {
		if m[n] >= limit && m[n] > v {
			best, v = n, m[n]
		}
	}
	return best, v, best != ""
}

func execution(e *heightEvidence) (string, string, bool) {
	if e.execMedian <= 0 {
		return "", "", false
	}
	n, v, ok := worst(e.execMs, execFactor*e.execMedian)
	if !ok || v-e.execMedian < explainShare*(e.ms-e.median) {
		return "", "", false // slower than usual, but too little to explain the height: a big block's 24 ms against a median of 7
	}
	return n, fmt.Sprintf("block processing %.0f ms on %s (run median %.0f ms)", v, n, e.execMedian), true
}

func gcPause(e *heightEvidence) (string, string, bool) {
	n, v, ok := worst(e.gcMs, gcPauseMs)
	return n, fmt.Sprintf("GC paused %s %.0f ms", n, v), ok
}

func proposalLate(e *heightEvidence) (string, string, bool) {
	if e.b.Round != 0 || math.IsNaN(e.firstMs) || math.IsNaN(e.firstMedian) {
		return "", "", false
	}
	excess := e.firstMs - e.firstMedian
	if excess < lateVoteMs || excess < explainShare*(e.ms-e.median) {
		return "", "", false
	}
	p := e.proposer
	why := fmt.Sprintf("first precommit %.0f ms after the header time (run median %.0f): %s's proposal came late", e.firstMs, e.firstMedian, p)
	if l, ok := e.lagMs[p]; ok && l >= lateVoteMs {
		why += fmt.Sprintf("; it committed the previous height %.0f ms after the first node", l)
	}
	if c, ok := e.cpu[p]; ok {
		why += fmt.Sprintf("; its CPU %.0f %% of a core", c)
	}
	if e.busy >= busyFraction {
		why += fmt.Sprintf("; the host busy %.0f %% of its cores", 100*e.busy)
	}
	return p, why, true
}

func hostContention(e *heightEvidence) (string, string, bool) {
	if n, v, ok := worst(e.cpu, nodeCPUPct); ok {
		return n, fmt.Sprintf("%s CPU %.0f %% of a core, host busy %.0f %%", n, v, 100*e.busy), true
	}
	if e.busy >= busyFraction {
		return "", fmt.Sprintf("host busy %.0f %% of its cores", 100*e.busy), true
	}
	return "", "", false
}

func mempoolFull(e *heightEvidence) (string, string, bool) {
	best, v, c := fullest(e.pool, e.capacity)
	if best == "" {
		return "", "", false
	}
	why := fmt.Sprintf("mempool of %s %d txs (capacity %d)", best, v, c)
	if n, ms, ok := worst(e.execMs, execFactor*e.execMedian); ok && e.execMedian > 0 {
		why += fmt.Sprintf("; block processing %.0f ms on %s (run median %.0f ms)", ms, n, e.execMedian)
	}
	if n, ms, ok := worst(e.gcMs, gcPauseMs); ok {
		why += fmt.Sprintf("; GC paused %s %.0f ms", n, ms)
	}
	if e.busy >= busyFraction {
		why += fmt.Sprintf("; the host busy %.0f %% of its cores", 100*e.busy)
	}
	return best, why, true
}

func loadPath(e *heightEvidence) (string, string, bool) {
	p := e.path
	var parts []string
	// The sends after a write that blocked are late by about as long as
	// it blocked, which the transaction it wrote waited: a lag far below
	// the extra latency does not explain it.
	if p.late > 0 && float64(p.late) >= lateSendShare*float64(p.sends) && p.maxLagMs >= explainShare*(e.latMs-e.latMedian) {
		parts = append(parts, fmt.Sprintf("%d of %d sends late, up to %.0f ms behind schedule", p.late, p.sends, p.maxLagMs))
	}
	if p.errors > 0 {
		parts = append(parts, fmt.Sprintf("%d replies refused or rejected transactions", p.errors))
	}
	if len(parts) == 0 {
		return "", "", false
	}
	return e.target, "on the way to " + e.target + " while its transactions waited: " + strings.Join(parts, "; "), true
}

func votesLate(e *heightEvidence) (string, string, bool) {
	late := slices.Clone(e.lateVotes)
	for _, v := range e.absent {
		if !slices.Contains(e.declared, v) { // a validator never started has no vote to be late
			late = append(late, v)
		}
	}
	if len(late) == 0 {
		return "", "", false
	}
	n := joinNodes(late)
	return n, "precommits late, nil or absent: " + n + e.zonesOf(strings.Split(n, "+")), true
}

// zonesOf names the zones of nodes, " (zone far: validator03; zone near:
// validator01)", in the order of the nodes; "" in a run without zones.
func (e *heightEvidence) zonesOf(nodes []string) string {
	var zones []string
	by := map[string][]string{}
	for _, n := range nodes {
		if z, ok := e.zone[n]; ok {
			if by[z] == nil {
				zones = append(zones, z)
			}
			by[z] = append(by[z], n)
		}
	}
	if len(zones) == 0 {
		return ""
	}
	parts := make([]string, len(zones))
	for i, z := range zones {
		parts[i] = "zone " + z + ": " + strings.Join(by[z], ", ")
	}
	return " (" + strings.Join(parts, "; ") + ")"
}
