package experiment_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/saturation"
	"github.com/cometlab/cometlab/internal/testnet/testnettest"
)

// TestSaturateTinyBudget runs a search with a budget of 3 runs of 6 s and
// checks that the path is recorded: each step's decision, run directory,
// evidence and verdict, and the outcome.
func TestSaturateTinyBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real testnet")
	}
	m := shortManifest(t)
	r, err := m.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	search := saturation.DefaultSearch(100, 6)
	search.MaxRuns = 3
	dir := filepath.Join(t.TempDir(), "search")
	var out syncBuffer
	rec, err := experiment.Saturate(context.Background(), experiment.SaturateOptions{Manifest: r, Search: search,
		Criterion: saturation.DefaultCriterion(), Dir: dir, Env: sweepEnv(t, &out)})
	t.Log(out.String())
	if err != nil {
		t.Fatal(err)
	}
	// A step the host disturbed (other packages' tests share the machine
	// in CI) is measured again outside the budget.
	if len(rec.Observations()) != 3 || rec.Outcome == nil || rec.Status != results.StatusComplete {
		t.Fatalf("%d steps, outcome %v, status %s", len(rec.Steps), rec.Outcome, rec.Status)
	}
	if rec.Steps[0].Rate != 100 || rec.Steps[0].Phase != saturation.PhaseGrow || rec.Steps[0].Reason == "" {
		t.Errorf("first step %+v", rec.Steps[0].Step)
	}
	for _, s := range rec.Steps {
		if !results.Finished(s.Status) || s.Evidence == nil || s.Verdict == nil || len(s.Verdict.Checks) != 5 {
			t.Errorf("step %d: status %s, evidence %v, verdict %v", s.N, s.Status, s.Evidence != nil, s.Verdict)
		}
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(s.Dir), results.RunFile)); err != nil {
			t.Errorf("step %d: %v", s.N, err)
		}
	}
	onDisk, err := saturation.ReadSearch(dir)
	if err != nil || len(onDisk.Observations()) != 3 || onDisk.Outcome == nil {
		t.Errorf("saturate.json: %v, %+v", err, onDisk)
	}
	md, err := os.ReadFile(filepath.Join(dir, results.SaturateReportFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"## Path", "| 1 | grow | 100 |", "| 3 |", "### Evidence", "## Saturation criterion", "## Latency–throughput curve"} {
		if !strings.Contains(string(md), w) {
			t.Errorf("saturate.md lacks %q", w)
		}
	}
	if left := testnettest.ProcessesUnder(t, dir); len(left) > 0 {
		t.Errorf("node processes left behind: %v", left)
	}
}
