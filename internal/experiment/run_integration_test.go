package experiment_test

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/experiment/experimenttest"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/testnet/testnettest"
)

// runBuilt runs m's testnet with its programs built before the node lock
// (fetcherFor), and returns the result and the run directory.
func runBuilt(t *testing.T, m manifest.Resolved) (experiment.Result, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	var out bytes.Buffer
	res, err := experiment.Run(context.Background(), experiment.Options{Manifest: m, Dir: dir,
		Env: experiment.Env{Fetcher: experimenttest.FetcherFor(t, m), Out: &out, Version: "test"}})
	t.Log(out.String())
	if err != nil {
		t.Fatal(err)
	}
	return res, dir
}

// TestRunEndToEnd runs a real 4-validator testnet for 12 s below
// saturation and checks that every transaction is accounted for, and the
// files and figures of a healthy run (stages, commit CPU, an autopsy with
// no slow height).
func TestRunEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real 4-validator testnet")
	}
	dir := filepath.Join(t.TempDir(), "run")
	var out bytes.Buffer
	res, err := experiment.Run(context.Background(), experiment.Options{Manifest: experimenttest.Resolved(t, 200, 12*time.Second), Dir: dir, Env: experiment.Env{Fetcher: experimenttest.Fetcher(t), Out: &out, Version: "test"}})
	t.Log(out.String())
	if err != nil {
		t.Fatal(err)
	}
	if left := testnettest.ProcessesUnder(t, dir); len(left) > 0 {
		t.Errorf("node processes left behind: %v", left)
	}
	get := checkAccounted(t, res, 2400)
	checkFindings(t, dir, res.Summary, "")
	// Latencies: positive and plausible for a local testnet with a 1 s
	// commit timeout (a block takes about a second).
	if v := get("block_latency_min_ms"); v <= 0 {
		t.Errorf("block latency min %v ms <= 0", v)
	}
	if v := get("block_latency_max_ms"); v > 10000 {
		t.Errorf("block latency max %v ms > 10 s", v)
	}
	if v := get("block_latency_mean_ms"); v < 100 || v > 5000 {
		t.Errorf("block latency mean %v ms not within 0.1–5 s", v)
	}
	if v := get("observed_latency_p50_ms"); v <= 0 || v > 10000 {
		t.Errorf("observed latency p50 %v ms implausible", v)
	}
	for _, f := range []string{results.RunFile, results.ManifestFile, results.SentFile, results.RepliesFile,
		results.TxsFile, results.BlocksFile, results.AdoptionFile, results.SummaryFile, results.ReportFile,
		"plots/latency.png", "logs/validator01.log", "nodes/validator04/config/genesis.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("run directory lacks %s", f)
		}
	}
	rep, _ := os.ReadFile(filepath.Join(dir, results.ReportFile))
	if !strings.Contains(string(rep), res.Run.ID) {
		t.Error("report does not name the run")
	}
	checkMempoolSamples(t, dir, res.Run)
	checkCommitCPU(t, dir, res.Run)
	checkStages(t, dir)
	fewSlow(t, dir, res.Summary)
}

// checkStages checks stages.csv on a healthy local run: nearly every
// height has all four stages, none negative beyond a few ms of clock
// granularity, and the first (which holds timeout_commit) the longest.
func checkStages(t *testing.T, dir string) {
	t.Helper()
	rows, err := results.ReadStages(dir)
	if err != nil || len(rows) == 0 {
		t.Fatalf("stages.csv: %d rows, %v", len(rows), err)
	}
	full := 0
	for _, r := range rows {
		vs := []float64{r.FirstPrecommitMs, r.QuorumMs, r.CommitMs, r.SpreadMs}
		if slices.ContainsFunc(vs, math.IsNaN) {
			continue
		}
		full++
		if slices.Min(vs) < -5 || r.FirstPrecommitMs < r.QuorumMs {
			t.Errorf("height %d: stages %v ms", r.Height, vs)
		}
	}
	if full < len(rows)*9/10 {
		t.Errorf("%d of %d heights have every stage", full, len(rows))
	}
}

// commitsPerNode counts the heights each node committed (adoption.csv).
func commitsPerNode(t *testing.T, dir string) map[string]int {
	t.Helper()
	ad, err := results.ReadAdoption(dir)
	if err != nil {
		t.Fatal(err)
	}
	commits := map[string]int{}
	for _, a := range ad {
		commits[a.Node]++
	}
	return commits
}

// checkCommitCPU checks that commitcpu.csv has one row per node and height
// it committed (adoption.csv), read on the watcher's goroutine, and that
// each process's CPU never goes down.
func checkCommitCPU(t *testing.T, dir string, run results.Run) {
	t.Helper()
	rows, err := results.ReadCommitCPU(dir)
	if err != nil {
		t.Fatal(err)
	}
	per, commits := map[string][]results.CommitCPU{}, commitsPerNode(t, dir)
	for _, r := range rows {
		per[r.Node] = append(per[r.Node], r)
	}
	for _, n := range run.Nodes {
		rs := per[n.Name]
		if c := commits[n.Name]; c == 0 || len(rs) < c*9/10 || len(rs) > c {
			t.Errorf("%s: %d commitcpu.csv rows for %d committed heights, want one per height", n.Name, len(rs), c)
		}
		for i := 1; i < len(rs); i++ {
			if rs[i].PID == rs[i-1].PID && rs[i].CPU < rs[i-1].CPU {
				t.Errorf("%s: CPU went down at height %d: %d → %d ns", n.Name, rs[i].Height, rs[i-1].CPU, rs[i].CPU)
			}
		}
		if len(rs) > 1 && rs[len(rs)-1].CPU == rs[0].CPU {
			t.Errorf("%s: no CPU used over %d commits", n.Name, len(rs))
		}
	}
}

// checkMempoolSamples checks that mempool.csv has, for every node, about
// one row per height it committed (adoption.csv): a question is skipped
// only while the one before is unanswered.
func checkMempoolSamples(t *testing.T, dir string, run results.Run) {
	t.Helper()
	mp, err := results.ReadMempool(dir)
	if err != nil {
		t.Fatal(err)
	}
	rows, commits := map[string]int{}, commitsPerNode(t, dir)
	for _, r := range mp {
		rows[r.Node]++
	}
	for _, n := range run.Nodes {
		if c := commits[n.Name]; c == 0 || rows[n.Name] < c*9/10 || rows[n.Name] > c {
			t.Errorf("%s: %d mempool.csv rows for %d committed heights, want about one per height", n.Name, rows[n.Name], c)
		}
	}
}

// checkAccounted checks what a run guarantees whatever the machine's
// speed: it completed, every one of the expected transactions is
// accounted for (sent, or logged unsent: a generator that fell behind on a
// busy machine sends fewer, and says so), some were sent, and every one
// sent was committed, none rejected or missing, none duplicated unless a
// node started again with an empty mempool cache. How many
// left late or unsent is logged, not judged (bench/ measures speed). It
// returns a getter of the summary's figures.
func checkAccounted(t *testing.T, res experiment.Result, expected float64) func(id string) float64 {
	t.Helper()
	if res.Run.Status != results.StatusComplete {
		t.Errorf("status %s, errors %v", res.Run.Status, res.Run.Errors)
	}
	m := res.Summary.Metrics
	get := func(id string) float64 {
		v, ok := m[id]
		if !ok {
			t.Errorf("summary has no %s", id)
		}
		return v
	}
	if got := get("expected_txs"); got != expected {
		t.Errorf("expected_txs = %v, want %v", got, expected)
	}
	sent, unsent, committed := get("sent_txs"), get("unsent_txs"), get("committed_txs")
	if sent+unsent != expected || sent == 0 {
		t.Errorf("sent %v + unsent %v of %v scheduled: want every one accounted for, some sent", sent, unsent, expected)
	}
	if unsent > 0 || m["late_sends"] > 0 {
		t.Logf("the generator fell behind: %v unsent, %v late of %v (a busy machine)", unsent, m["late_sends"], expected)
	}
	if committed != sent {
		t.Errorf("committed %v != sent %v (rejected %v, missing %v)", committed, sent, m["rejected_txs"], m["missing_txs"])
	}
	for _, id := range []string{"rejected_txs", "missing_txs", "unexplained_duplicate_txs", "safety_violations", "disagreeing_heights"} {
		if v := get(id); v != 0 {
			t.Errorf("%s = %v, want 0", id, v)
		}
	}
	// A transaction committed twice is explained only by a node that
	// started again with an empty mempool cache (CometBFT leaves replay
	// protection to the app): logged, as a fact of the run, not judged.
	if d := get("duplicate_txs"); d != 0 {
		if sf := res.Summary.Safety; sf == nil || sf.TwiceExplained == "" {
			t.Errorf("duplicate_txs = %v, unexplained", d)
		} else {
			t.Logf("%v transaction(s) committed twice, explained: %s", d, sf.TwiceExplained)
		}
	}
	// The safety check is silent on every healthy run, and did check
	// (heights are compared when two nodes or more report them).
	if sf := res.Summary.Safety; sf == nil || !sf.Checked || (sf.Heights == 0 && len(res.Run.Nodes) > 1) || sf.Violations() != 0 {
		t.Errorf("safety check: %+v, want checked, some heights, no violation", sf)
	}
	if r, want := get("throughput_ratio"), committed/expected; math.Abs(r-want) > 1e-9 {
		t.Errorf("throughput ratio %v, want committed ÷ expected = %v", r, want)
	}
	return get
}

// TestRunNodeFailsToStart checks that a node that cannot start gives an
// error naming it, a failed run.json and no process left behind.
func TestRunNodeFailsToStart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real nodes")
	}
	experimenttest.Proves(t)
	m := experimenttest.Resolved(t, 100, 5*time.Second)
	m.Nodes[2].Config = map[string]any{"consensus.timeout_commit": "not-a-duration"}
	dir := filepath.Join(t.TempDir(), "run")
	_, err := experiment.Run(context.Background(), experiment.Options{Manifest: m, Dir: dir, Env: experiment.Env{Fetcher: experimenttest.Fetcher(t), StartTimeout: 30 * time.Second}})
	if err == nil || !strings.Contains(err.Error(), m.Nodes[2].Name) {
		t.Fatalf("want an error naming %s, got %v", m.Nodes[2].Name, err)
	}
	run, rerr := results.ReadRun(dir)
	if rerr != nil {
		t.Fatal(rerr)
	}
	if run.Status != results.StatusFailed || len(run.Errors) == 0 {
		t.Errorf("run.json status %s errors %v", run.Status, run.Errors)
	}
	if left := testnettest.ProcessesUnder(t, dir); len(left) > 0 {
		t.Errorf("node processes left behind: %v", left)
	}
}

// runText runs the manifest text (named name in errors) on real nodes
// fetched by f and returns the result and the run directory; the run's
// output is logged.
func runText(t *testing.T, f *cometbft.Fetcher, name, text string) (experiment.Result, string) {
	t.Helper()
	m, err := manifest.Parse(name, []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	var out bytes.Buffer
	res, err := experiment.Run(context.Background(), experiment.Options{Manifest: r, Dir: dir, Env: experiment.Env{Fetcher: f, Out: &out, Version: "test"}})
	t.Log(out.String())
	if err != nil {
		t.Fatal(err)
	}
	return res, dir
}
