package series_test

import (
	"context"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/experiment/experimenttest"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/saturation"
	"github.com/cometlab/cometlab/internal/series"
	"github.com/cometlab/cometlab/internal/testnet/testnettest"
)

// sweepEnv is the environment of a sweep or search test's cells; like
// fetcher, it takes the cross-package node lock.
func sweepEnv(t *testing.T, out *experimenttest.SyncBuffer) series.Env {
	t.Helper()
	// The host is shared with other tests: a disturbed cell is kept, not
	// measured again (the policy's own tests are in the short lane).
	return series.Env{Env: experiment.Env{Fetcher: experimenttest.Fetcher(t), Out: out, Version: "test"}, MaxRemeasures: -1}
}

// shortManifest is the default testnet with 6 s of load.
func shortManifest(t *testing.T) manifest.Manifest {
	t.Helper()
	m := manifest.Default()
	d := 6 * time.Second
	if err := m.Apply(manifest.Overrides{Duration: &d}); err != nil {
		t.Fatal(err)
	}
	return m
}

// checkCell checks a finished cell's record and run directory.
func checkCell(t *testing.T, dir string, c saturation.SweepCell) {
	t.Helper()
	if c.Status != results.StatusComplete || c.Evidence == nil || c.Verdict == nil || c.Error != "" {
		t.Errorf("cell %s: status %s, error %q, evidence %v", c.ID, c.Status, c.Error, c.Evidence != nil)
		return
	}
	if got := c.Evidence.CommittedTxs; got != c.Evidence.ExpectedTxs || got == 0 {
		t.Errorf("cell %s: committed %v of %v", c.ID, got, c.Evidence.ExpectedTxs)
	}
	if c.Evidence.Drain == nil || !c.Evidence.Drain.Drained || c.Evidence.Rounds == nil || c.Evidence.Trend == nil {
		t.Errorf("cell %s: evidence incomplete: %+v", c.ID, c.Evidence)
	}
	for _, f := range []string{results.RunFile, results.TxsFile, results.BlocksFile, results.ReportFile} {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(c.Dir), f)); err != nil {
			t.Errorf("cell %s: %v", c.ID, err)
		}
	}
	if left := testnettest.ProcessesUnder(t, dir); len(left) > 0 {
		t.Errorf("node processes left behind: %v", left)
	}
}

// checkSweepReport checks sweep.md's table and the curve.
func checkSweepReport(t *testing.T, dir string, want ...string) {
	t.Helper()
	md, err := os.ReadFile(filepath.Join(dir, results.SweepReportFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range append([]string{"## Saturation table", "| r=100 |", "c=1", "## Latency–throughput curve", "## Saturation criterion"}, want...) {
		if !strings.Contains(string(md), w) {
			t.Errorf("sweep.md lacks %q", w)
		}
	}
	f, err := os.Open(filepath.Join(dir, filepath.FromSlash(results.LatencyThroughputPlot)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Errorf("plot: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, results.SweepHTMLFile)); err != nil {
		t.Error(err)
	}
}

// TestSweepResume interrupts a 2-cell sweep after its first cell and
// resumes it: the first cell is not run again.
func TestSweepResume(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real testnet")
	}
	experimenttest.Proves(t)
	dir := filepath.Join(t.TempDir(), "sweep")
	var out experimenttest.SyncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	env := sweepEnv(t, &out)
	env.AfterRun = func(n int) {
		if n == 1 {
			cancel()
		}
	}
	rec, err := series.Sweep(ctx, series.SweepOptions{Manifest: shortManifest(t), Rates: []float64{100, 150}, Repeat: 1,
		Criterion: saturation.DefaultCriterion(), Dir: dir, Env: env})
	t.Log(out.String())
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if rec.Status != results.StatusInterrupted || rec.Cells[0].Status != results.StatusComplete || rec.Cells[1].Status != results.StatusPending {
		t.Fatalf("after the interrupt: status %s, cells %s, %s", rec.Status, rec.Cells[0].Status, rec.Cells[1].Status)
	}
	first, err := results.ReadRun(filepath.Join(dir, "cells", "c1-r100-0"))
	if err != nil {
		t.Fatal(err)
	}

	var out2 experimenttest.SyncBuffer
	env.Out, env.AfterRun = &out2, nil // the same node lock: a second flock of it would wait for this test
	rec, err = series.ResumeSweep(context.Background(), dir, false, env)
	t.Log(out2.String())
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != results.StatusComplete {
		t.Errorf("status %s after resume", rec.Status)
	}
	for _, c := range rec.Cells {
		checkCell(t, dir, c)
	}
	again, err := results.ReadRun(filepath.Join(dir, "cells", "c1-r100-0"))
	if err != nil || again.ID != first.ID {
		t.Errorf("the first cell was run again: %s → %s (%v)", first.ID, again.ID, err)
	}
	if strings.Count(out2.String(), "sweep: cell ") != 2 { // "cell 2/2 …" and its result
		t.Errorf("resume ran more than one cell:\n%s", out2.String())
	}
	checkSweepReport(t, dir, "| r=150 |", "a fresh testnet per cell")
}
