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
	"github.com/cometlab/cometlab/internal/results"
)

// TestLoadMetricsURL loads a testnet cometlab did not start for the run
// (`testnet up`) through `load --endpoint` with two nodes' Prometheus
// endpoints: metrics.csv holds both under the names given, and the
// summary has their per-node figures.
func TestLoadMetricsURL(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real testnet")
	}
	experimenttest.Proves(t)
	ctx := context.Background()
	tmp := t.TempDir()
	tnDir := filepath.Join(tmp, "testnet")
	up, err := experiment.Up(ctx, experiment.UpOptions{Manifest: experimenttest.Resolved(t, 100, 10*time.Second), Dir: tnDir, Env: experiment.Env{Fetcher: experimenttest.Fetcher(t), Out: os.Stderr}})
	if err != nil {
		t.Fatal(err)
	}
	downAtCleanup(t, tnDir)
	m := experimenttest.Resolved(t, 100, 10*time.Second)
	m.Load.DrainTimeout = 30 * time.Second
	dir := filepath.Join(tmp, "run")
	var out bytes.Buffer
	res, err := experiment.Load(ctx, experiment.LoadOptions{
		Endpoint: up.Nodes[0].RPC, Manifest: m, Dir: dir, Readback: true, Env: experiment.Env{Out: &out, Version: "test"},
		MetricsURLs: []string{up.Nodes[0].Metrics, up.Nodes[1].Metrics}, NodeNames: []string{"alpha", "beta"},
		Collect: experiment.Collect{ScrapeInterval: 500 * time.Millisecond},
	})
	t.Log(out.String())
	if err != nil {
		t.Fatal(err)
	}
	checkAccounted(t, res, 1000)
	set, err := analysis.ReadSeries(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := set.Nodes(); len(got) != 2 || got[0] != "alpha" || got[1] != "beta" {
		t.Errorf("metrics.csv nodes %v, want [alpha beta]", got)
	}
	for _, n := range []string{"alpha", "beta"} {
		if len(res.Summary.Nodes[n]) == 0 {
			t.Errorf("summary has no figures of node %s: %v", n, res.Summary.Nodes)
		}
	}

	// The same load collecting the least a run can (run's flags, now
	// load's): no scrape, no commit samples, every block read after the
	// load, no disk guard. Every field of Collect is honoured.
	dir = filepath.Join(tmp, "run-bare")
	out.Reset()
	res, err = experiment.Load(ctx, experiment.LoadOptions{
		Endpoint: up.Nodes[0].RPC, Manifest: m, Dir: dir, Readback: true, Env: experiment.Env{Out: &out, Version: "test"},
		MetricsURLs: []string{up.Nodes[0].Metrics}, NodeNames: []string{"alpha"},
		Collect: experiment.Collect{Metrics: experiment.MetricsNone, NoCommitSamples: true, ReadAfterLoad: true, MinFreeDisk: -1},
	})
	t.Log(out.String())
	if err != nil {
		t.Fatal(err)
	}
	checkAccounted(t, res, 1000)
	for _, f := range []string{results.MetricsFile, results.MempoolFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s written, with --metrics none and --commit-samples=false", f)
		}
	}
	if s := out.String(); strings.Contains(s, "read during the load") || !strings.Contains(s, "read-back: walking heights") {
		t.Errorf("read the chain during the load, with --read-during-load=false:\n%s", s)
	}
}
