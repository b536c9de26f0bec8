package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/results"
)

// TestABKilledResumes SIGKILLs `cometlab ab --repeat 2` while the first
// run of its second round sends load: ab.json is left readable, with the
// first round done and the killed run listed; `ab --resume` keeps the
// first round's runs, sets the killed one aside and finishes the
// experiment. Tiny runs (3 validators, 50 tx/s for 5 s): five runs, about
// a minute and a half.
func TestABKilledResumes(t *testing.T) {
	killTest(t)
	dir := filepath.Join(t.TempDir(), "ab")
	cmd, out := startCometlab(t, "ab", "--cand", "mempool.size=4000", "--repeat", "2", "-r", "50", "-T", "5s",
		"--validators", "3", "--out", dir)
	killed := filepath.Join(dir, "runs", "02-base")
	killWhen(t, cmd, out, 3*time.Minute, func() bool {
		b, err := os.ReadFile(filepath.Join(killed, results.SentFile))
		return err == nil && bytes.Count(b, []byte("\n")) > 50
	})
	noProcessesLeft(t, dir)
	rec, err := experiment.ReadAB(dir)
	if err != nil {
		t.Fatalf("ab.json after the kill: %v", err)
	}
	if rec.Status != results.StatusRunning || rec.Pairs != 1 || len(rec.Rounds) != 2 || len(rec.Rounds[1]) != 1 || rec.Rounds[1][0] != killed {
		t.Fatalf("after the kill: status %s, %d pairs, rounds %q", rec.Status, rec.Pairs, rec.Rounds)
	}
	first, err := results.ReadRun(rec.Rounds[0][0])
	if err != nil {
		t.Fatal(err)
	}

	code, stdout, stderr := run(t, "ab", "--resume", dir)
	if code != exitcode.OK && code != exitcode.Regression {
		t.Fatalf("resume: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if n := strings.Count(stderr, "ab: round "); n != 2 || !strings.Contains(stderr, "ab: round 2, base") {
		t.Errorf("resume ran %d runs, want round 2's two:\n%s", n, stderr)
	}
	if !strings.Contains(stdout, "ab: 2 pairs, verdict ") {
		t.Errorf("no verdict line:\n%s", stdout)
	}
	rec, err = experiment.ReadAB(dir)
	if err != nil || rec.Status != results.StatusComplete || rec.Partial || rec.Pairs != 2 || len(rec.Rounds) != 2 || rec.Verdict == "" {
		t.Fatalf("after resume: %v, %+v", err, rec)
	}
	for _, round := range rec.Rounds {
		for _, d := range round {
			if r, err := results.ReadRun(d); err != nil || r.Status != results.StatusComplete {
				t.Errorf("run %s: %v, status %s", d, err, r.Status)
			}
		}
	}
	if again, err := results.ReadRun(rec.Rounds[0][0]); err != nil || again.ID != first.ID {
		t.Errorf("the first round ran again: %s → %s (%v)", first.ID, again.ID, err)
	}
	if _, err := os.Stat(filepath.Join(killed+".interrupted", results.SentFile)); err != nil {
		t.Errorf("the killed run's records were not kept: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, results.CompareMD)); err != nil {
		t.Errorf("no comparison: %v", err)
	}
}
