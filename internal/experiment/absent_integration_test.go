package experiment_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/experiment/experimenttest"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
)

// TestAbsentStake runs the default testnet (4 validators) with
// validator04 absent, 12 s under 100 tx/s: the chain commits (3 of 4 >
// 2/3), the run completes with no anomaly or problem about validator04,
// some heights are decided after round 0 and the autopsy names
// validator04 as their absent proposer; validator04's home and genesis
// entry exist, but no process, log or peer.
func TestAbsentStake(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real testnet")
	}
	experimenttest.Proves(t)
	dir, res := runSet(t, 12*time.Second, "absent=validator04")
	s := res.Summary
	t.Logf("heights after round 0: %v of %v (share %.3f), absent proposer %v, interval mean %.3f s, block latency p50 %.0f ms",
		s.Metrics["blocks_multi_round"], s.Metrics["blocks"], s.Metrics["absent_multi_round_share"], s.Metrics["absent_proposer_heights"],
		s.Metrics["block_interval_mean_s"], s.Metrics["block_latency_p50_ms"])
	if res.Run.Status != results.StatusComplete || s.Metrics["committed_txs"] == 0 {
		t.Errorf("status %s, committed %v: want a complete run that committed", res.Run.Status, s.Metrics["committed_txs"])
	}
	if res.Run.Absent == nil || strings.Join(res.Run.Absent.Validators, ",") != "validator04" || res.Run.Absent.Share() != 0.25 {
		t.Errorf("run.json absent %+v, want validator04, 1 of 4", res.Run.Absent)
	}
	if !(s.Metrics["absent_multi_round_share"] > 0) || !(s.Metrics["absent_proposer_heights"] > 0) {
		t.Errorf("absent_multi_round_share %v, absent_proposer_heights %v: want both > 0", s.Metrics["absent_multi_round_share"], s.Metrics["absent_proposer_heights"])
	}
	named := 0
	for _, v := range s.Autopsy {
		if v.Round > 0 && v.Cause == analysis.CauseProposerAbsent && v.Node == "validator04" {
			named++
		}
	}
	if named == 0 {
		t.Errorf("no verdict names validator04 as the absent proposer: %+v", s.Autopsy)
	}
	for _, a := range append(s.Anomalies, res.Run.Errors...) {
		if strings.Contains(a, "validator04") || strings.Contains(a, "round above 0") {
			t.Errorf("anomaly or error about the absent validator: %s", a)
		}
	}
	checkAbsentHome(t, dir, res.Run.Nodes)
}

// runSet runs the default testnet for d under 100 tx/s with each of sets
// ("key=value", as --set takes them) applied, and returns the run
// directory and the result.
func runSet(t *testing.T, d time.Duration, sets ...string) (string, experiment.Result) {
	t.Helper()
	m := manifest.Default()
	rate := 100.0
	if err := m.Apply(manifest.Overrides{Rate: &rate, Duration: &d}); err != nil {
		t.Fatal(err)
	}
	for _, kv := range sets {
		key, value, _ := strings.Cut(kv, "=")
		if err := m.Set(key, value); err != nil {
			t.Fatal(err)
		}
	}
	r, err := m.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	var out bytes.Buffer
	res, err := experiment.Run(context.Background(), experiment.Options{Manifest: r, Dir: dir,
		Env: experiment.Env{Fetcher: experimenttest.Fetcher(t), Out: &out, Version: "test"}})
	if err != nil {
		t.Log(out.String())
		t.Fatal(err)
	}
	return dir, res
}

// checkAbsentHome checks that validator04 has a home and a genesis entry
// but never ran: no run.json node, no log, and no node's peer.
func checkAbsentHome(t *testing.T, dir string, nodes []results.Node) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, results.NodesDir, "validator04", "config", "priv_validator_key.json")); err != nil {
		t.Errorf("validator04's key: %v", err)
	}
	names, err := results.ValidatorNames(dir)
	if err != nil || len(names) != 4 {
		t.Errorf("validator keys %v (%v), want 4", names, err)
	}
	genesis, err := os.ReadFile(filepath.Join(dir, results.NodesDir, "validator01", "config", "genesis.json"))
	if err != nil || strings.Count(string(genesis), `"power"`) != 4 {
		t.Errorf("genesis lists %d validators (%v), want 4", strings.Count(string(genesis), `"power"`), err)
	}
	for _, n := range nodes {
		if n.Name == "validator04" {
			t.Error("run.json lists validator04 as a node")
		}
	}
	if _, err := os.Stat(filepath.Join(dir, results.LogsDir, "validator04.log")); err == nil {
		t.Error("validator04 has a log: it was started")
	}
	cfg, err := os.ReadFile(filepath.Join(dir, results.NodesDir, "validator01", "config", "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(cfg), "\n") {
		if strings.HasPrefix(line, "persistent_peers =") && strings.Count(line, "@") != 2 {
			t.Errorf("validator01's %s: want the 2 other present validators", line)
		}
	}
}
