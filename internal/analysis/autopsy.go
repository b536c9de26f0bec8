package analysis

import (
	"math"
	"slices"
	"strings"

	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/stats"
)

// Verdict is one slow height's verdict (a row of autopsy.csv).
type Verdict = results.Verdict

// Slow-height thresholds (docs/autopsy.md). A height is slow when it
// needed a round above 0, or when its interval (time of H+1 − time of H)
// exceeds both slowFactor × the run's median interval and the median plus
// slowMADs robust standard deviations (1.4826 × MAD): the factor keeps a
// run whose intervals hardly vary (MAD of a few ms under timeout_commit)
// from flagging jitter, the MAD term a run whose intervals vary a lot.
const (
	slowFactor   = 1.5
	slowMADs     = 6.0
	minIntervals = 10 // fewer intervals: only rounds > 0 mark a height slow
	madToSigma   = 1.4826
	lateVoteMs   = 500.0 // a precommit this much after the median precommit is late
	lagFraction  = 0.5   // a proposer that committed H−1 this fraction of the median interval after the first node lagged
	// explainShare is how much of a slow height's extra time (interval or
	// latency over the run's median) a figure must account for to be its
	// cause: a first precommit's delay (proposal_late), block processing
	// (execution), the generator's lag (load_path).
	explainShare  = 0.5
	busyFraction  = 0.9  // the host's busy cores over its cores that make it contended
	nodeCPUPct    = 90.0 // a node's CPU (% of one core) that makes it contended
	execFactor    = 3.0  // block processing this many times the run's median is slow execution
	gcPauseMs     = 50.0 // GC pauses summed within a height's window
	mempoolFullPc = 0.95 // a mempool this full (of its capacity) at the commit is full
	lateSendShare = 0.01 // this share of the sends late in a span: the load path held transactions
)

// slowCut returns the interval (ms) above which a height is slow, and the
// run's median interval; 0, median when there are too few intervals.
func slowCut(iv []float64) (cut, median float64) {
	if len(iv) == 0 {
		return 0, 0
	}
	s := slices.Clone(iv)
	slices.Sort(s)
	median = stats.Percentile(s, 50)
	if len(iv) < minIntervals {
		return 0, median
	}
	dev := make([]float64, len(s))
	for i, v := range s {
		dev[i] = math.Abs(v - median)
	}
	slices.Sort(dev)
	sigma := madToSigma * stats.Percentile(dev, 50)
	return max(slowFactor*median, median+slowMADs*sigma), median
}

// Autopsy returns a verdict for every slow height of the run's blocks
// (those with a commit time), in height order, each from the first rule
// of Rules that explains it (else "unexplained"). A height is slow by
// its interval (or round), or by its transactions' latency alone
// (see slowCut; not the height after one slow by its interval, whose
// transactions waited through it), judged by LatencyRules.
func Autopsy(in Input) []Verdict {
	vs, _ := autopsy(in)
	return vs
}

// autopsy is Autopsy, also counting the run's heights within which, or
// right after whose commit, some node's mempool held ≥ 95 % of its
// capacity (mempool_full's measure, slow or not): an overload throughout
// a run raises every interval, and the run's own median with them, so it
// shows there, not as slow heights.
func autopsy(in Input) (out []Verdict, fullHeights int) {
	blocks := in.RunBlocks()
	var iv []float64
	for _, b := range blocks {
		if b.CommitTime > 0 {
			iv = append(iv, float64(b.CommitTime-b.Time)/results.NsPerMs)
		}
	}
	cut, median := slowCut(iv)
	ctx := newAutopsyContext(in, median)
	slow := map[int64]bool{}
	for _, b := range blocks {
		ms := float64(b.CommitTime-b.Time) / results.NsPerMs
		slow[b.Height] = b.CommitTime > 0 && (b.Round > 0 || (cut > 0 && ms > cut))
	}
	agg := in.Aggregates()
	lat := heightLatencies(agg, blocks)
	var lats []float64
	for _, l := range lat {
		lats = append(lats, l)
	}
	latCut, latMedian := slowCut(lats)
	for i := range blocks {
		b := &blocks[i]
		pool := ctx.poolIn(b)
		if node, _, _ := fullest(pool, ctx.capacity); node != "" {
			fullHeights++
		}
		if b.CommitTime == 0 {
			continue
		}
		l, hasLat := lat[b.Height]
		byLatency := !slow[b.Height] && !slow[b.Height-1] && latCut > 0 && hasLat && l > latCut
		if !slow[b.Height] && !byLatency {
			continue
		}
		ms := float64(b.CommitTime-b.Time) / results.NsPerMs
		e := ctx.evidence(b, ms, pool)
		if byLatency {
			e.latMs, e.latMedian = l, latMedian
			e.path = loadPathIn(agg, b.CommitTime-int64(l*results.NsPerMs), b.Time)
		}
		v := Verdict{Height: b.Height, Time: b.Time, Round: b.Round, Proposer: ctx.name(b.Proposer), IntervalMs: ms,
			Cause: CauseUnexplained, Evidence: e.basics()}
		rules := Rules()
		if byLatency {
			rules = LatencyRules()
		}
		for _, r := range rules {
			if node, why, ok := r.Match(e); ok {
				v.Cause, v.Node, v.Evidence = r.Cause, node, e.basics()+"; "+why
				break
			}
		}
		out = append(out, v)
	}
	return out, fullHeights
}

// heightLatencies returns the mean block latency (ms) of the committed
// transactions of each of blocks' heights that the load sent to
// throughout: a height's mean is biased when it holds only the
// transactions sent in part of its span, early in it at the end of the
// load (a run at 300 tx/s: its last height, usual interval, 1,062 ms
// against a median of 708). A height counts when it holds at least half
// the median height's number of transactions and the load sent over its
// whole span, estimated from the header times as
//
//	(T(H−1) + δ, T(H) + δ],  δ = the median over heights of (H's latest send − T(H))
//
// (the proposer of H takes what reached it by its proposal,
// timeout_commit after T(H)): the load's first send is at or before the
// span's start and its last send at or after its end. The first of
// blocks, whose span's start is not known, does not count.
func heightLatencies(agg *TxAggregates, blocks []results.Block) map[int64]float64 {
	var counts, lead []float64
	first, last := int64(math.MaxInt64), int64(math.MinInt64)
	for _, b := range blocks {
		if h := agg.Heights[b.Height]; h != nil && h.N > 0 {
			counts = append(counts, float64(h.N))
			lead = append(lead, float64(h.LastSent-b.Time))
			first, last = min(first, h.FirstSent), max(last, h.LastSent)
		}
	}
	if len(counts) == 0 {
		return nil
	}
	slices.Sort(counts)
	slices.Sort(lead)
	least := stats.Percentile(counts, 50) / 2
	delta := int64(stats.Percentile(lead, 50))
	out := map[int64]float64{}
	for i, b := range blocks {
		h := agg.Heights[b.Height]
		if h == nil || float64(h.N) < least || i == 0 || blocks[i-1].Height != b.Height-1 {
			continue
		}
		if blocks[i-1].Time+delta < first || b.Time+delta > last {
			continue // the load began or ended within its span
		}
		out[b.Height] = h.Sum / float64(h.N) / results.NsPerMs
	}
	return out
}

// joinNodes lists names sorted, joined by "+".
func joinNodes(ns []string) string {
	slices.Sort(ns)
	return strings.Join(slices.Compact(ns), "+")
}

// autopsyFigures puts slow_heights and slow_heights_<cause> (every cause,
// 0 when none) and keeps the verdicts in the summary.
func autopsyFigures(in Input, b *builder, noBlocks bool) {
	if noBlocks || len(in.RunBlocks()) == 0 {
		return
	}
	vs, full := autopsy(in)
	b.s.Autopsy = vs
	b.put("slow_heights", float64(len(vs)), "")
	b.put("mempool_full_heights", float64(full), "")
	for _, c := range Causes() {
		n := 0
		for _, v := range vs {
			if v.Cause == c {
				n++
			}
		}
		b.put("slow_heights_"+c, float64(n), "")
	}
}

// autopsyDictionary returns the entries of the block autopsy.
func autopsyDictionary() []Metric {
	src := "blocks.csv, precommits.csv, events.csv, adoption.csv, metrics.csv, resources.csv, host.csv, mempool.csv, txs.csv, sent.csv, replies.csv"
	out := []Metric{{ID: "slow_heights", Title: "Slow heights", Unit: UnitBlocks, Better: LowerIsBetter, Group: GroupBlocks, Source: src,
		Definition: "Heights of the run that needed a round > 0, or whose interval (header time of H+1 − header time of H) exceeded both 1.5 × the run's median interval and the median + 6 × 1.4826 × the intervals' median absolute deviation (with ≥ 10 intervals), or, the height before being none of these, whose transactions' mean block latency exceeded the same bound over the heights' mean latencies; each gets a verdict in autopsy.csv (docs/autopsy.md)."},
		{ID: "mempool_full_heights", Title: "Heights with a full mempool", Unit: UnitBlocks, Better: LowerIsBetter, Group: GroupBlocks, Source: "mempool.csv, metrics.csv, run.json",
			Definition: "Heights of the run, slow or not, within which (metrics.csv mempool_size) or right after whose commit (mempool.csv) some node's mempool held ≥ 95 % of its capacity (mempool_capacity_txs, else 5000): the offered load exceeded what the chain committed. An overload throughout a run lengthens every interval, the median too, so it shows here rather than as slow heights."}}
	for _, r := range append(allRules(), Rule{Cause: CauseUnexplained, Doc: "no rule matched"}) {
		out = append(out, Metric{ID: "slow_heights_" + r.Cause, Title: "Slow heights: " + strings.ReplaceAll(r.Cause, "_", " "), Unit: UnitBlocks,
			Better: LowerIsBetter, Group: GroupBlocks, Source: src, Definition: "Slow heights (slow_heights) whose verdict is " + r.Cause + ": " + r.Doc + "."})
	}
	return out
}
