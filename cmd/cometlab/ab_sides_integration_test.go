package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/results"
)

// TestABPerturbEverySide: `ab --perturb … --cand FILE` perturbs both
// sides, the manifest file's too (it used to perturb the base only). Two
// 8-s runs of 4 validators, validator04 paused 2 s in each (a disturbed
// round kept, not run again: runKept); about 40 s. It proves (beside one
// other testnet): the pause is in both sides' events.
func TestABPerturbEverySide(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two real 4-validator testnets")
	}
	proves(t)
	dir := t.TempDir()
	cand := filepath.Join(dir, "cand.toml")
	if err := os.WriteFile(cand, []byte("validators = 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "ab")
	code, stdout, stderr := runKept(t, "ab", "--perturb", "validator04:pause@2s,down=2s", "--cand", cand, "--repeat", "1",
		"-r", "50", "-T", "8s", "--out", out)
	if code != exitcode.OK && code != exitcode.Regression {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, side := range []string{"01-base", "01-cand"} {
		b, err := os.ReadFile(filepath.Join(out, "runs", side, results.EventsFile))
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), ",validator04,pause,"); n != 1 {
			t.Errorf("%s: %d pause events of validator04, want 1:\n%s", side, n, b)
		}
	}
}
