package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
)

// TestRunE2ESimple runs CometBFT's own e2e simple.toml (v1.0.1) through
// `cometlab run` for 10 s and checks that the run is the file's testnet:
// four validators of power 100 in the genesis, the e2e app, vote
// extensions off, the e2e runner's load (2 tx/s in once-a-second
// batches), and a run directory whose manifest.toml names the e2e file.
func TestRunE2ESimple(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real testnet")
	}
	proves(t)
	dir := filepath.Join(t.TempDir(), "run")
	code, out, stderr := run(t, "run", "--manifest", filepath.Join(e2eFixtures, "simple.toml"), "-T", "10s", "--out", dir)
	if code != exitcode.OK {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	enc, err := os.ReadFile(filepath.Join(dir, results.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(enc), "# Read from the CometBFT e2e manifest simple.toml") {
		t.Errorf("manifest.toml does not name the e2e file:\n%s", enc)
	}
	m, err := manifest.Parse("manifest.toml", enc)
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Nodes) != 4 || r.App != manifest.AppE2E || r.Load.Rate*float64(r.Load.Connections) != 2 || r.Load.Pacing != manifest.PacingBurst {
		t.Errorf("resolved %d nodes, app %s, %d × %g tx/s %s; want 4, e2e, 2 tx/s burst", len(r.Nodes), r.App, r.Load.Connections, r.Load.Rate, r.Load.Pacing)
	}
	if r.AppConfig["vote_extensions_enable_height"] != int64(0) {
		t.Errorf("vote_extensions_enable_height = %v, want 0 (the e2e default)", r.AppConfig["vote_extensions_enable_height"])
	}
	run, err := results.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != "complete" || run.App != manifest.AppE2E || len(run.Nodes) != 4 || run.Load.DurationS != 10 || r.Load.ExpectedTxs() != 20 {
		t.Errorf("run.json: status %s, app %s, %d nodes, %gs of load, %d txs expected; want complete, e2e, 4, 10s, 20",
			run.Status, run.App, len(run.Nodes), run.Load.DurationS, r.Load.ExpectedTxs())
	}
	genesis, err := os.ReadFile(filepath.Join(dir, "nodes", "validator00", "config", "genesis.json"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(genesis), `"power": "100"`); n != 4 {
		t.Errorf("genesis has %d validators of power 100, want 4:\n%s", n, genesis)
	}
}
