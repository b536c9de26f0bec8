package analysis

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/cometlab/cometlab/internal/results"
)

var t0 = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

// at returns t0 + ms milliseconds in Unix ns.
func at(ms float64) int64 { return t0.UnixNano() + int64(ms*1e6) }

// knownInput is a hand-made run small enough to work out by hand: one
// connection, r = 2 tx/s for 2 s, four txs in blocks 11 and 12.
func knownInput() Input {
	in := Input{Run: results.Run{
		ID: "known", Status: results.StatusComplete, Target: "n0", LoadStart: t0,
		Load:        results.Load{Connections: 1, Rate: 2, Size: 100, DurationS: 2, LateThreshold: 0.1},
		FirstHeight: 10, LastHeight: 14,
	}}
	actual := []float64{1, 502, 1003, 1650} // ms after t0; intended 0, 500, 1000, 1500
	height := []int64{11, 11, 12, 12}
	commit := map[int64]float64{11: 2100, 12: 2600}
	for i, a := range actual {
		in.Sent = append(in.Sent, results.Sent{Conn: 0, Seq: uint64(i), Intended: at(float64(500 * i)), Actual: at(a), Size: 100})
		in.Replies = append(in.Replies, results.Reply{Conn: 0, Seq: uint64(i), At: at(a + 5), OK: true})
		in.Txs = append(in.Txs, results.Tx{Conn: 0, Seq: uint64(i), Sent: at(a), Height: height[i], CommitTime: at(commit[height[i]])})
	}
	blockMs := []float64{200, 1100, 2100, 2600, 3000}
	for i, ms := range blockMs {
		k := results.Block{Height: 10 + int64(i), Time: at(ms)}
		if i+1 < len(blockMs) {
			k.CommitTime = at(blockMs[i+1])
		}
		if k.Height == 11 || k.Height == 12 {
			k.RunTxs, k.Txs = 2, 2
		}
		if k.Height == 13 {
			k.Round = 1
		}
		in.Blocks = append(in.Blocks, k)
	}
	in.Adoption = []results.Adoption{
		{Height: 11, Node: "n0", At: at(2150)}, {Height: 12, Node: "n0", At: at(2650)},
		{Height: 11, Node: "n1", At: at(2000)}, {Height: 12, Node: "n1", At: at(2500)},
	}
	return in
}

// accountingInput has one sent tx of every fate.
func accountingInput() Input {
	in := Input{Run: results.Run{ID: "acc", Target: "n0", LoadStart: t0, Load: results.Load{Connections: 2, Rate: 2, DurationS: 1.5}}}
	send := func(conn int, seq uint64, err string) {
		s := results.Sent{Conn: conn, Seq: seq, Intended: at(float64(seq) * 500), Actual: at(float64(seq)*500 + 1), Err: err}
		if err != "" {
			s.Actual = 0
		}
		in.Sent = append(in.Sent, s)
	}
	reply := func(conn int, seq uint64, ok bool, msg string) {
		in.Replies = append(in.Replies, results.Reply{Conn: conn, Seq: seq, OK: ok, Message: msg, Code: 1})
	}
	commit := func(conn int, seq uint64, dup bool) {
		in.Txs = append(in.Txs, results.Tx{Conn: conn, Seq: seq, Sent: at(float64(seq)*500 + 1), Height: 5, CommitTime: at(2000), Duplicate: dup})
	}
	send(0, 0, "")
	reply(0, 0, true, "")
	commit(0, 0, false) // committed
	send(0, 1, "")
	reply(0, 1, false, "mempool is full") // rejected
	send(0, 2, "")
	reply(0, 2, true, "") // missing
	send(0, 3, "write: broken pipe")
	reply(0, 3, false, "") // unsent (the reply is ignored)
	send(1, 0, "")
	reply(1, 0, true, "")
	commit(1, 0, false)
	commit(1, 0, true) // committed, plus a duplicate
	send(1, 1, "")
	commit(1, 1, false) // committed, unanswered
	send(1, 2, "")
	reply(1, 2, false, "") // rejected without a message
	return in
}

func TestSummarize(t *testing.T) {
	tests := []struct {
		name     string
		in       Input
		want     map[string]float64 // exact (to 1e-9) values
		absent   []string
		rejected map[string]int64
		notes    []string // substrings of notes
	}{
		{
			name: "known",
			in:   knownInput(),
			want: map[string]float64{
				"sent_txs": 4, "unsent_txs": 0, "committed_txs": 4, "rejected_txs": 0, "missing_txs": 0,
				"duplicate_txs": 0, "unanswered_txs": 0, "expected_txs": 4, "throughput_ratio": 1,
				"committed_tps":   4 / 2.6, // span = last commit 2.6 s > duration 2 s
				"late_sends":      1,       // the 150 ms one, threshold 100 ms
				"send_lag_p99_ms": 3 + 0.97*(150-3),
				// windows [0,1) [1,2) [2,3): blocks commit at 1.1, 2.1, 2.6 (3.0 is out)
				"tps_mean": 4.0 / 3, "tps_stddev": math.Sqrt((16.0/9 + 16.0/9 + 64.0/9) / 2), "tps_max": 4,
				"blocks_per_s_mean": 1, "blocks_per_s_stddev": 1, "blocks_per_s_max": 2,
				"block_interval_mean_s": (0.9 + 1.0 + 0.5 + 0.4) / 4, "rounds_max": 1, "blocks": 5,
				// block latencies (ms): 2100−1, 2100−502, 2600−1003, 2600−1650
				"block_latency_min_ms": 950, "block_latency_max_ms": 2099, "block_latency_mean_ms": 1561,
				"block_latency_stddev_ms": math.Sqrt((538*538 + 37*37 + 36*36 + 611*611) / 3.0),
				"block_latency_p50_ms":    1597.5, "block_latency_p90_ms": 1598 + 0.7*501,
				"block_latency_p95_ms": 1598 + 0.85*501, "block_latency_p99_ms": 1598 + 0.97*501,
				// observed (ms): 2150−1, 2150−502, 2650−1003, 2650−1650 (n1's rows ignored)
				"observed_latency_p50_ms": 1647.5, "observed_latency_p99_ms": 1648 + 0.97*501, "observed_latency_max_ms": 2149,
			},
		},
		{
			name: "accounting",
			in:   accountingInput(),
			want: map[string]float64{
				"sent_txs": 6, "unsent_txs": 1, "committed_txs": 3, "rejected_txs": 2, "missing_txs": 1,
				"duplicate_txs": 1, "unanswered_txs": 1, "expected_txs": 6, "throughput_ratio": 0.5, "committed_tps": 3 / 2.0, // span: last commit 2 s > 1.5 s
			},
			absent:   []string{"late_sends", "observed_latency_p50_ms", "blocks_per_s_mean", "block_interval_mean_s"},
			rejected: map[string]int64{"mempool is full": 1, "code 1": 1},
			notes:    []string{"late_sends not computed", "no rows for the target node", "no block in the run's height range", "duplicate commits (1)"},
		},
		{
			name: "empty",
			in:   Input{Run: results.Run{ID: "empty", LoadStart: t0, Load: results.Load{Connections: 1, Rate: 10, DurationS: 2, LateThreshold: 0.1}}},
			want: map[string]float64{
				"sent_txs": 0, "committed_txs": 0, "missing_txs": 0, "expected_txs": 20, "throughput_ratio": 0,
				"committed_tps": 0, "late_sends": 0, "unanswered_txs": 0, "blocks": 0,
			},
			absent: []string{"send_lag_p99_ms", "block_latency_mean_ms", "block_latency_stddev_ms", "tps_mean", "observed_latency_max_ms"},
			notes:  []string{"send_lag_p99_ms not computed: no transaction was sent", "block_latency_mean_ms not computed"},
		},
		{
			name: "files missing",
			in: func() Input {
				in := knownInput()
				in.Replies, in.Txs, in.Blocks, in.Adoption = nil, nil, nil, nil
				in.Missing = []string{results.RepliesFile, results.TxsFile, results.BlocksFile, results.AdoptionFile}
				return in
			}(),
			want:   map[string]float64{"sent_txs": 4, "committed_txs": 0, "missing_txs": 4, "committed_tps": 0},
			absent: []string{"unanswered_txs", "blocks", "tps_mean", "observed_latency_p50_ms", "block_latency_min_ms"},
			notes:  []string{"replies.csv not found", "txs.csv not found", "every sent transaction counts as missing"},
		},
		{
			name: "no load start",
			in: func() Input {
				in := knownInput()
				in.Run.LoadStart = time.Time{}
				return in
			}(),
			want:  map[string]float64{"tps_max": 4, "committed_tps": 4 / 2.6},
			notes: []string{"no load_start: using the first scheduled send, 2024-05-01T12:00:00Z"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Summarize(tt.in)
			for id, want := range tt.want {
				got, ok := s.Metrics[id]
				if !ok {
					t.Errorf("%s missing; notes: %q", id, s.Notes)
				} else if !near(got, want, 1e-9) {
					t.Errorf("%s = %v, want %v", id, got, want)
				}
			}
			for _, id := range tt.absent {
				if v, ok := s.Metrics[id]; ok {
					t.Errorf("%s = %v, want absent", id, v)
				}
			}
			if tt.rejected != nil && !mapsEqual(s.Rejected, tt.rejected) {
				t.Errorf("Rejected = %v, want %v", s.Rejected, tt.rejected)
			}
			for _, n := range tt.notes {
				if !slices.ContainsFunc(s.Notes, func(x string) bool { return strings.Contains(x, n) }) {
					t.Errorf("no note contains %q; notes: %q", n, s.Notes)
				}
			}
			checkSummary(t, s)
		})
	}
}

func mapsEqual(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// checkSummary checks what must hold of every summary: the accounting
// identity, ids from the dictionary, finite values, valid JSON.
func checkSummary(t *testing.T, s Summary) {
	t.Helper()
	m := s.Metrics
	if m["committed_txs"]+m["rejected_txs"]+m["missing_txs"] != m["sent_txs"] {
		t.Errorf("committed %v + rejected %v + missing %v != sent %v", m["committed_txs"], m["rejected_txs"], m["missing_txs"], m["sent_txs"])
	}
	var rej int64
	for _, n := range s.Rejected {
		rej += n
	}
	if float64(rej) != m["rejected_txs"] {
		t.Errorf("rejected reasons sum to %d, rejected_txs = %v", rej, m["rejected_txs"])
	}
	for id, v := range m {
		if _, ok := Lookup(id); !ok {
			t.Errorf("metric %q is not in the dictionary", id)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Errorf("metric %q = %v", id, v)
		}
	}
	if _, err := json.Marshal(s); err != nil {
		t.Errorf("marshal: %v", err)
	}
}

func TestSummarizeSynthetic(t *testing.T) {
	in := synthetic(4, 8000, 25, true) // 320 s: long enough for the trend figures
	in.Hashes = agreedHashes(in.Blocks, "validator01", "validator02")
	for _, k := range in.Blocks { // four validators precommit 10 ms apart, 900 ms after the header time
		for i := range 4 {
			in.Precommits = append(in.Precommits, results.Precommit{Height: k.Height, Validator: fmt.Sprint(i), Flag: "commit", OffsetMs: 900 + 10*float64(i)})
		}
	}
	s := Summarize(in)
	checkSummary(t, s)
	// Every dictionary id is computed for a full run, and nothing else;
	// the run has no events.csv (TestRecoveryOf and the report's
	// TestPerturbedRun cover those ids); knee_tps is for ramp runs only
	// (knee_test.go); refused_txs for runs through a sentinel
	// (TestClientAccounting); the scenarios' for runs with absent
	// validators or injected evidence (scenarios_test.go); the app
	// mempool's and adaptive sync's for runs whose nodes ran them
	// (TestSyncFigures); the app verdicts' for runs with tx_results.csv
	// (TestAppVerdicts); the bytes of
	// a message type for the types some node sent (TestMsgBytesFigures;
	// the synthetic nodes send BlockPart, Vote and Txs).
	var ids []string
	for _, m := range Dictionary() {
		if m.Group == GroupEvents || m.ID == "knee_tps" || m.ID == "refused_txs" || IsScenarioMetric(m.ID) || IsSyncMetric(m.ID) || IsAppMetric(m.ID) || (IsMessageTypeMetric(m.ID) && !slices.Contains([]string{"block_part", "vote", "txs"}, strings.TrimPrefix(m.ID, "p2p_sent_bytes_per_tx_"))) {
			continue
		}
		ids = append(ids, m.ID)
		if _, ok := s.Metrics[m.ID]; !ok {
			t.Errorf("dictionary id %q not in the summary", m.ID)
		}
	}
	if len(s.Metrics) != len(ids) {
		t.Errorf("summary has %d metrics, dictionary %d", len(s.Metrics), len(ids))
	}
	if s.Metrics["duplicate_txs"] == 0 || s.Metrics["rejected_txs"] == 0 || s.Metrics["missing_txs"] == 0 || s.Metrics["unsent_txs"] == 0 {
		t.Errorf("synthetic run lacks a fate: %v", s.Metrics)
	}
}

// loadtimeReport mirrors the arithmetic of CometBFT's test/loadtime/report
// (calculateAll, v0.38): min and max of the durations in ns, avg as the
// truncated integer Σ/n, stddev as int64(stat.StdDev(durations, nil)).
func loadtimeReport(durations []int64) (mn, mx, avg, sd int64) {
	mn, mx = math.MaxInt64, 0
	var sum int64
	fs := make([]float64, len(durations))
	for i, d := range durations {
		mn, mx = min(mn, d), max(mx, d)
		sum += d
		fs[i] = float64(d)
	}
	return mn, mx, sum / int64(len(durations)), int64(stat.StdDev(fs, nil))
}

func TestBlockLatencyMatchesLoadtime(t *testing.T) {
	in := synthetic(3, 3000, 200, false)
	var d []int64
	for i := range in.Txs {
		d = append(d, in.Txs[i].Latency())
	}
	mn, mx, avg, sd := loadtimeReport(d)
	s := Summarize(in)
	ns := func(id string) float64 { return s.Metrics[id] * 1e6 }
	if got := ns("block_latency_min_ms"); math.Abs(got-float64(mn)) > 1e-3 {
		t.Errorf("min = %v ns, loadtime %d", got, mn)
	}
	if got := ns("block_latency_max_ms"); math.Abs(got-float64(mx)) > 1e-3 {
		t.Errorf("max = %v ns, loadtime %d", got, mx)
	}
	// loadtime truncates avg and stddev to whole ns.
	if got := ns("block_latency_mean_ms"); got < float64(avg) || got >= float64(avg+1) {
		t.Errorf("mean = %v ns, loadtime %d", got, avg)
	}
	if got := ns("block_latency_stddev_ms"); math.Abs(got-float64(sd)) > 1 {
		t.Errorf("stddev = %v ns, loadtime %d", got, sd)
	}
}

func TestSummarizeDoesNotModifyInput(t *testing.T) {
	in := synthetic(2, 100, 10, true)
	before := synthetic(2, 100, 10, true)
	Summarize(in)
	if !slices.Equal(in.Txs, before.Txs) || !slices.Equal(in.Blocks, before.Blocks) || !slices.Equal(in.Sent, before.Sent) {
		t.Error("Summarize modified its input")
	}
}

func BenchmarkSummarize1M(b *testing.B) {
	in := synthetic(10, 100_000, 1000, true)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		Summarize(in)
	}
}
