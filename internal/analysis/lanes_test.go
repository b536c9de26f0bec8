package analysis

import (
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/payload"
	"github.com/cometlab/cometlab/internal/results"
)

// TestLanesSummary: a load over two lanes, whose transactions the picker
// spread by weight, has each lane's counts and latencies from its own
// transactions: every transaction of lane "hi" committed 100 ms after it
// was sent, every one of "lo" 900 ms, a duplicate and an uncommitted one
// counted where they belong; at time scale 4 the latencies are the
// model's (÷4).
func TestLanesSummary(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	ns := func(ms int) int64 { return t0.Add(time.Duration(ms) * time.Millisecond).UnixNano() }
	lanes := []results.Lane{{ID: "hi", Weight: 1, Priority: 9}, {ID: "lo", Weight: 3, Priority: 1}}
	pick := payload.NewLanePicker([]payload.LaneWeight{{ID: "hi", Weight: 1}, {ID: "lo", Weight: 3}})
	for _, k := range []float64{0, 4} {
		run := results.Run{ID: "r", Status: results.StatusComplete, Target: "v1", LoadStart: t0, TimeScale: k,
			Load: results.Load{Connections: 2, Rate: 100, Size: 1024, DurationS: 2, Lanes: lanes}}
		in := Input{Run: run}
		want := map[string][2]int64{} // lane → sent, committed
		for conn := range 2 {
			for seq := range uint64(200) {
				in.Sent = append(in.Sent, results.Sent{Conn: conn, Seq: seq, Intended: ns(int(seq)), Actual: ns(int(seq)), Size: 1024})
				lane := pick.Pick(uint64(conn), seq)
				c := want[lane]
				c[0]++
				if seq == 199 {
					want[lane] = c
					continue // never committed
				}
				c[1]++
				want[lane] = c
				lat := 900
				if lane == "hi" {
					lat = 100
				}
				tx := results.Tx{Conn: conn, Seq: seq, Sent: ns(int(seq)), Height: 2, BlockTime: ns(int(seq) + lat - 1), CommitTime: ns(int(seq) + lat)}
				in.Txs = append(in.Txs, tx)
				if seq == 5 {
					tx.Duplicate = true
					in.Txs = append(in.Txs, tx)
				}
			}
		}
		s := Summarize(in)
		if len(s.Lanes) != 2 {
			t.Fatalf("k = %v: lanes %+v", k, s.Lanes)
		}
		div := 1.0
		if k > 1 {
			div = k
		}
		for i, l := range s.Lanes {
			lat := 900.0
			if l.ID == "hi" {
				lat = 100
			}
			if l.ID != lanes[i].ID || l.Priority != lanes[i].Priority || l.Weight != lanes[i].Weight {
				t.Errorf("k = %v: lane %d is %+v, want %+v", k, i, l, lanes[i])
			}
			if w := want[l.ID]; l.Sent != w[0] || l.Committed != w[1] {
				t.Errorf("k = %v: lane %s sent %d committed %d, want %v", k, l.ID, l.Sent, l.Committed, w)
			}
			for _, p := range []*float64{l.BlockP50, l.BlockP95, l.BlockP99} {
				if p == nil || *p != lat/div {
					t.Errorf("k = %v: lane %s latency %v, want %v ms", k, l.ID, p, lat/div)
				}
			}
		}
		if want["hi"][0] < 60 || want["hi"][0] > 140 {
			t.Errorf("the picker gave lane hi %d of 400 transactions, want about 100", want["hi"][0])
		}
	}
	if s := Summarize(Input{Run: results.Run{ID: "r", Load: results.Load{Connections: 1, Rate: 1, DurationS: 1}}}); s.Lanes != nil {
		t.Errorf("a load without lanes has lanes %+v", s.Lanes)
	}
}
