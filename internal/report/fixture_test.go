package report

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// smallRun is the fixture run directory, shared with other packages'
// tests; `go test -update` regenerates it from writeSmallRun.
const smallRun = "../../testdata/runs/small"

// smallManifest is the fixture's resolved manifest.
const smallManifest = `# Resolved manifest of the "small" fixture run: every default filled in.
name = "small"

[load]
connections = 2
rate = 10            # tx/s per connection
size = 256           # bytes
duration = "3s"
pacing = "constant"
late_threshold = "100ms"
target = "validator00"

[testnet]
version = "v0.38.26"
app = "kvstore"
timeout_commit = "500ms"

[[testnet.node]]
name = "validator00"
mode = "validator"

[[testnet.node]]
name = "validator01"
mode = "validator"
`

// writeSmallRun writes the fixture run into dir, from fixed values: 2
// connections × 30 sends at 10 tx/s each, blocks every 600 ms (one taking
// a second round), and one transaction of each fate: conn 0 seq 29 could
// not be sent, conn 1 seq 7 was rejected (mempool full), conn 1 seq 20 went
// missing, conn 0 seq 15 got no reply but was committed, conn 0 seq 3 was
// committed twice, and conn 1 seq 12 was sent 180 ms late. The target has
// no adoption row for one height. The nodes' metrics and resources come
// from resultstest.Nodes.
func writeSmallRun(t testing.TB, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	const ms = int64(time.Millisecond)
	t0 := time.Date(2025, 3, 14, 10, 0, 0, 0, time.UTC)
	start := t0.UnixNano()
	run := results.Run{
		ID: "6f1c2d3e-4b5a-4c6d-8e7f-8091a2b3c4d5", Status: results.StatusComplete,
		CometlabVersion: "v0.1.0", CometBFTVersion: "v0.38.26", App: "kvstore",
		Host:   results.Host{Hostname: "qa-01", OS: "linux", Arch: "amd64", CPUs: 8, MemBytes: 16 << 30, Kernel: "6.8.0-45-generic", Go: "go1.26.8"},
		Load:   results.Load{Connections: 2, Rate: 10, Size: 256, DurationS: 3, Pacing: "constant", LateThreshold: 0.1},
		Target: "validator00", Endpoint: "ws://127.0.0.1:26657/websocket",
		Nodes: []results.Node{
			{Name: "validator00", Mode: "validator", Version: "v0.38.26", RPC: "http://127.0.0.1:26657", P2P: "3a6b2c1d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b@127.0.0.1:26656", Metrics: "http://127.0.0.1:26660", Home: "nodes/validator00"},
			{Name: "validator01", Mode: "validator", Version: "v0.38.26", RPC: "http://127.0.0.1:26667", P2P: "9f8e7d6c5b4a39281706f5e4d3c2b1a098765432@127.0.0.1:26666", Metrics: "http://127.0.0.1:26670", Home: "nodes/validator01"},
		},
		Started: t0.Add(-5 * time.Second), LoadStart: t0, LoadEnd: t0.Add(3 * time.Second), Ended: t0.Add(9 * time.Second),
	}

	// Block k: height 10+k, time T[k]; block 4 needs a second round.
	var T []int64
	for k, tk := 0, start-300*ms; k < 12; k++ {
		T = append(T, tk)
		tk += 600 * ms
		if k == 4 {
			tk += 900 * ms
		}
	}
	const first = int64(10)

	var sent []results.Sent
	var replies []results.Reply
	var txs []results.Tx
	runTxs := make([]int, len(T))
	for seq := range 30 {
		for conn := range 2 {
			intended := start + int64(seq)*100*ms + int64(conn)*50*ms
			lag := int64((seq*7+conn*3)%11)*100*int64(time.Microsecond) + 200*int64(time.Microsecond)
			if conn == 1 && seq == 12 {
				lag = 180 * ms
			}
			s := results.Sent{Conn: conn, Seq: uint64(seq), Intended: intended, Actual: intended + lag, Size: 256}
			if conn == 0 && seq == 29 {
				s.Actual, s.Err = 0, "write tcp 127.0.0.1:51234->127.0.0.1:26657: write: broken pipe"
			}
			sent = append(sent, s)
			if s.Err != "" {
				continue
			}
			rp := results.Reply{Conn: conn, Seq: s.Seq, At: s.Actual + 2*ms, OK: true, Hash: "AB"}
			if conn == 1 && seq == 7 {
				rp.OK, rp.Code, rp.Message = false, -32603, "Internal error: mempool is full: number of txs 5000 (max: 5000), total txs bytes 1280000 (max: 1073741824)"
			}
			if !(conn == 0 && seq == 15) {
				replies = append(replies, rp)
			}
			if !rp.OK || (conn == 1 && seq == 20) {
				continue
			}
			k := 0
			for T[k] < s.Actual+150*ms {
				k++
			}
			tx := results.Tx{Conn: conn, Seq: s.Seq, Sent: s.Actual, Height: first + int64(k), Index: runTxs[k], BlockTime: T[k], CommitTime: T[k+1]}
			runTxs[k]++
			txs = append(txs, tx)
			if conn == 0 && seq == 3 {
				tx.Height, tx.Index, tx.BlockTime, tx.CommitTime, tx.Duplicate = tx.Height+1, runTxs[k+1], T[k+1], T[k+2], true
				runTxs[k+1]++
				txs = append(txs, tx)
			}
		}
	}

	var blocks []results.Block
	var adoption []results.Adoption
	var hashes []results.HashRow       // both nodes agree at every height
	var precommits []results.Precommit // both precommit 5 and 2 ms before the next header time
	for k := range T {
		b := results.Block{Height: first + int64(k), Time: T[k], Txs: runTxs[k], RunTxs: runTxs[k], Proposer: []string{"validator00", "validator01"}[k%2]}
		if k == 2 {
			b.Txs++ // one transaction that is not the run's
		}
		b.Bytes = 256 * int64(b.Txs)
		if k+1 < len(T) {
			b.CommitTime = T[k+1]
			if k != 3 {
				adoption = append(adoption, results.Adoption{Height: b.Height, Node: "validator00", At: T[k+1] + 25*ms + int64(k%3)*ms})
			}
			adoption = append(adoption, results.Adoption{Height: b.Height, Node: "validator01", At: T[k+1] + 40*ms})
			for i, n := range []string{"validator00", "validator01"} {
				precommits = append(precommits, results.Precommit{Height: b.Height, Validator: fmt.Sprintf("%040X", i), Node: n, Flag: "commit",
					OffsetMs: float64(T[k+1]-T[k])/1e6 - []float64{5, 2}[i]})
				hashes = append(hashes, results.HashRow{Height: b.Height, Node: n, BlockHash: fmt.Sprintf("%064X", b.Height),
					AppHash: fmt.Sprintf("%016X", b.Height), Source: results.HashFromHeader})
			}
		}
		if k == 4 {
			b.Round = 1
		}
		blocks = append(blocks, b)
	}
	run.FirstHeight, run.LastHeight = first, first+int64(len(T))-1

	if err := results.WriteJSON(filepath.Join(dir, results.RunFile), run); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, results.ManifestFile), []byte(smallManifest), 0o644); err != nil {
		t.Fatal(err)
	}
	resultstest.WriteCSV(t, filepath.Join(dir, results.SentFile), results.SentHeader, sent)
	resultstest.WriteCSV(t, filepath.Join(dir, results.RepliesFile), results.RepliesHeader, replies)
	resultstest.WriteCSV(t, filepath.Join(dir, results.TxsFile), results.TxsHeader, txs)
	resultstest.WriteCSV(t, filepath.Join(dir, results.BlocksFile), results.BlocksHeader, blocks)
	resultstest.WriteCSV(t, filepath.Join(dir, results.AdoptionFile), results.AdoptionHeader, adoption)
	resultstest.WriteCSV(t, filepath.Join(dir, results.HashesFile), results.HashesHeader, hashes)
	resultstest.WriteCSV(t, filepath.Join(dir, results.PrecommitFile), results.PrecommitHeader, precommits)

	// What the two nodes exposed meanwhile: metrics every 500 ms from 2 s
	// before the load to 2 s after the last block; validator01's mempool
	// keeps 3 transactions after the load.
	nodes := &resultstest.Nodes{Names: []string{"validator00", "validator01"}, ChainID: "small", From: start - 2000*ms, To: T[len(T)-1] + 2000*ms,
		Step: 500 * ms, LoadStart: start, LoadEnd: start + 3000*ms, TxSize: 256, Blocks: blocks,
		Leftover: map[string]int{"validator01": 3}, Rejected: map[string]int{"validator00": 1}}
	var metrics []results.Metric
	var resources []results.Resource
	if err := nodes.Generate(func(m *results.Metric) error { metrics = append(metrics, *m); return nil },
		func(r *results.Resource) error { resources = append(resources, *r); return nil }); err != nil {
		t.Fatal(err)
	}
	resultstest.WriteCSV(t, filepath.Join(dir, results.MetricsFile), results.MetricsHeader, metrics)
	// A host busy with other work: half a core of 2 (25 %) beside the
	// testnet, so that the report opens with the disturbance.
	host := resultstest.HostOf(resources)
	for i := range host {
		host[i].Busy += 0.4
	}
	resources = append(resources, resultstest.HarnessRows(host)...)
	resultstest.WriteCSV(t, filepath.Join(dir, results.ResourceFile), results.ResourcesHeader, resources)
	resultstest.WriteCSV(t, filepath.Join(dir, results.HostFile), results.HostHeader, host)
}

// qaRun is the fixture of a more realistic run, shared like smallRun: 4
// validators, 2 connections × 10 tx/s for 60 s, a block a second, one
// needing a second round every 17 heights, a rejection every 400 sends, a
// missing transaction every 997 and a duplicate every 499; validator03's
// mempool keeps 12 transactions after the load. `go test -update`
// regenerates it with qaSpec; metrics.csv and replies.csv are gzipped.
const qaRun = "../../testdata/runs/qa"

func qaSpec() resultstest.Spec {
	return resultstest.Spec{ID: "2b7e1516-28ae-4d2a-a6f7-15880c2f3c4e", Nodes: 4, Connections: 2, Rate: 10, Duration: 60 * time.Second, Size: 512,
		MultiRoundEvery: 17, RejectEvery: 400, MissingEvery: 997, DuplicateEvery: 499, Leftover: map[string]int{"validator03": 12}}
}

func writeQARun(t testing.TB, dir string) {
	t.Helper()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := resultstest.WriteRun(dir, qaSpec()); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{results.MetricsFile, results.RepliesFile} {
		resultstest.GzipFile(t, filepath.Join(dir, f))
	}
}
