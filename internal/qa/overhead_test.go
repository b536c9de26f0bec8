package qa

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/results"
)

// TestMeasureOverhead: the overhead comes from the run.json of the runs
// under the roots, those of testnets of the same size, and says so; no
// run, or no root, is the default's case.
func TestMeasureOverhead(t *testing.T) {
	root := t.TempDir()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	write := func(dir string, nodes int, over time.Duration) {
		r := results.Run{Status: results.StatusComplete, Started: t0, LoadStart: t0.Add(over / 2), LoadEnd: t0.Add(over/2 + time.Minute),
			Ended: t0.Add(over + time.Minute), Nodes: make([]results.Node, nodes)}
		if err := os.MkdirAll(filepath.Join(root, dir, "nodes", "validator01"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := results.WriteJSON(filepath.Join(root, dir, results.RunFile), r); err != nil {
			t.Fatal(err)
		}
	}
	write("runs/a", 4, 10*time.Second)
	write("runs/b", 4, 14*time.Second)
	write("qa/x/tests/long/runs/01-base", 4, 12*time.Second)
	write("runs/big", 100, 10*time.Minute)
	o, n, from, err := MeasureOverhead(4, filepath.Join(root, "runs"), filepath.Join(root, "qa"), filepath.Join(root, "none"))
	if err != nil || o != 12*time.Second || n != 3 || !strings.Contains(from, "median of 3 complete runs") {
		t.Errorf("overhead %v from %d runs (%q), %v", o, n, from, err)
	}
	if o, n, _, err := MeasureOverhead(4, filepath.Join(root, "none")); o != 0 || n != 0 || err != nil {
		t.Errorf("no runs: %v, %d, %v", o, n, err)
	}
}
