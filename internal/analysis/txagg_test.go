package analysis

import (
	"slices"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/results"
)

func TestScatter(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	run := results.Run{LoadStart: t0, Load: results.Load{DurationS: 1000}}
	const n = ScatterCap*4 + 123 // decimated to every 8th point
	sec := int64(time.Second)
	fill := func() *Scatter {
		var s Scatter
		s.init(run)
		for i := range int64(n) {
			lat := int64(1000 + i%7)
			if i == 777_777 {
				lat = 60 * sec // a spike that every-8th sampling skips
			}
			s.add(t0.UnixNano()+i*1000*sec/n, lat)
		}
		return &s
	}
	s := fill()
	if !s.Decimated() || s.stride != 8 || s.Total != n {
		t.Fatalf("stride %d, total %d, decimated %v", s.stride, s.Total, s.Decimated())
	}
	if len(s.Sent) > ScatterCap || len(s.Sent) != (n+7)/8 {
		t.Errorf("%d points sampled, want %d", len(s.Sent), (n+7)/8)
	}
	for i, x := range s.Sent {
		if want := t0.UnixNano() + int64(8*i)*1000*sec/n; x != want {
			t.Fatalf("point %d at %d, want every 8th (%d)", i, x, want)
		}
	}
	sent, lat := s.Points()
	if len(sent) != len(s.Sent)+ScatterColumns || !slices.Contains(lat, 60*sec) {
		t.Errorf("points: %d (want sample + %d column maxima), spike kept: %v", len(sent), ScatterColumns, slices.Contains(lat, 60*sec))
	}
	if again := fill(); !slices.Equal(again.Sent, s.Sent) || !slices.Equal(again.Latency, s.Latency) {
		t.Error("decimation is not deterministic")
	}

	// Few points: all of them, nothing added.
	var few Scatter
	few.init(run)
	for i := range int64(10) {
		few.add(t0.UnixNano()+i, i)
	}
	if sent, _ := few.Points(); few.Decimated() || len(sent) != 10 {
		t.Errorf("few points: %d, decimated %v", len(sent), few.Decimated())
	}
}

// TestLedgerSparse: sends that do not fit a dense slice (negative or huge
// connections, far sequences) are reconciled as the dense ones are.
func TestLedgerSparse(t *testing.T) {
	sent := []results.Sent{
		{Conn: 0, Seq: 0, Intended: 1, Actual: 1},
		{Conn: 0, Seq: 1 << 40, Intended: 1, Actual: 1}, // far sequence
		{Conn: -1, Seq: 3, Intended: 1, Actual: 1},      // negative connection
		{Conn: 1 << 20, Seq: 0, Intended: 1, Actual: 1}, // huge connection
		{Conn: -1, Seq: 3, Intended: 1, Actual: 1},      // repeat
		{Conn: 0, Seq: 0, Intended: 1, Actual: 1},       // repeat
	}
	replies := []results.Reply{
		{Conn: 0, Seq: 1 << 40, Message: "mempool is full"},
		{Conn: 0, Seq: 1 << 40, Message: "later error"},
		{Conn: -1, Seq: 3, Code: 7},
		{Conn: 5, Seq: 5, OK: true}, // orphan
	}
	txs := []results.Tx{{Conn: 1 << 20, Seq: 0, Sent: 1, Height: 1, CommitTime: 2}}
	in := Input{Run: results.Run{Load: results.Load{LateThreshold: 1}}, Sent: sent, Replies: replies, Txs: txs}
	s := Summarize(in)
	for id, want := range map[string]float64{"sent_txs": 4, "committed_txs": 1, "rejected_txs": 2, "missing_txs": 1, "unanswered_txs": 2} {
		if got := s.Metrics[id]; got != want {
			t.Errorf("%s = %v, want %v", id, got, want)
		}
	}
	if s.Rejected["mempool is full"] != 1 || s.Rejected["code 7"] != 1 || len(s.Rejected) != 2 {
		t.Errorf("rejected = %v", s.Rejected)
	}
	a := AggregateTxs(in)
	if a.repeats != 2 || a.orphanReplies != 1 {
		t.Errorf("repeats %d, orphans %d", a.repeats, a.orphanReplies)
	}
}
