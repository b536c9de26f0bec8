package report

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// TestClientsSection: the Clients and Accounting sections of a run of a
// greedy and a small client through the sentinel (golden); no Clients
// section for a run of one client straight to the node, and no refused
// row in its accounting.
func TestClientsSection(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	run := results.Run{Target: "validator01",
		Sentinel: &results.Sentinel{Addr: "127.0.0.1:26667", Upstream: "http://127.0.0.1:26657", Settings: "per client 2,000 tx/s (burst 200); queues 2,000 per client, 20,000 in all; paced by the node's mempool (target 4,750)"},
		Load: results.Load{Connections: 5, Rate: 2911.6, DurationS: 60, Clients: []results.Client{
			{Name: "greedy", Key: "greedy", Connections: 4, Rate: 3600, FirstConn: 0},
			{Name: "small1", Key: "small1", Connections: 1, Rate: 29, FirstConn: 4},
		}}}
	s := analysis.Summary{
		Metrics: map[string]float64{"sent_txs": 865740, "committed_txs": 86770, "refused_txs": 778970, "rejected_txs": 0, "missing_txs": 0,
			"duplicate_txs": 0, "unsent_txs": 0, "unanswered_txs": 0, "late_sends": 12},
		Refused: map[string]int64{"client rate limit": 770000, "client queue full": 8970},
		Clients: []analysis.ClientSummary{
			{Name: "greedy", Key: "greedy", OfferedTPS: 14400, Sent: 864000, Committed: 85030, Refused: 778970, CommittedTPS: 1417.2,
				BlockP50: f(2210), BlockP99: f(3950.4), ObservedP50: f(2300), ObservedP99: f(4100),
				Reasons: map[string]int64{"client rate limit": 770000, "client queue full": 8970}},
			{Name: "small1", Key: "small1", OfferedTPS: 29, Sent: 1740, Committed: 1740, CommittedTPS: 29,
				BlockP50: f(1020), BlockP99: f(1890), ObservedP50: f(1100), ObservedP99: f(1990)},
		},
	}
	var b bytes.Buffer
	m := mdWriter{w: &b}
	m.clients(s, run)
	m.accounting(s)
	resultstest.Golden(t, filepath.Join("testdata", "clients.md.golden"), b.Bytes())

	b.Reset()
	run.Sentinel, run.Load.Clients, s.Clients, s.Refused = nil, nil, nil, nil
	delete(s.Metrics, "refused_txs")
	m.clients(s, run)
	if b.Len() != 0 {
		t.Errorf("a Clients section for a run of one client, direct:\n%s", b.String())
	}
	m.accounting(s)
	if bytes.Contains(b.Bytes(), []byte("Refused")) || bytes.Contains(b.Bytes(), []byte("sentinel")) {
		t.Errorf("the accounting of a direct run speaks of refusals:\n%s", b.String())
	}
}

// TestClientsPlot draws clients_tps.png from two clients' commits (a PNG
// of the default size), and none for a load of one client.
func TestClientsPlot(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	run := results.Run{Target: "v1", LoadStart: t0, LoadEnd: t0.Add(20 * time.Second),
		Load: results.Load{Connections: 2, Rate: 50, DurationS: 20, Clients: []results.Client{
			{Name: "greedy", Key: "greedy", Connections: 1, Rate: 90, FirstConn: 0},
			{Name: "small", Key: "small", Connections: 1, Rate: 10, FirstConn: 1},
		}}}
	in := &analysis.Input{Run: run}
	for sec := range 20 {
		for conn, n := range []int{60, 10} {
			for k := range n {
				seq := uint64(sec*n + k)
				sent := t0.Add(time.Duration(sec) * time.Second).UnixNano()
				in.Sent = append(in.Sent, results.Sent{Conn: conn, Seq: seq, Intended: sent, Actual: sent, Size: 256})
				in.Txs = append(in.Txs, results.Tx{Conn: conn, Seq: seq, Sent: sent, Height: int64(sec + 1), CommitTime: sent + 5e8})
			}
		}
	}
	d := newPlotData(run, in, analysis.Summarize(*in), Options{})
	if got := d.agg.ClientCommits(1); len(got) != 20 || got[3] != 10 {
		t.Errorf("small client's commits per second %v, want 10 in each of 20 s", got)
	}
	b, err := d.clientsTPS()
	if err != nil {
		t.Fatal(err)
	}
	checkPNG(t, b)
	run.Load.Clients = nil
	if _, err := newPlotData(run, &analysis.Input{Run: run}, analysis.Summary{}, Options{}).clientsTPS(); err == nil {
		t.Error("a clients plot for a load of one client")
	}
}
