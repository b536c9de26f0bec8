package analysis

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/results"
)

// recoveryRun is a hand-made run whose recovery figures are worked out by
// hand below. Block h (1 … 10) has header time h s, commit time h + 1 s,
// 10·h transactions of which 5 are the run's; block 4 took round 1,
// block 7 round 2. Nodes a and b commit h at h + 1.01 s. Node c is killed
// at 3.5 s and restarted at 6.0 s: it commits h ≤ 2 at h + 1.02 s, then
// block-syncs 3, 4, 5 at 6.5, 6.6, 6.7 s and commits h ≥ 6 at h + 1.02 s.
// Node b is paused at 9.5 s until after the run (no perturb-end). Node a
// exits on its own at 12 s.
func recoveryRun() ([]results.Event, []results.Block, []results.Adoption, []results.Tx, []results.Sent) {
	s := func(f float64) int64 { return int64(math.Round(f * 1e9)) }
	ev := []results.Event{
		{At: s(-1), Node: "c", Kind: results.EventStart, Detail: "100"},
		{At: s(3.5), Node: "c", Kind: results.EventPerturbBegin, Detail: "kill 1/1, down 2.5s"},
		{At: s(3.5), Node: "c", Kind: results.EventKill},
		{At: s(3.51), Node: "c", Kind: results.EventExit, Detail: "signal 9"},
		{At: s(6), Node: "c", Kind: results.EventStart, Detail: "101"},
		{At: s(6), Node: "c", Kind: results.EventPerturbEnd, Detail: "kill 1/1"},
		{At: s(9.5), Node: "b", Kind: results.EventPerturbBegin, Detail: "pause 1/1, down 10s"},
		{At: s(12), Node: "a", Kind: results.EventExit, Detail: "signal 9"},
	}
	var blocks []results.Block
	var adoption []results.Adoption
	for h := int64(1); h <= 10; h++ {
		k := results.Block{Height: h, Time: s(float64(h)), CommitTime: s(float64(h + 1)), Txs: 10 * int(h), RunTxs: 5}
		switch h {
		case 4:
			k.Round = 1
		case 7:
			k.Round = 2
		}
		blocks = append(blocks, k)
		adoption = append(adoption, results.Adoption{Height: h, Node: "a", At: s(float64(h) + 1.01)}, results.Adoption{Height: h, Node: "b", At: s(float64(h) + 1.01)})
		switch {
		case h <= 2 || h >= 6:
			adoption = append(adoption, results.Adoption{Height: h, Node: "c", At: s(float64(h) + 1.02)})
		default:
			adoption = append(adoption, results.Adoption{Height: h, Node: "c", At: s(6.5 + 0.1*float64(h-3))})
		}
	}
	// (sent, height): latency = commit time of the height − sent.
	var txs []results.Tx
	var sent []results.Sent
	for i, x := range []struct {
		sent float64
		h    int64
	}{{1, 2}, {3, 3}, {4, 4}, {4.5, 5}, {7, 7}} {
		txs = append(txs, results.Tx{Conn: 0, Seq: uint64(i), Sent: s(x.sent), Height: x.h, CommitTime: s(float64(x.h + 1))})
		sent = append(sent, results.Sent{Conn: 0, Seq: uint64(i), Intended: s(x.sent), Actual: s(x.sent)})
	}
	sent = append(sent, results.Sent{Conn: 1, Seq: 0, Intended: s(5), Actual: s(5)}, // lost while c was down
		results.Sent{Conn: 1, Seq: 1, Intended: s(5.5), Err: "write: broken pipe"}) // not sent
	return ev, blocks, adoption, txs, sent
}

func TestRecoveryOf(t *testing.T) {
	ev, blocks, adoption, txs, sent := recoveryRun()
	got := RecoveryOf(ev, blocks, adoption, txs, sent)
	want := []map[string]float64{
		{ // kill of c, 3.5 – 6.0 s; w = 10 s
			"liveness_gap_s":      0.51, // tip 2 at 3.5 s; a commits 3 at 4.01 s
			"catch_up_s":          0.7,  // c commits 5 at 6.7 s, the others' tip then (5 at 6.01 s)
			"sync_blocks_per_s":   10,   // 3 → 5 from 6.5 to 6.7 s
			"sync_tps":            450,  // (40 + 50) txs in 0.2 s
			"multi_round_during":  1,    // block 4, committed at 5 s
			"multi_round_after":   1,    // block 7, committed at 8 s
			"latency_before_ms":   1500, // sent 1 s (2 s), 3 s (1 s)
			"latency_during_ms":   1250, // sent 4 s (1 s), 4.5 s (1.5 s)
			"latency_after_ms":    1000, // sent 7 s (1 s)
			"tps_before":          1,    // blocks 1, 2 in [−6.5, 3.5) s: 10 txs / 10 s
			"tps_during":          4,    // blocks 3, 4 in [3.5, 6) s: 10 txs / 2.5 s
			"tps_after":           3,    // blocks 5 … 10 in [6, 16) s: 30 txs / 10 s
			"sent_while_down_txs": 3,    // 4, 4.5, 5 s
			"lost_while_down_txs": 1,    // 5 s
		},
		{ // pause of b from 9.5 s, never ended: no catch-up, no during
			"liveness_gap_s":      0.51, // tip 8 at 9.5 s; a commits 9 at 10.01 s
			"multi_round_during":  0,
			"multi_round_after":   0,    // blocks 9, 10
			"latency_before_ms":   1300, // all five in [−0.5, 9.5) s: 6.5 s / 5
			"tps_before":          4,    // blocks 1 … 8: 40 txs / 10 s
			"tps_after":           1,    // blocks 9, 10: 10 txs / 10 s
			"sent_while_down_txs": 0,
			"lost_while_down_txs": 0,
		},
	}
	if len(got) != len(want) {
		t.Fatalf("%d recoveries, want %d", len(got), len(want))
	}
	for i, w := range want {
		for id, v := range w {
			if g, ok := got[i].Figures[id]; !ok || math.Abs(g-v) > 1e-9*max(1, math.Abs(v)) {
				t.Errorf("perturbation %d (%s): %s = %v (%v), want %v", i, got[i].Label(), id, g, ok, v)
			}
		}
		for id := range got[i].Figures {
			if _, ok := w[id]; !ok {
				t.Errorf("perturbation %d: unexpected %s = %v", i, id, got[i].Figures[id])
			}
			if m, ok := Lookup(id); !ok || !m.PerPerturbation {
				t.Errorf("%s is not a per-perturbation dictionary entry", id)
			}
		}
	}
	// The intervals of the differences from before: for the kill's
	// latency, the bootstrap means of {2000, 1000} and {1000, 1500} ms
	// differ by −1000 … +500 ms, and the point difference −250 ms lies in
	// the 95 % interval.
	iv, ok := got[0].Intervals["latency_during_ms"]
	if !ok || iv.Lo < -1000 || iv.Hi > 500 || iv.Excludes(-250) {
		t.Errorf("latency_during_ms interval = %+v (%v)", iv, ok)
	}
	for _, id := range []string{"latency_after_ms", "tps_during", "tps_after"} {
		d := got[0].Figures[id] - got[0].Figures[strings.Replace(strings.Replace(id, "during", "before", 1), "after", "before", 1)]
		if iv, ok := got[0].Intervals[id]; !ok || iv.Excludes(d) {
			t.Errorf("%s interval = %+v (%v), the difference %v outside", id, iv, ok, d)
		}
	}
	if _, ok := got[1].Intervals["latency_after_ms"]; ok {
		t.Errorf("an interval without transactions after: %+v", got[1].Intervals)
	}
	if again := RecoveryOf(ev, blocks, adoption, txs, sent); !reflect.DeepEqual(again, got) {
		t.Error("RecoveryOf is not deterministic")
	}
	if got[0].Label() != "kill 1/1 c" || got[0].Action != "kill" || got[1].End != 0 {
		t.Errorf("perturbations = %+v", got)
	}
}

func TestInstants(t *testing.T) {
	ev, _, _, _, _ := recoveryRun()
	got := Instants(ev, 0, 0)
	want := []Instant{
		{At: 6e9, Node: "c", Kind: results.EventStart, Detail: "101"},
		{At: 12e9, Node: "a", Kind: results.EventExit, Detail: "signal 9"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Instants = %+v, want %+v", got, want)
	}
	exits := UnplannedExits(ev, 0)
	if len(exits) != 1 || exits[0].Label() != "a exited (signal 9)" {
		t.Errorf("UnplannedExits = %+v", exits)
	}
}

func TestSummarizeEvents(t *testing.T) {
	ev, blocks, adoption, txs, sent := recoveryRun()
	s := Summarize(Input{Run: results.Run{LoadStart: time.Unix(0, 0)}, Events: ev, Blocks: blocks, Adoption: adoption, Txs: txs, Sent: sent})
	for id, want := range map[string]float64{"perturbations": 2, "node_exits": 1, "liveness_gap_max_s": 0.51, "catch_up_max_s": 0.7} {
		if got, ok := s.Metrics[id]; !ok || math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %v (%v), want %v", id, got, ok, want)
		}
	}
	if len(s.Perturbations) != 2 || s.Perturbations[1].EndS != nil {
		t.Errorf("perturbations = %+v", s.Perturbations)
	}
	found := false
	for _, a := range s.Anomalies {
		found = found || a == "a exited at 12.0 s, signal 9, outside every perturbation: it died on its own."
	}
	if !found {
		t.Errorf("no anomaly for a's exit: %q", s.Anomalies)
	}
	// Without events.csv, nothing of it.
	s = Summarize(Input{Blocks: blocks, Adoption: adoption, Txs: txs, Sent: sent})
	if _, ok := s.Metrics["perturbations"]; ok || s.Perturbations != nil {
		t.Errorf("a run without events has event figures: %v", s.Perturbations)
	}
}

func TestStoppedExitIsPlanned(t *testing.T) {
	ev := []results.Event{
		{At: 1, Node: "e", Kind: results.EventStart},
		{At: 5, Node: "e", Kind: results.EventTerm},
		{At: 6, Node: "e", Kind: results.EventExit, Detail: "exit code 0"}, // rotation's stop: planned
		{At: 7, Node: "e", Kind: results.EventStart},
		{At: 9, Node: "e", Kind: results.EventExit, Detail: "exit code 1"}, // died on its own
	}
	got := UnplannedExits(ev, 0)
	if len(got) != 1 || got[0].At != 9 {
		t.Errorf("UnplannedExits = %+v, want the exit at 9 only", got)
	}
	// The testnet's stop after the load (no term event): the nodes' last
	// events, graceful exits after the load end; a kill by the OOM killer
	// then is still unplanned.
	ev = []results.Event{
		{At: 1, Node: "a", Kind: results.EventStart},
		{At: 1, Node: "b", Kind: results.EventStart},
		{At: 1, Node: "c", Kind: results.EventStart},
		{At: 20, Node: "a", Kind: results.EventExit, Detail: "exit code 0"},
		{At: 20, Node: "b", Kind: results.EventExit, Detail: "signal 15"},
		{At: 20, Node: "c", Kind: results.EventExit, Detail: "signal 9"},
	}
	for _, c := range []struct {
		loadEnd int64
		want    int
	}{{10, 1}, {0, 3}, {30, 3}} {
		if got := UnplannedExits(ev, c.loadEnd); len(got) != c.want {
			t.Errorf("load end %d: UnplannedExits = %+v, want %d", c.loadEnd, got, c.want)
		}
	}
}

func TestCatchUps(t *testing.T) {
	s := func(f float64) int64 { return int64(math.Round(f * 1e9)) }
	// Validator a commits height h at h s; e1 syncs twice, e2 once, e3
	// has no start.
	var adoption []results.Adoption
	for h := int64(1); h <= 100; h++ {
		adoption = append(adoption, results.Adoption{Height: h, Node: "a", At: s(float64(h))})
	}
	adoption = append(adoption, results.Adoption{Height: 99, Node: "e1", At: s(100)}) // its own rows are not the tip
	ev := []results.Event{
		{At: s(10), Node: "e1", Kind: results.EventStart},
		{At: s(12), Node: "e1", Kind: results.EventCaughtUp},
		{At: s(30), Node: "e2", Kind: results.EventStart},
		{At: s(33.5), Node: "e2", Kind: results.EventCaughtUp},
		{At: s(40), Node: "e1", Kind: results.EventTerm},
		{At: s(41), Node: "e1", Kind: results.EventWipe},
		{At: s(50), Node: "e1", Kind: results.EventStart},
		{At: s(55), Node: "e1", Kind: results.EventCaughtUp},
		{At: s(60), Node: "e3", Kind: results.EventCaughtUp},
	}
	got := CatchUps(ev, adoption, 0)
	want := []CatchUp{
		{Node: "e1", StartS: 10, CatchUpS: 2, StartHeight: 10, Height: 12, BlocksPerS: 6},
		{Node: "e2", StartS: 30, CatchUpS: 3.5, StartHeight: 30, Height: 33, BlocksPerS: 33 / 3.5},
		{Node: "e1", StartS: 50, CatchUpS: 5, StartHeight: 50, Height: 55, BlocksPerS: 11},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("CatchUps =\n%+v\nwant\n%+v", got, want)
	}
	st := SummarizeCatchUps(got)
	for name, c := range map[string][2]float64{
		"mean": {st.Mean, 3.5}, "p50": {st.P50, 3.5}, "p99": {st.P99, 3.5 + 0.98*1.5}, "max": {st.Max, 5},
		"blocks/s": {st.BlocksPerSMean, (6 + 33/3.5 + 11) / 3},
		"slope":    {st.SlopeMSPerHeight, 75}, // exactly linear: 1.5 s per 20 heights
	} {
		if math.Abs(c[0]-c[1]) > 1e-9 {
			t.Errorf("%s = %v, want %v", name, c[0], c[1])
		}
	}
	if st := SummarizeCatchUps(got[:1]); st.N != 1 || !math.IsNaN(st.SlopeMSPerHeight) || st.Max != 2 {
		t.Errorf("one catch-up: %+v", st)
	}
	sum := Summarize(Input{Run: results.Run{LoadStart: time.Unix(0, 0)}, Events: ev, Adoption: adoption})
	if sum.Metrics["rotation_catch_ups"] != 3 || sum.Metrics["rotation_catch_up_slope_ms_per_height"] == 0 || len(sum.CatchUps) != 3 {
		t.Errorf("summary: %v %+v", sum.Metrics, sum.CatchUps)
	}
	for _, m := range Dictionary() {
		if m.Group == GroupEvents && strings.HasPrefix(m.ID, "rotation_") {
			if _, ok := sum.Metrics[m.ID]; !ok {
				t.Errorf("%s not in the rotation summary", m.ID)
			}
		}
	}
}

func TestGapCause(t *testing.T) {
	ev, _, _, _, _ := recoveryRun()
	for _, c := range []struct {
		node     string
		from, to float64
		want     string
	}{
		{"c", 3, 7, "it was down: kill 1/1 c"},
		{"c", 6.5, 8, ""},                         // after the kill ended
		{"b", 20, 30, "it was down: pause 1/1 b"}, // never ended
		{"a", 11, 13, "it exited, signal 9"},
		{"a", 1, 2, ""},
	} {
		if got := gapCause(ev, c.node, int64(c.from*1e9), int64(c.to*1e9)); got != c.want {
			t.Errorf("gapCause(%s, %v, %v) = %q, want %q", c.node, c.from, c.to, got, c.want)
		}
	}
}
