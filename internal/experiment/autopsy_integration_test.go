package experiment_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/results"
)

// TestAutopsyKnownAnswers runs the default testnet (4 validators) twice
// on real nodes: with validator03 killed for 6 s, at least 90 % of the
// slow heights are blamed on proposer_absent or the perturbation, naming
// validator03, and precommits.csv shows it absent; healthy, at most 1 %
// of the heights are slow.
func TestAutopsyKnownAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real testnets")
	}
	t.Run("kill", func(t *testing.T) {
		vs, precommits, _ := autopsyRun(t, "validator03:kill@3s,down=6s", 16*time.Second)
		if len(vs) == 0 {
			t.Fatal("no slow height while a proposer was down")
		}
		right := 0
		for _, v := range vs {
			t.Logf("verdict %d: %s on %s: %s", v.Height, v.Cause, v.Node, v.Evidence)
			if (v.Cause == analysis.CauseProposerAbsent || v.Cause == analysis.CausePerturbation) && strings.Contains(v.Node, "validator03") {
				right++
			}
		}
		if float64(right) < 0.9*float64(len(vs)) {
			t.Errorf("%d of %d slow heights blamed on validator03's absence, want ≥ 90 %%", right, len(vs))
		}
		absent := 0
		for _, p := range precommits {
			if p.Flag == "absent" {
				if p.Node != "validator03" {
					t.Errorf("height %d: %s (%s) absent, only validator03 was down", p.Height, p.Node, p.Validator)
				}
				absent++
			}
		}
		if absent == 0 {
			t.Error("precommits.csv: validator03 never absent while killed")
		}
	})
	t.Run("healthy", func(t *testing.T) {
		vs, _, blocks := autopsyRun(t, "", 12*time.Second)
		for _, v := range vs {
			t.Logf("verdict %d: %s on %s: %s", v.Height, v.Cause, v.Node, v.Evidence)
		}
		if float64(len(vs)) > 0.01*float64(blocks) {
			t.Errorf("%d of %d heights slow on a healthy run, want ≤ 1 %%", len(vs), blocks)
		}
	})
}

// autopsyRun runs the default testnet under 100 tx/s for d with the
// perturbation flag, and returns its autopsy.csv, precommits.csv and
// number of heights.
func autopsyRun(t *testing.T, flag string, d time.Duration) ([]results.Verdict, []results.Precommit, int) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	var out bytes.Buffer
	res, err := experiment.Run(context.Background(), experiment.Options{Manifest: perturbed(t, d, flag), Dir: dir,
		Env: experiment.Env{Fetcher: fetcher(t), Out: &out, Version: "test"}})
	if err != nil {
		t.Log(out.String())
		t.Fatal(err)
	}
	vs, err := results.ReadAutopsy(dir)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := results.ReadPrecommits(dir)
	if err != nil || len(ps) == 0 {
		t.Fatalf("precommits.csv: %d rows, %v", len(ps), err)
	}
	if n := res.Summary.Metrics["slow_heights"]; int(n) != len(vs) {
		t.Errorf("slow_heights %v, autopsy.csv %d rows", n, len(vs))
	}
	return vs, ps, int(res.Summary.Metrics["blocks"])
}
