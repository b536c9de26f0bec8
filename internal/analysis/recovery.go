package analysis

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/stats"
)

// Recovery figures: what each perturbation cost and how long the network
// and the perturbed node took to recover, from events.csv, blocks.csv,
// adoption.csv, txs.csv and sent.csv.

// recoveryWindow is the least width of the windows before and after a
// perturbation; a longer down period widens them to its length.
const recoveryWindow = 10 * int64(1e9)

// Recovery is the recovery of one perturbation. Figures holds its
// per-perturbation dictionary figures (PerPerturbation entries) that
// could be computed.
type Recovery struct {
	Perturbation
	Figures map[string]float64
	// Intervals holds, for the during and after figures of latency and
	// tx/s, the confidence interval of their difference from the window
	// before (Confidence, as compare computes it: a cluster bootstrap of
	// the mean, transactions clustered by block, 1-second tx counts
	// unclustered).
	Intervals map[string]stats.Interval
}

// Confidence and Resamples are the level and the resamples of the
// recovery figures' intervals: compare's defaults.
const (
	Confidence = 0.95
	Resamples  = 2000
)

// RecoveryOf computes the recovery figures of each perturbation of ev:
//
//   - liveness gap: from the perturbation's begin until a node other
//     than the perturbed one committed a height above the highest any of
//     them had committed at the begin (adoption.csv);
//   - catch-up: from the perturbation's end until the perturbed node
//     committed a height at least the highest the other nodes had
//     committed by then;
//   - sync rate: the heights (and their transactions, blocks.csv) the
//     node committed from its first commit after the end to its catch-up,
//     over that time;
//   - blocks committed after round 0 during [begin, end) and after [end,
//     end + w), by commit time, w = max(end − begin, 10 s);
//   - block latency (mean of the committed transactions sent in the
//     window) and committed run transactions per second (by block commit
//     time) before [begin − w, begin), during and after;
//   - transactions sent while the node was down, and how many of them
//     were not committed.
//
// Its intervals are seeded by the perturbation's begin, so the same input
// gives the same output.
func RecoveryOf(ev []results.Event, blocks []results.Block, adoption []results.Adoption, txs []results.Tx, sent []results.Sent) []Recovery {
	ps := Perturbations(ev)
	if len(ps) == 0 {
		return nil
	}
	byNode := adoptionByNode(adoption)
	txsOf := map[int64]int{}
	for _, k := range blocks {
		txsOf[k.Height] = k.Txs
	}
	committed := map[[2]uint64]bool{}
	for i := range txs {
		if !txs[i].Duplicate {
			committed[[2]uint64{uint64(txs[i].Conn), txs[i].Seq}] = true
		}
	}
	var out []Recovery
	for _, p := range ps {
		r := Recovery{Perturbation: p, Figures: map[string]float64{}, Intervals: map[string]stats.Interval{}}
		put := func(id string, v float64) {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				r.Figures[id] = v
			}
		}
		tip := newTip(byNode, p.Node)
		if p.IsPartition() {
			if g, ok := tip.longestGap(p.Begin, p.End); ok {
				put("liveness_gap_s", float64(g)/1e9)
			}
		} else if t, ok := tip.firstAbove(tip.at(p.Begin), p.Begin); ok {
			put("liveness_gap_s", float64(t-p.Begin)/1e9)
		}
		end := p.End
		if end != 0 {
			catchUp(&r, byNode[p.Node], tip, txsOf, put)
		} else {
			end = p.Begin
		}
		w := max(recoveryWindow, end-p.Begin)
		var during, after float64
		for i := range blocks {
			if blocks[i].Round == 0 {
				continue
			}
			t := blockCommit(&blocks[i])
			switch {
			case t >= p.Begin && t < end:
				during++
			case t >= end && t < end+w:
				after++
			}
		}
		put("multi_round_during", during)
		put("multi_round_after", after)
		rng := rand.New(rand.NewPCG(uint64(p.Begin), 10))
		var lat0, tps0 stats.DistSample
		for _, win := range []struct {
			name     string
			from, to int64
		}{{"before", p.Begin - w, p.Begin}, {"during", p.Begin, end}, {"after", end, end + w}} {
			if win.to <= win.from {
				continue
			}
			lat, tps := windowLatencies(txs, win.from, win.to), windowCounts(blocks, win.from, win.to)
			put("latency_"+win.name+"_ms", stats.Mean(lat.Values))
			put("tps_"+win.name, windowTPS(blocks, win.from, win.to))
			if win.name == "before" {
				lat0, tps0 = lat, tps
				continue
			}
			for _, d := range []struct {
				id         string
				base, cand stats.DistSample
			}{{"latency_" + win.name + "_ms", lat0, lat}, {"tps_" + win.name, tps0, tps}} {
				if ivs, ok := stats.BootstrapDiff(d.base, d.cand, []stats.Stat{stats.StatMean}, Resamples, Confidence, rng); ok[0] {
					r.Intervals[d.id] = ivs[0]
				}
			}
		}
		var nSent, lost float64
		for i := range sent {
			s := &sent[i]
			if s.Err != "" || s.Actual == 0 || s.Actual < p.Begin || s.Actual >= end {
				continue
			}
			nSent++
			if !committed[[2]uint64{uint64(s.Conn), s.Seq}] {
				lost++
			}
		}
		put("sent_while_down_txs", nSent)
		put("lost_while_down_txs", lost)
		out = append(out, r)
	}
	return out
}

// catchUp puts the catch-up time and sync rate of r's node, whose
// adoption rows by time are rows.
func catchUp(r *Recovery, rows []results.Adoption, tip tipFunc, txsOf map[int64]int, put func(string, float64)) {
	first := -1
	for i := range rows {
		a := &rows[i]
		if a.At < r.End {
			continue
		}
		if first < 0 {
			first = i
		}
		if a.Height < tip.at(a.At) {
			continue
		}
		put("catch_up_s", float64(a.At-r.End)/1e9)
		f := &rows[first]
		if a.At > f.At && a.Height > f.Height {
			span := float64(a.At-f.At) / 1e9
			var n int
			for h := f.Height + 1; h <= a.Height; h++ {
				n += txsOf[h]
			}
			put("sync_blocks_per_s", float64(a.Height-f.Height)/span)
			put("sync_tps", float64(n)/span)
		}
		return
	}
}

// tipFunc is the highest height the nodes other than one had committed
// over time: at, a running maximum over their adoption rows by time.
type tipFunc struct {
	t []int64
	h []int64 // h[i] = highest height committed at or before t[i]
}

func newTip(byNode map[string][]results.Adoption, except string) tipFunc {
	var rows []results.Adoption
	for n, r := range byNode {
		if n != except {
			rows = append(rows, r...)
		}
	}
	slices.SortFunc(rows, func(a, b results.Adoption) int { return cmp.Compare(a.At, b.At) })
	var tf tipFunc
	var top int64
	for _, a := range rows {
		top = max(top, a.Height)
		tf.t, tf.h = append(tf.t, a.At), append(tf.h, top)
	}
	return tf
}

// at returns the tip at t (0 before the first commit).
func (tf tipFunc) at(t int64) int64 {
	i, _ := slices.BinarySearch(tf.t, t+1) // first after t
	if i == 0 {
		return 0
	}
	return tf.h[i-1]
}

// firstAbove returns the first time after t at which the tip rose above h.
func (tf tipFunc) firstAbove(h, t int64) (int64, bool) {
	i, _ := slices.BinarySearch(tf.t, t+1)
	for ; i < len(tf.t); i++ {
		if tf.h[i] > h {
			return tf.t[i], true
		}
	}
	return 0, false
}

// blockCommit is a block's commit time: the header time of the next
// block, or its own when unknown.
func blockCommit(k *results.Block) int64 {
	if k.CommitTime != 0 {
		return k.CommitTime
	}
	return k.Time
}

// windowLatencies returns the block latencies (ms) of the committed
// transactions (duplicates left out) sent in [from, to), clustered by
// height.
func windowLatencies(txs []results.Tx, from, to int64) stats.DistSample {
	var s stats.DistSample
	for i := range txs {
		t := &txs[i]
		if t.Duplicate || t.CommitTime == 0 || t.Sent < from || t.Sent >= to {
			continue
		}
		s.Values = append(s.Values, float64(t.Latency())/1e6)
		s.Cluster = append(s.Cluster, int32(t.Height))
	}
	return s
}

// windowCounts returns the run transactions committed (blocks by commit
// time) in each whole second of [from, to), at least one window.
func windowCounts(blocks []results.Block, from, to int64) stats.DistSample {
	n := max(1, int((to-from)/int64(1e9)))
	width := (to - from) / int64(n)
	times := make([]int64, len(blocks))
	weights := make([]float64, len(blocks))
	for i := range blocks {
		times[i], weights[i] = blockCommit(&blocks[i]), float64(blocks[i].RunTxs)
	}
	c := WindowCounts(times, weights, from, width, n)
	for i := range c {
		c[i] *= 1e9 / float64(width)
	}
	return stats.DistSample{Values: c}
}

// windowTPS returns the run transactions committed in [from, to) (blocks
// by commit time) per second.
func windowTPS(blocks []results.Block, from, to int64) float64 {
	var n int
	for i := range blocks {
		if t := blockCommit(&blocks[i]); t >= from && t < to {
			n += blocks[i].RunTxs
		}
	}
	return float64(n) / (float64(to-from) / 1e9)
}

// PerturbationSummary is one perturbation in summary.json.
type PerturbationSummary struct {
	Node   string  `json:"node"`
	Action string  `json:"action"`
	Detail string  `json:"detail"`
	BeginS float64 `json:"begin_s"` // since the load start
	// EndS is the end since the load start; absent when the run ended
	// before the perturbation did.
	EndS    *float64           `json:"end_s,omitempty"`
	Figures map[string]float64 `json:"figures"`
	// Intervals are Recovery.Intervals: for a during or after figure, the
	// confidence interval of its difference from the before one.
	Intervals map[string]stats.Interval `json:"intervals,omitempty"`
}

// eventFigures puts the run-wide event figures, each perturbation's
// recovery, and an anomaly for every node that exited on its own.
func eventFigures(in Input, b *builder, start int64) {
	if in.Events == nil {
		return
	}
	since := func(t int64) float64 { return float64(t-start) / 1e9 }
	rec := RecoveryOf(in.Events, in.Blocks, in.Adoption, in.Txs, in.Sent)
	b.s.Metrics["perturbations"] = float64(len(rec))
	exits := UnplannedExits(in.Events, unixNs(in.Run.LoadEnd))
	b.s.Metrics["node_exits"] = float64(len(exits))
	for _, e := range exits {
		b.anomalyOf(severeExit, "%s exited at %.1f s, %s, outside every perturbation: it died on its own.", e.Node, since(e.At), cmp.Or(e.Detail, "status unknown"))
	}
	gap, up := math.NaN(), math.NaN()
	for _, r := range rec {
		ps := PerturbationSummary{Node: r.Node, Action: r.Action, Detail: r.Detail, BeginS: since(r.Begin), Figures: r.Figures}
		if len(r.Intervals) > 0 {
			ps.Intervals = r.Intervals
		}
		if r.End != 0 {
			e := since(r.End)
			ps.EndS = &e
		}
		b.s.Perturbations = append(b.s.Perturbations, ps)
		if v, ok := r.Figures["liveness_gap_s"]; ok && !(v <= gap) {
			gap = v
		}
		if v, ok := r.Figures["catch_up_s"]; ok && !(v <= up) {
			up = v
		}
		if _, ok := r.Figures["catch_up_s"]; !ok && r.End != 0 && !r.IsPartition() {
			b.note("%s: %s did not catch up with the other nodes before the end of adoption.csv", r.Label(), r.Node)
		}
	}
	if len(rec) > 0 {
		b.put("liveness_gap_max_s", gap, "no perturbation was followed by a new block")
		if slices.ContainsFunc(rec, func(r Recovery) bool { return !r.IsPartition() }) {
			b.put("catch_up_max_s", up, "no perturbed node caught up")
		}
	}
	partitionFigures(in, b, Perturbations(in.Events))
	upgradeFigures(in, b)
	if cs := CatchUps(in.Events, in.Adoption, start); len(cs) > 0 {
		b.s.CatchUps = cs
		st := SummarizeCatchUps(cs)
		b.s.Metrics["rotation_catch_ups"] = float64(st.N)
		b.put("rotation_catch_up_mean_s", st.Mean, "no catch-up")
		b.put("rotation_catch_up_p50_s", st.P50, "no catch-up")
		b.put("rotation_catch_up_p99_s", st.P99, "no catch-up")
		b.put("rotation_catch_up_max_s", st.Max, "no catch-up")
		b.put("rotation_sync_blocks_per_s_mean", st.BlocksPerSMean, "no catch-up")
		b.put("rotation_catch_up_slope_ms_per_height", st.SlopeMSPerHeight, "the ephemeral nodes started at fewer than two distinct heights")
	}
}

// unixNs returns t in Unix ns, 0 for the zero time.
func unixNs(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}
