package analysis

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/results"
)

func hashRow(h int64, node, block, app, src string) results.HashRow {
	return results.HashRow{Height: h, Node: node, BlockHash: block, AppHash: app, Source: src}
}

// TestAgreement proves the agreement check fires: one node differing at
// one height is named with the height; heights one node alone reported
// are not counted.
func TestAgreement(t *testing.T) {
	hd, app := results.HashFromHeader, results.HashFromApp
	agreed := []results.HashRow{
		hashRow(5, "v1", "B5", "A5", hd), hashRow(5, "v2", "B5", "A5", hd), hashRow(5, "v3", "B5", "A5", hd),
		hashRow(6, "v1", "B6", "A6", hd), hashRow(6, "v2", "B6", "A6", hd), hashRow(6, "v3", "B6", "A6", hd),
		hashRow(7, "v1", "B7", "A7", hd), // v1 alone: not compared
	}
	tests := []struct {
		name    string
		rows    []results.HashRow
		heights int64
		want    []Disagreement
	}{
		{"all agree", agreed, 2, nil},
		{"one app hash differs", append(slicesClone(agreed), hashRow(6, "v4", "B6", "AX", hd)), 2,
			[]Disagreement{{Height: 6, Hash: "app", Majority: "A6", Agreed: []string{"v1", "v2", "v3"}, Differing: []NodeHash{{"v4", "AX"}}}}},
		{"a fork of block hashes", append(slicesClone(agreed), hashRow(5, "v4", "BF", "A5", hd), hashRow(5, "v5", "BF", "A5", hd)), 2,
			[]Disagreement{{Height: 5, Hash: "block", Majority: "B5", Agreed: []string{"v1", "v2", "v3"}, Differing: []NodeHash{{"v4", "BF"}, {"v5", "BF"}}}}},
		{"a halted node's app row", append(slicesClone(agreed), hashRow(6, "v3", "", "A6'", app)), 2,
			[]Disagreement{{Height: 6, Hash: "app", Majority: "A6", Agreed: []string{"v1", "v2", "v3"}, Differing: []NodeHash{{"v3", "A6'"}}}}},
		{"nothing", nil, 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, _, dis := Agreement(tc.rows)
			if h != tc.heights || !reflect.DeepEqual(dis, tc.want) {
				t.Errorf("Agreement = %d heights, %+v\nwant %d, %+v", h, dis, tc.heights, tc.want)
			}
		})
	}
}

func slicesClone(r []results.HashRow) []results.HashRow { return append([]results.HashRow(nil), r...) }

func TestLossExplanation(t *testing.T) {
	end := time.Unix(100, 0)
	drained := &results.Drain{Seconds: 2, Drained: true}
	run := func(status string, d *results.Drain, app string) results.Run {
		return results.Run{Status: status, Drain: d, LoadEnd: end, App: app}
	}
	kill := []results.Event{{At: end.Add(time.Second).UnixNano(), Node: "v2", Kind: results.EventKill}}
	stopAfter := []results.Event{{At: end.Add(5 * time.Second).UnixNano(), Node: "v2", Kind: results.EventTerm}}
	appMempool := run(results.StatusComplete, drained, "e2e")
	appMempool.Nodes = []results.Node{{Name: "v1", Mempool: "app"}}
	full := map[string]int64{"Internal error: mempool is full: number of txs 5000 (max: 5000), total txs bytes 5120000 (max: 1073741824)": 7, "other": 1}
	tests := []struct {
		name     string
		run      results.Run
		events   []results.Event
		rejected map[string]int64
		want     string
	}{
		{"nothing explains", run(results.StatusComplete, drained, "kvstore"), stopAfter, map[string]int64{"tx too large": 3}, ""},
		{"a full mempool", run(results.StatusComplete, drained, "kvstore"), nil, full,
			`the mempool was full during the load (7 sends refused with "mempool is full"): CometBFT's flood mempool checks for room before CheckTx ` +
				"and again after it, and drops a transaction whose CheckTx passed while others took the last places, after the reply said code 0 (broadcast_tx_async answers once the first check passes; broadcast_tx_sync returns CheckTx's code 0 all the same, cometbft#1516)"},
		{"a full app-side mempool: not the flood mempool's race", appMempool, nil, full, ""},
		{"partial", run(results.StatusPartial, drained, "kvstore"), nil, nil, "the run ended partial"},
		{"no drain", run(results.StatusComplete, nil, "kvstore"), nil, nil, "the run did not wait for the mempools to empty"},
		{"not drained", run(results.StatusComplete, &results.Drain{Seconds: 30}, "kvstore"), nil, nil, "the mempools had not emptied when the drain gave up"},
		{"a node killed", run(results.StatusComplete, drained, "kvstore"), kill, nil, "v2: kill before the drain ended (a mempool is not persisted)"},
		{"own app", run(results.StatusComplete, drained, "myapp"), nil, nil, `the app "myapp" is the user's own: its CheckTx may refuse what broadcast_tx_async accepted`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := lossExplanation(tc.run, tc.events, tc.rejected); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestSafetySummary proves each violation reaches safety_violations: a
// disagreement, a transaction committed twice (the synthetic run has
// two), an accepted transaction lost with nothing to explain it; and
// that evidence is counted and named.
func TestSafetySummary(t *testing.T) {
	base := synthetic(2, 300, 10, true)
	base.Run.Drain = &results.Drain{Seconds: 1, Drained: true}
	base.Run.App = "kvstore"
	base.Hashes = agreedHashes(base.Blocks, "validator01", "validator02")
	if s := Summarize(base); s.Safety.Explained == "" || s.Metrics["unexplained_lost_txs"] != 0 {
		// the synthetic run refuses sends with "mempool is full": the flood mempool's race (cometbft#1516)
		t.Errorf("a run whose mempool was full: losses unexplained (%q, %v unexplained)", s.Safety.Explained, s.Metrics["unexplained_lost_txs"])
	}
	base.Replies = slices.Clone(base.Replies)
	for i := range base.Replies {
		if strings.Contains(base.Replies[i].Message, "mempool is full") {
			base.Replies[i].Message = "tx too large" // nothing that explains a loss
		}
	}
	s := Summarize(base)
	lost := s.Metrics["lost_acked_txs"]
	if lost == 0 || s.Metrics["duplicate_txs"] != 2 {
		t.Fatalf("synthetic run: lost %v, duplicates %v; want some and 2", lost, s.Metrics["duplicate_txs"])
	}
	if got, want := s.Metrics["safety_violations"], 2+lost; got != want || s.Metrics["unexplained_lost_txs"] != lost {
		t.Errorf("safety_violations = %v, want %v (2 duplicates + %v lost)", got, want, lost)
	}
	if s.Metrics["disagreeing_heights"] != 0 || s.Metrics["agreed_heights"] != float64(len(base.Blocks)) {
		t.Errorf("agreement: %v disagreeing, %v agreed of %d", s.Metrics["disagreeing_heights"], s.Metrics["agreed_heights"], len(base.Blocks))
	}

	in := base
	in.Run.Drain = nil // explains the lost ones
	in.Hashes = append(slicesClone(base.Hashes), hashRow(base.Blocks[3].Height, "validator03", "BX", "AX", results.HashFromHeader))
	in.Evidence = []results.Evidence{{Height: 9, Type: "DuplicateVoteEvidence", EvidenceHeight: 8, Validator: "AB12"}}
	in.Validators = map[string]string{"AB12": "validator02"}
	s = Summarize(in)
	if s.Metrics["unexplained_lost_txs"] != 0 || s.Safety.Explained == "" {
		t.Errorf("lost not explained without a drain: %v (%q)", s.Metrics["unexplained_lost_txs"], s.Safety.Explained)
	}
	if s.Metrics["disagreeing_heights"] != 1 || s.Metrics["safety_violations"] != 3 || len(s.Safety.Disagreements) != 2 {
		t.Errorf("one node differing at one height (block and app): %v disagreeing, %v violations; want 1, 3",
			s.Metrics["disagreeing_heights"], s.Metrics["safety_violations"])
	}
	if d := s.Safety.Disagreements[0]; d.Height != base.Blocks[3].Height || d.Differing[0].Node != "validator03" {
		t.Errorf("first disagreement %+v", d)
	}
	if s.Metrics["evidence_committed"] != 1 || s.Safety.Evidence[0].Node != "validator02" {
		t.Errorf("evidence %v: %+v", s.Metrics["evidence_committed"], s.Safety.Evidence)
	}
}

// BenchmarkAgreement is the safety check's hash comparison on an hour of
// 1-s blocks: 4 nodes (the default testnet) and 200 (qa-infra's largest),
// every node agreeing at every height. Its figures are in
// docs/analysis.md ("the safety check's cost").
func BenchmarkAgreement(b *testing.B) {
	for _, nodes := range []int{4, 200} {
		const heights = 3600
		rows := make([]results.HashRow, 0, nodes*heights)
		for h := range int64(heights) {
			block := fmt.Sprintf("%064X", h)
			app := fmt.Sprintf("%064X", h+1)
			for n := range nodes {
				rows = append(rows, results.HashRow{Height: h + 1, Node: fmt.Sprintf("validator%03d", n), BlockHash: block, AppHash: app, Source: results.HashFromHeader})
			}
		}
		b.Run(fmt.Sprintf("%d-nodes", nodes), func(b *testing.B) {
			for b.Loop() {
				if heights, _, dis := Agreement(rows); heights != 3600 || len(dis) != 0 {
					b.Fatalf("%d heights, %d disagreements", heights, len(dis))
				}
			}
		})
	}
}

// TestTwiceExplanation: transactions committed twice are explained by a
// node that started again after a stop (its mempool cache was empty), and
// by a node with the app-side mempool (replay protection is the app's),
// and by nothing else: a node only killed, or only started, explains nothing.
func TestTwiceExplanation(t *testing.T) {
	ev := func(at int64, node, kind string) results.Event { return results.Event{At: at, Node: node, Kind: kind} }
	for _, tc := range []struct {
		name   string
		events []results.Event
		want   string
		nodes  []results.Node
	}{
		{"app-side mempool", nil, "v1 ran the app-side mempool", []results.Node{{Name: "v1", Mempool: "app"}, {Name: "v2"}}},
		{"nop mempool explains nothing", nil, "", []results.Node{{Name: "v1", Mempool: "nop"}}},
		{"wiped and started again", []results.Event{ev(1, "v5", results.EventStart), ev(5, "v5", results.EventWipe), ev(6, "v5", results.EventStart)},
			"v5 started again after a wipe", nil},
		{"restarted", []results.Event{ev(1, "v6", results.EventStart), ev(5, "v6", results.EventTerm), ev(6, "v6", results.EventStart)},
			"v6 started again after a term", nil},
		{"killed, never back", []results.Event{ev(1, "v2", results.EventStart), ev(5, "v2", results.EventKill)}, "", nil},
		{"started once", []results.Event{ev(1, "v2", results.EventStart)}, "", nil},
		{"no events", nil, "", nil},
	} {
		got := twiceExplanation(results.Run{Nodes: tc.nodes}, tc.events)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	// Explained, duplicates are no violation; unexplained, they are.
	s := &Safety{CommittedTwice: 3, TwiceExplained: "x"}
	if s.Violations() != 0 {
		t.Errorf("explained duplicates: %d violations, want 0", s.Violations())
	}
	s.TwiceExplained = ""
	if s.Violations() != 3 {
		t.Errorf("unexplained duplicates: %d violations, want 3", s.Violations())
	}
}
