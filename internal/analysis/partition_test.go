package analysis

import (
	"testing"

	"github.com/cometlab/cometlab/internal/results"
)

// sec is s seconds in Unix ns from 0.
func sec(s float64) int64 { return int64(s * 1e9) }

// commits returns node's adoption rows: heights from..to, height h at
// at(h) seconds.
func commits(node string, from, to int64, at func(h int64) float64) []results.Adoption {
	var out []results.Adoption
	for h := from; h <= to; h++ {
		out = append(out, results.Adoption{Height: h, Node: node, At: sec(at(h))})
	}
	return out
}

// TestPartitionOf checks the partition figures against known answers:
// a 50/50 split that halts (the in-flight height 11 lands 0.5 s after the
// cut, nothing more until 3.5 s after the heal), and a 75/25 split that
// does not (a, b, c go on, d catches up 2.5 s after the heal); the rounds
// from consensus_rounds; and the fate of the transactions sent while
// partitioned.
func TestPartitionOf(t *testing.T) {
	every := func(h int64) float64 { return float64(h) }
	p := Perturbation{Action: PartitionAction, Begin: sec(10.5), End: sec(16.5)}
	var halt []results.Adoption
	for _, n := range []string{"a", "b", "c", "d"} {
		halt = append(halt, commits(n, 1, 11, every)...)
		halt = append(halt, commits(n, 12, 14, func(h int64) float64 { return float64(h) + 8 })...) // 12 at 20 s
	}
	var split []results.Adoption
	for _, n := range []string{"a", "b", "c"} {
		split = append(split, commits(n, 1, 20, every)...)
	}
	split = append(split, commits("d", 1, 10, every)...)
	split = append(split, commits("d", 11, 20, func(h int64) float64 { return max(float64(h), 19) })...) // at 16 by 19 s
	rounds := NewSeriesSet([]results.Metric{
		{Time: sec(9), Node: "a", Name: "cometbft_consensus_rounds", Value: 0},
		{Time: sec(14), Node: "a", Name: "cometbft_consensus_rounds", Value: 3},
		{Time: sec(15), Node: "c", Name: "cometbft_consensus_rounds", Value: 4},
		{Time: sec(18), Node: "c", Name: "cometbft_consensus_rounds", Value: 9}, // after the heal
	})
	sent := []results.Sent{
		{Conn: 0, Seq: 0, Actual: sec(9)},  // before
		{Conn: 0, Seq: 1, Actual: sec(11)}, // height 12
		{Conn: 0, Seq: 2, Actual: sec(12)}, // never committed
		{Conn: 0, Seq: 3, Actual: sec(13), Err: "closed"},
	}
	txs := []results.Tx{{Conn: 0, Seq: 0, Height: 10}, {Conn: 0, Seq: 1, Height: 12}}
	for _, tc := range []struct {
		name, detail string
		adoption     []results.Adoption
		want         PartitionFigures
	}{
		{"50/50 halts", "partition 50/50 power 2/2, down 6s: a b | c d", halt, PartitionFigures{Heights: 1, Halted: true, Stalled: true,
			HaltS: 0.5, RecoverS: 3.5, CaughtUpS: 0, Rounds: 4, Sent: 2, CommittedAfter: 1, Lost: 1}},
		{"75/25 goes on", "partition 75/25 power 3/1, down 6s: a b c | d", split, PartitionFigures{Heights: 6, HaltS: -1, RecoverS: 0.5,
			CaughtUpS: 2.5, Rounds: 4, Sent: 2, CommittedDuring: 1, Lost: 1}},
		// A majority that stalls (the cut-off validator's turn to propose)
		// did not halt: the power says so.
		{"75/25 stalls", "partition 75/25 power 3/1, down 6s: a b c | d", halt, PartitionFigures{Heights: 1, Stalled: true, HaltS: -1,
			RecoverS: 3.5, CaughtUpS: 0, Rounds: 4, Sent: 2, CommittedAfter: 1, Lost: 1}},
		{"no power: the data decide", "partition", halt, PartitionFigures{Heights: 1, Halted: true, Stalled: true,
			HaltS: 0.5, RecoverS: 3.5, CaughtUpS: 0, Rounds: 4, Sent: 2, CommittedAfter: 1, Lost: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := p
			p.Detail = tc.detail
			got := PartitionOf(p, tc.adoption, rounds, sent, txs)
			got.healed, got.lastCommitBeforeHealAgo = false, 0
			if got != tc.want {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
	unhealed := p
	unhealed.End = 0
	if got := PartitionOf(unhealed, halt, nil, nil, nil); got.RecoverS != -1 || got.CaughtUpS != -1 || got.Rounds != -1 {
		t.Errorf("a partition the run ended in: %+v, want no recovery and no rounds", got)
	}
}

// TestPartitionLivenessGap: a partition's liveness gap is the longest
// time without a new height from the cut to the first after the heal, not
// the time to the height in flight at the cut.
func TestPartitionLivenessGap(t *testing.T) {
	var adoption []results.Adoption
	for _, n := range []string{"a", "b", "c", "d"} {
		adoption = append(adoption, commits(n, 1, 11, func(h int64) float64 { return float64(h) })...)      // 11 at 11 s, in flight
		adoption = append(adoption, commits(n, 12, 14, func(h int64) float64 { return float64(h) + 8 })...) // 12 at 20 s
	}
	ev := []results.Event{
		{At: sec(10.5), Kind: results.EventPerturbBegin, Detail: "partition 50/50 power 2/2, down 6s: a b | c d"},
		{At: sec(16.5), Kind: results.EventPerturbEnd, Detail: "partition 50/50 power 2/2, down 6s: a b | c d"},
	}
	rec := RecoveryOf(ev, nil, adoption, nil, nil)
	if len(rec) != 1 || rec[0].Figures["liveness_gap_s"] != 9 {
		t.Errorf("liveness gap %v, want 9 s (11 s to 20 s)", rec)
	}
}

// TestQuorumSide: a group holding more than 2/3 of the power.
func TestQuorumSide(t *testing.T) {
	for _, tc := range []struct {
		detail        string
		quorum, known bool
	}{
		{"partition 50/50 power 2/2, down 6s: a b | c d", false, true},
		{"partition 75/25 power 3/1, down 6s: a b c | d", true, true},
		{"partition power 2/1, down 6s: a b | c", false, true}, // exactly 2/3 is not more
		{"partition power 11/3/2, down 1s: a | b | c", true, true},
		// A twin of validator a beside c and d: the groups' sum is 50, the
		// testnet's power 40, and 30 of 40 is more than 2/3 (30 of 50 is not).
		{"partition power 20/30 of 40, down 4s: a b | twin c d", true, true},
		{"partition power 20/20 of 40, down 4s: a b | twin c", false, true},
		{"partition 50/50, down 6s: a b | c d", false, false},
		{"kill 1/1, down 5s", false, false},
	} {
		if q, k := quorumSide(tc.detail); q != tc.quorum || k != tc.known {
			t.Errorf("%q: quorum %v known %v, want %v %v", tc.detail, q, k, tc.quorum, tc.known)
		}
	}
}

// TestPartitionSummary checks that a run with a partition gets its
// figures in summary.json and a note when the chain did not halt, and
// that the partition is labelled without a node.
func TestPartitionSummary(t *testing.T) {
	ev := []results.Event{
		{At: sec(10.5), Kind: results.EventPerturbBegin, Detail: "partition 75/25 power 3/1, down 6s: a b c | d"},
		{At: sec(16.5), Kind: results.EventPerturbEnd, Detail: "partition 75/25 power 3/1, down 6s: a b c | d"},
	}
	ps := Perturbations(ev)
	if len(ps) != 1 || !ps[0].IsPartition() || ps[0].Label() != "partition 75/25 power 3/1" {
		t.Fatalf("perturbations %+v", ps)
	}
	var adoption []results.Adoption
	for _, n := range []string{"a", "b", "c"} {
		adoption = append(adoption, commits(n, 1, 20, func(h int64) float64 { return float64(h) })...)
	}
	b := &builder{s: &Summary{Metrics: map[string]float64{}}}
	partitionFigures(Input{Events: ev, Adoption: adoption}, b, ps)
	m := b.s.Metrics
	if m["partition_halted"] != 0 || m["partition_heights"] != 6 || m["partition_recover_s"] != 0.5 {
		t.Errorf("metrics %v", m)
	}
	if _, ok := m["partition_halt_s"]; ok || len(b.s.Notes) == 0 {
		t.Errorf("partition_halt_s %v with notes %q: want it absent, with a note that the chain did not halt", m["partition_halt_s"], b.s.Notes)
	}
}
