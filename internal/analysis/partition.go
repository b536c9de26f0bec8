package analysis

import (
	"cmp"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/cometlab/cometlab/internal/results"
)

// PartitionAction is the action of a network partition's perturb-begin
// and perturb-end events, whose node is "" (the testnet's, not a node's):
// "partition 50/50, down 6s: validator01 validator02 | validator03
// validator04".
const PartitionAction = "partition"

// IsPartition reports whether p is a network partition.
func (p Perturbation) IsPartition() bool { return p.Node == "" && p.Action == PartitionAction }

// partitionOf returns the run's partition (the first, there is one at
// most), or false.
func partitionOf(ps []Perturbation) (Perturbation, bool) {
	for _, p := range ps {
		if p.IsPartition() {
			return p, true
		}
	}
	return Perturbation{}, false
}

// adoptionByNode returns each node's adoption rows by time.
func adoptionByNode(adoption []results.Adoption) map[string][]results.Adoption {
	byNode := map[string][]results.Adoption{}
	for _, a := range adoption {
		byNode[a.Node] = append(byNode[a.Node], a)
	}
	for _, rows := range byNode {
		slices.SortFunc(rows, func(a, b results.Adoption) int {
			return cmp.Or(cmp.Compare(a.At, b.At), cmp.Compare(a.Height, b.Height))
		})
	}
	return byNode
}

// PartitionFigures are the figures of a network partition from the cut
// (Begin) to the heal (End), all times by cometlab's clock (adoption.csv):
//
//   - Heights: new heights committed by any node while partitioned, above
//     the highest committed at the cut;
//   - Halted: no group held more than 2/3 of the voting power (the
//     groups' power is in the begin event's detail, "power 2/2"; without
//     it, no new height was committed in the second half of the
//     partition); HaltS is then the time from the cut to the last new
//     height committed while partitioned (0 when none was: blocks already
//     agreed upon finish). Stalled says, from the data, that no new height
//     was committed in the second half (a majority side goes through
//     rounds when the cut-off validators' turn to propose comes, so a
//     short partition can stall it too);
//   - Rounds: the highest consensus round any node reported while
//     partitioned (metrics.csv consensus_rounds); -1 when not scraped;
//   - RecoverS: from the heal to the first new height, above the highest
//     committed at the heal; -1 when none was seen;
//   - CaughtUpS: from the heal until every node had committed the highest
//     height committed at the heal (the minority side caught up); -1 when
//     a node never did;
//   - Sent: transactions sent (actual time) while partitioned; of them
//     CommittedDuring (their height first committed before the heal),
//     CommittedAfter (after it) and Lost (never).
type PartitionFigures struct {
	Heights                 int64
	Halted, Stalled         bool
	HaltS, RecoverS         float64
	CaughtUpS               float64
	Rounds                  float64
	Sent, CommittedDuring   int64
	CommittedAfter, Lost    int64
	healed                  bool
	lastCommitBeforeHealAgo float64 // s before the heal, when it did not halt
}

// PartitionOf computes p's figures; p.End 0 (the run ended partitioned)
// takes the last adoption row as the end and no recovery.
func PartitionOf(p Perturbation, adoption []results.Adoption, series *SeriesSet, sent []results.Sent, txs []results.Tx) PartitionFigures {
	byNode := adoptionByNode(adoption)
	tip := newTip(byNode, "")
	pf := PartitionFigures{HaltS: -1, RecoverS: -1, CaughtUpS: -1, Rounds: -1, healed: p.End != 0}
	end := p.End
	if end == 0 && len(tip.t) > 0 {
		end = tip.t[len(tip.t)-1] + 1
	}
	h0, last, top := tip.at(p.Begin), int64(0), tip.at(p.Begin)
	for i := range tip.t {
		if tip.t[i] > p.Begin && tip.t[i] < end && tip.h[i] > top {
			last, top = tip.t[i], tip.h[i]
		}
	}
	pf.Heights = top - h0
	pf.Stalled = last < p.Begin+(end-p.Begin)/2
	pf.Halted = pf.Stalled
	if quorum, known := quorumSide(p.Detail); known {
		pf.Halted = !quorum
	}
	if pf.Halted {
		pf.HaltS = max(0, float64(last-p.Begin)/1e9)
	}
	if last != 0 {
		pf.lastCommitBeforeHealAgo = float64(end-last) / 1e9
	}
	pf.Rounds = maxRound(series, p.Begin, end)
	if pf.healed {
		pf.RecoverS, pf.CaughtUpS = recovery(byNode, tip, end)
	}
	pf.Sent, pf.CommittedDuring, pf.CommittedAfter, pf.Lost = sentFate(adoption, sent, txs, p.Begin, end)
	return pf
}

// powerOf matches the groups' voting power in a partition's detail.
var powerOf = regexp.MustCompile(`\bpower ([0-9]+(?:/[0-9]+)+)(?: of ([0-9]+))?\b`)

// quorumSide reports whether a group of the partition described by
// detail held more than 2/3 of the voting power, and whether the detail
// says ("power 3/1", or "power 20/30 of 40" with the testnet's total).
func quorumSide(detail string) (quorum, known bool) {
	m := powerOf.FindStringSubmatch(detail)
	if m == nil {
		return false, false
	}
	var powers []int64
	var total int64
	for _, s := range strings.Split(m[1], "/") {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return false, false
		}
		powers = append(powers, v)
		total += v
	}
	// "power 20/30 of 40": a twin's validator's power is in two groups,
	// and the testnet's total is given.
	if m[2] != "" {
		if v, err := strconv.ParseInt(m[2], 10, 64); err == nil && v > 0 {
			total = v
		}
	}
	for _, v := range powers {
		if 3*v > 2*total {
			return true, true
		}
	}
	return false, true
}

// longestGap returns the longest time without a new height from `from`
// (the cut) until the first new height after `to` (the heal; 0: the run
// ended partitioned), false when no height came after the heal.
func (tf tipFunc) longestGap(from, to int64) (int64, bool) {
	prev, top, gap := from, tf.at(from), int64(0)
	for i, t := range tf.t {
		if t <= from || tf.h[i] <= top {
			continue
		}
		gap, prev, top = max(gap, t-prev), t, tf.h[i]
		if to != 0 && t > to {
			return gap, true
		}
	}
	return gap, false
}

// maxRound is the highest consensus_rounds sample of any node in [from,
// to]; -1 when there is none.
func maxRound(series *SeriesSet, from, to int64) float64 {
	r := -1.0
	if series == nil {
		return r
	}
	for _, node := range series.Nodes() {
		s := series.One(node, "consensus_rounds")
		if s == nil {
			continue
		}
		for i, t := range s.T {
			if t >= from && t <= to {
				r = max(r, s.V[i])
			}
		}
	}
	return r
}

// recovery returns the time from end to the first new height above the
// tip at end, and until every node had committed that tip; -1 for what
// was not seen.
func recovery(byNode map[string][]results.Adoption, tip tipFunc, end int64) (recoverS, caughtUpS float64) {
	recoverS, caughtUpS = -1, -1
	h := tip.at(end)
	if t, ok := tip.firstAbove(h, end); ok {
		recoverS = float64(t-end) / 1e9
	}
	var latest int64
	for _, rows := range byNode {
		i := slices.IndexFunc(rows, func(a results.Adoption) bool { return a.Height >= h })
		if i < 0 {
			return recoverS, -1
		}
		latest = max(latest, rows[i].At)
	}
	if len(byNode) > 0 {
		caughtUpS = max(0, float64(latest-end)/1e9)
	}
	return recoverS, caughtUpS
}

// sentFate counts the transactions sent in [from, to) and, by the time
// their height was first committed by any node, those committed before
// to, after it, and never.
func sentFate(adoption []results.Adoption, sent []results.Sent, txs []results.Tx, from, to int64) (n, during, after, lost int64) {
	first := map[int64]int64{}
	for _, a := range adoption {
		if t, ok := first[a.Height]; !ok || a.At < t {
			first[a.Height] = a.At
		}
	}
	height := map[[2]uint64]int64{}
	for i := range txs {
		if !txs[i].Duplicate {
			height[[2]uint64{uint64(txs[i].Conn), txs[i].Seq}] = txs[i].Height
		}
	}
	for i := range sent {
		s := &sent[i]
		if s.Err != "" || s.Actual == 0 || s.Actual < from || s.Actual >= to {
			continue
		}
		n++
		h, ok := height[[2]uint64{uint64(s.Conn), s.Seq}]
		switch t, seen := first[h]; {
		case !ok:
			lost++
		case seen && t < to:
			during++
		default:
			after++
		}
	}
	return n, during, after, lost
}

// partitionFigures puts the run-wide figures of the run's partition.
func partitionFigures(in Input, b *builder, ps []Perturbation) {
	p, ok := partitionOf(ps)
	if !ok {
		return
	}
	pf := PartitionOf(p, in.Adoption, in.Metrics, in.Sent, in.Txs)
	b.put("partition_heights", float64(pf.Heights), "")
	b.put("partition_halted", boolFigure(pf.Halted), "")
	switch {
	case pf.Halted && !pf.Stalled:
		b.anomaly("The chain committed %d new heights during the %s, the last %.1f s before the heal, although no side held more than 2/3 of the voting power.",
			pf.Heights, p.Label(), pf.lastCommitBeforeHealAgo)
	case pf.Halted:
		b.put("partition_halt_s", pf.HaltS, "")
	case pf.Heights == 0:
		b.anomaly("The side holding more than 2/3 of the voting power committed no new height during the %s.", p.Label())
	default:
		b.note("partition_halt_s not computed: the chain did not halt (%d heights committed while partitioned, the last %.1f s before the heal): a side held more than 2/3 of the voting power",
			pf.Heights, pf.lastCommitBeforeHealAgo)
	}
	optional := func(id string, v float64, why string) {
		if v < 0 {
			v = math.NaN()
		}
		b.put(id, v, why)
	}
	optional("partition_rounds", pf.Rounds, "no consensus_rounds sample while partitioned (metrics.csv)")
	why := "no new height after the heal"
	if !pf.healed {
		why = "the run ended before the heal"
	}
	optional("partition_recover_s", pf.RecoverS, why)
	optional("partition_caught_up_s", pf.CaughtUpS, "a node never committed the height the network had at the heal")
	for _, f := range []struct {
		id string
		v  int64
	}{{"partition_sent_txs", pf.Sent}, {"partition_committed_during_txs", pf.CommittedDuring},
		{"partition_committed_after_txs", pf.CommittedAfter}, {"partition_lost_txs", pf.Lost}} {
		b.put(f.id, float64(f.v), "")
	}
}

func boolFigure(v bool) float64 {
	if v {
		return 1
	}
	return 0
}
