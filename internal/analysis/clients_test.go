package analysis

import (
	"reflect"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/results"
)

// TestClientAccounting: a run of two clients through a sentinel, with a
// known fate for every transaction, is accounted per client and in all:
// the sentinel's refusals (code −32002) are their own category, the node's
// rejection (−32603) is rejected, a silent loss is missing, and each
// client's latency percentiles are its own transactions'.
func TestClientAccounting(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	ns := func(ms int) int64 { return t0.Add(time.Duration(ms) * time.Millisecond).UnixNano() }
	run := results.Run{ID: "r", Status: results.StatusComplete, Target: "v1", LoadStart: t0,
		Sentinel: &results.Sentinel{Addr: "127.0.0.1:1", Upstream: "http://127.0.0.1:2"},
		Load: results.Load{Connections: 3, Rate: 10, Size: 256, DurationS: 10, Clients: []results.Client{
			{Name: "greedy", Key: "greedy", Connections: 2, Rate: 12, FirstConn: 0},
			{Name: "small", Key: "small", Connections: 1, Rate: 6, FirstConn: 2},
		}}}
	// The target has height 2 at 400 ms: observed latency 400 ms − sent.
	in := Input{Run: run, Adoption: []results.Adoption{{Height: 2, Node: "v1", At: ns(400)}}}
	send := func(conn int, seq uint64) {
		in.Sent = append(in.Sent, results.Sent{Conn: conn, Seq: seq, Intended: ns(int(seq)), Actual: ns(int(seq)), Size: 256})
	}
	reply := func(conn int, seq uint64, code int64, msg string) {
		in.Replies = append(in.Replies, results.Reply{Conn: conn, Seq: seq, At: ns(int(seq) + 1), OK: code == 0, Code: code, Message: msg})
	}
	commit := func(conn int, seq uint64, latencyMs int) {
		in.Txs = append(in.Txs, results.Tx{Conn: conn, Seq: seq, Sent: ns(int(seq)), Height: 2,
			BlockTime: ns(int(seq) + latencyMs - 1), CommitTime: ns(int(seq) + latencyMs)})
	}
	// greedy, conn 0: 0–3 committed at 100 ms, 4–6 refused (client queue
	// full), 7 rejected by the node; conn 1: 0 committed at 300 ms, 1
	// missing (accepted, never committed), 2 unsent.
	for seq := range uint64(8) {
		send(0, seq)
	}
	for seq := range uint64(4) {
		reply(0, seq, 0, "")
		commit(0, seq, 100)
	}
	for seq := uint64(4); seq < 7; seq++ {
		reply(0, seq, -32002, "client queue full")
	}
	reply(0, 7, -32603, "mempool is full")
	send(1, 0)
	reply(1, 0, 0, "")
	commit(1, 0, 300)
	send(1, 1)
	reply(1, 1, 0, "")
	in.Sent = append(in.Sent, results.Sent{Conn: 1, Seq: 2, Intended: ns(2), Err: "not connected"})
	// small, conn 2: 0–1 committed at 50 ms.
	for seq := range uint64(2) {
		send(2, seq)
		reply(2, seq, 0, "")
		commit(2, seq, 50)
	}
	s := Summarize(in)
	for id, want := range map[string]float64{"sent_txs": 12, "committed_txs": 7, "refused_txs": 3, "rejected_txs": 1, "missing_txs": 1, "unsent_txs": 1} {
		if got := s.Metrics[id]; got != want {
			t.Errorf("%s = %v, want %v", id, got, want)
		}
	}
	if want := map[string]int64{"client queue full": 3}; !reflect.DeepEqual(s.Refused, want) {
		t.Errorf("refused %v, want %v", s.Refused, want)
	}
	if want := map[string]int64{"mempool is full": 1}; !reflect.DeepEqual(s.Rejected, want) {
		t.Errorf("rejected %v, want %v", s.Rejected, want)
	}
	f := func(v float64) *float64 { return &v }
	want := []ClientSummary{
		{Name: "greedy", Key: "greedy", OfferedTPS: 24, Sent: 10, Unsent: 1, Committed: 5, Refused: 3, Rejected: 1, Missing: 1, CommittedTPS: 0.5,
			BlockP50: f(100), BlockP99: f(292), ObservedP50: f(399), ObservedP99: f(400), Reasons: map[string]int64{"client queue full": 3, "mempool is full": 1}},
		{Name: "small", Key: "small", OfferedTPS: 6, Sent: 2, Committed: 2, CommittedTPS: 0.2, BlockP50: f(50), BlockP99: f(50),
			ObservedP50: f(399.5), ObservedP99: f(399.99)},
	}
	if !reflect.DeepEqual(s.Clients, want) {
		for i := range max(len(s.Clients), len(want)) {
			if i < len(s.Clients) && i < len(want) {
				g, w := s.Clients[i], want[i]
				t.Errorf("client %d:\n got %+v (latencies %v)\nwant %+v (latencies %v)", i, g, lat(g), w, lat(w))
			}
		}
		t.Errorf("%d clients, want %d", len(s.Clients), len(want))
	}
	if got := s.Clients[1].CommittedShare(); got != 1 {
		t.Errorf("small client's committed share %v, want 1", got)
	}
	found := false
	for _, a := range s.Anomalies {
		found = found || a == "client greedy: 1 sent transaction is missing (neither committed nor refused)"
	}
	if !found {
		t.Errorf("no anomaly names the client with a missing transaction: %q", s.Anomalies)
	}
}

func lat(c ClientSummary) []float64 {
	var out []float64
	for _, p := range []*float64{c.BlockP50, c.BlockP99, c.ObservedP50, c.ObservedP99} {
		v := -1.0
		if p != nil {
			v = *p
		}
		out = append(out, v)
	}
	return out
}

// TestReasonsWithoutNumbers: replies that differ only in their numbers
// count as one reason, told by the first message; different codes without
// a message stay apart.
func TestReasonsWithoutNumbers(t *testing.T) {
	var l ledger
	for i, m := range []struct {
		msg  string
		code int64
	}{
		{"mempool is full: number of txs 5003 (max: 5000)", -32603},
		{"mempool is full: number of txs 5000 (max: 5000)", -32603},
		{"tx already exists in cache", -32603},
		{"", 1},
		{"", 2},
	} {
		*l.log(0, uint64(i)) |= stSent | stReplyErr
		l.refuse(0, uint64(i), m.msg, m.code)
	}
	got := map[string]int{}
	l.each(func(_ int, _ uint8, reason string) { got[reason]++ })
	want := map[string]int{"mempool is full: number of txs 5003 (max: 5000)": 2, "tx already exists in cache": 1, "code 1": 1, "code 2": 1}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("reasons %v, want %v", got, want)
	}
	if w := withoutNumbers("retry after 12s, 3 left"); w != "retry after #s, # left" {
		t.Errorf("withoutNumbers: %q", w)
	}
}
