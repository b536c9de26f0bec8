package analysis

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cometlab/cometlab/internal/results"
)

// absentChain is autopsyChain with v1 absent: never a precommit, and at
// every height whose round-0 proposer it is (H mod 4 = 0) the height is
// decided in round 1, 3 s late (timeout_propose).
func absentChain() Input {
	in := autopsyChain()
	for h := int64(4); h <= 40; h += 4 {
		slowAt(&in, h, 1, 3e9)
	}
	for h := int64(1); h <= 40; h++ {
		setVote(&in, h, "v1", "absent", 0)
	}
	in.Run.Absent = &results.Absent{Validators: []string{"v1"}, Power: 1, TotalPower: 4}
	return in
}

// TestAbsentFigures: a known answer. 10 of 40 heights after round 0, each
// named as v1's (the absent proposer's); the anomaly about rounds above 0
// is gone, and it fires again when v1 is not declared absent (the check
// can fail).
func TestAbsentFigures(t *testing.T) {
	in := absentChain()
	b := &builder{s: &Summary{Metrics: map[string]float64{}}}
	autopsyFigures(in, b, false)
	expected := absentFigures(in, b)
	moreBlocks(in, b, false, expected)
	want := map[string]float64{"absent_power_share": 0.25, "absent_multi_round_share": 0.25, "absent_proposer_heights": 10, "blocks_multi_round": 10}
	for id, v := range want {
		if got, ok := b.s.Metrics[id]; !ok || got != v {
			t.Errorf("%s = %v (%v), want %v", id, got, ok, v)
		}
	}
	for _, v := range b.s.Autopsy {
		if v.Round > 0 && (v.Cause != CauseProposerAbsent || v.Node != "v1" || !strings.Contains(v.Evidence, "absent by design")) {
			t.Errorf("height %d: verdict %s %s, want %s v1", v.Height, v.Cause, v.Node, CauseProposerAbsent)
		}
	}
	if len(b.s.Anomalies) != 0 {
		t.Errorf("anomalies %q, want none: the absent proposer is expected", b.s.Anomalies)
	}

	in.Run.Absent = nil // the same chain, v1 not declared absent
	b = &builder{s: &Summary{Metrics: map[string]float64{}}}
	autopsyFigures(in, b, false)
	moreBlocks(in, b, false, absentFigures(in, b))
	if _, ok := b.s.Metrics["absent_multi_round_share"]; ok {
		t.Error("absent_multi_round_share put for a run without absent validators")
	}
	if len(b.s.Anomalies) != 1 || !strings.Contains(b.s.Anomalies[0], "10 blocks were committed in a round above 0") {
		t.Errorf("anomalies %q, want the rounds-above-0 one", b.s.Anomalies)
	}
}

// TestInjectedEvidence: each evidence event is matched with the committed
// row of its validator and height, once; one never committed is an
// anomaly, and so is asking for more than was injected.
func TestInjectedEvidence(t *testing.T) {
	names := map[string]string{"AA": "v1", "BB": "v2"}
	ev := func(node string, h int64) results.Event {
		return results.Event{Node: node, Kind: results.EventEvidence, Detail: EvidenceDetail(h, "v3")}
	}
	in := Input{Validators: names, Run: results.Run{Evidence: 3},
		Events: []results.Event{ev("v1", 10), {Node: "v1", Kind: results.EventKill}, ev("v2", 10)},
		Evidence: []results.Evidence{
			{Height: 13, Type: "DuplicateVoteEvidence", EvidenceHeight: 10, Validator: "aa"},
			{Height: 14, Type: "DuplicateVoteEvidence", EvidenceHeight: 9, Validator: "BB"},
		}}
	b := &builder{s: &Summary{Metrics: map[string]float64{}}}
	evidenceFigures(in, b)
	want := []Injected{{Node: "v1", Height: 10, Via: "v3", Committed: 13}, {Node: "v2", Height: 10, Via: "v3"}}
	if !reflect.DeepEqual(b.s.Injected, want) {
		t.Errorf("injected %+v, want %+v", b.s.Injected, want)
	}
	if b.s.Metrics["evidence_injected"] != 2 || b.s.Metrics["evidence_injected_committed"] != 1 {
		t.Errorf("metrics %v, want 2 injected, 1 committed", b.s.Metrics)
	}
	got := strings.Join(b.s.Anomalies, "\n")
	for _, w := range []string{"2 of the 3 duplicate-vote evidences asked for", "1 duplicate-vote evidence was injected and not committed in the run's blocks: v2 at height 10"} {
		if !strings.Contains(got, w) {
			t.Errorf("anomalies %q lack %q", got, w)
		}
	}
}

func TestEvidenceDetail(t *testing.T) {
	for _, tc := range []struct {
		in     string
		height int64
		via    string
		ok     bool
	}{
		{EvidenceDetail(12, "validator02"), 12, "validator02", true},
		{"DuplicateVoteEvidence height x via v", 0, "", false},
		{"kill 1/2", 0, "", false},
		{"", 0, "", false},
	} {
		t.Run(fmt.Sprint(tc.in), func(t *testing.T) {
			h, via, ok := ParseEvidenceDetail(tc.in)
			if ok != tc.ok || (ok && (h != tc.height || via != tc.via)) {
				t.Errorf("ParseEvidenceDetail(%q) = %d, %q, %v", tc.in, h, via, ok)
			}
		})
	}
}

// TestCompleteCycle: the slot of a validator that never proposed is
// filled from the address order; no blocks (every rotation fits) or
// blocks against the address order give nil.
func TestCompleteCycle(t *testing.T) {
	sorted := []string{"A1", "A2", "A3", "A4"}
	blk := func(h int64, r int32, p string) results.Block { return results.Block{Height: h, Round: r, Proposer: p} }
	for _, tc := range []struct {
		name   string
		blocks []results.Block
		want   []string
	}{
		{"hole filled", []results.Block{blk(1, 0, "A2"), blk(2, 0, "A3"), blk(3, 0, "A4"), blk(4, 1, "A2")}, []string{"A1", "A2", "A3", "A4"}},
		{"offset", []results.Block{blk(1, 0, "a3"), blk(2, 0, "A4")}, []string{"A2", "A3", "A4", "A1"}},
		{"no blocks", nil, nil},
		{"against the address order", []results.Block{blk(1, 0, "A3"), blk(2, 0, "A2")}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := completeCycle(tc.blocks, sorted); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("completeCycle = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestDeclaredAbsentNotLate: a height slow for another reason does not
// blame the votes of a validator absent by design; without the
// declaration its absent precommit is blamed (the check can fail).
func TestDeclaredAbsentNotLate(t *testing.T) {
	in := absentChain()
	slowAt(&in, 21, 0, 4e9) // round 0, far above the median interval
	for _, declared := range []bool{true, false} {
		if !declared {
			in.Run.Absent = nil
		}
		var got *Verdict
		for _, v := range Autopsy(in) {
			if v.Height == 21 {
				got = &v
			}
		}
		switch {
		case got == nil:
			t.Fatalf("declared %v: height 21 not slow", declared)
		case declared && got.Cause == CauseVotesLate:
			t.Errorf("declared absent: height 21 blamed on votes: %s", got.Evidence)
		case !declared && (got.Cause != CauseVotesLate || got.Node != "v1"):
			t.Errorf("undeclared: height 21 %s %s, want votes_late v1", got.Cause, got.Node)
		}
	}
}

// FuzzEvidenceDetail: ParseEvidenceDetail never panics, and reads back
// what EvidenceDetail wrote for a node name.
func FuzzEvidenceDetail(f *testing.F) {
	f.Add(EvidenceDetail(12, "validator01"), int64(12), "validator01")
	f.Add("DuplicateVoteEvidence height -1 via x y", int64(0), "v")
	f.Fuzz(func(t *testing.T, s string, h int64, via string) {
		ParseEvidenceDetail(s)
		if via == "" || strings.ContainsAny(via, " \t\n\r\v\f\u0085\u00a0") || !utf8.ValidString(via) {
			return
		}
		if gh, gv, ok := ParseEvidenceDetail(EvidenceDetail(h, via)); !ok || gh != h || gv != via {
			t.Errorf("round trip of %d %q: %d %q %v", h, via, gh, gv, ok)
		}
	})
}
