package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/saturation"
	"github.com/cometlab/cometlab/internal/testnet/testnettest"
)

// startCometlab starts cometlab with args as a process of its own (the
// test binary running cometlab, every run of a series kept: mainKept);
// its output goes to the returned buffer.
func startCometlab(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), mainEnv+"="+mainKept)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, &out
}

// killWhen polls every 200 ms until ready says the moment has come (or
// the process ended, or the timeout passed: both fail the test), then
// SIGKILLs cometlab: no signal handler runs, nothing is stopped or
// written on the way out.
func killWhen(t *testing.T, cmd *exec.Cmd, out *bytes.Buffer, timeout time.Duration, ready func() bool) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.After(timeout)
	for !ready() {
		select {
		case err := <-done:
			t.Fatalf("cometlab ended (%v) before the moment to kill it:\n%s", err, out)
		case <-deadline:
			t.Fatalf("no moment to kill cometlab within %s:\n%s", timeout, out)
		case <-time.After(200 * time.Millisecond):
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-done
}

// killTest starts a test that runs real testnets and kills cometlab: it
// skips it in -short mode, ends it where nodes do not die with a killed
// cometlab (only Linux has the parent-death signal; testnettest.Prereq: a
// failure under CI=true), then takes the shared node lock (proves): what
// these tests check (a record readable after a kill, no process left, a
// resume that keeps what was done) holds beside another testnet, whose
// CPU makes their runs disturbed — kept, not measured again, both in the
// killed process (startCometlab) and in the resume (runKept).
func killTest(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs real testnets")
	}
	if runtime.GOOS != "linux" {
		testnettest.Prereq(t, "nodes die with a killed cometlab only on Linux (Pdeathsig)")
	}
	proves(t)
}

// noProcessesLeft waits up to 10 s for every process whose command line
// names dir to go: the nodes of a killed cometlab die with it (their
// parent-death signal), they are not left running.
func noProcessesLeft(t *testing.T, dir string) {
	t.Helper()
	var left []string
	for range 50 {
		if left = testnettest.ProcessesUnder(t, dir); len(left) == 0 {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Errorf("processes left behind by the killed cometlab: %v", left)
}

// TestSweepKilledResumes SIGKILLs `cometlab sweep` while its second cell
// sends load, checks that no node outlives it, and resumes the sweep with
// `--resume`: the finished cell is kept (same run id), the killed one is
// set aside as DIR.interrupted with what it had written, and run again.
func TestSweepKilledResumes(t *testing.T) {
	killTest(t)
	dir := filepath.Join(t.TempDir(), "sweep")
	cmd, out := startCometlab(t, "sweep", "-r", "100,150", "-T", "6s", "--validators", "3", "--out", dir)
	second := filepath.Join(dir, "cells", "c1-r150-0")
	killWhen(t, cmd, out, 3*time.Minute, func() bool {
		// The second cell's load has started once its sent.csv has rows.
		b, err := os.ReadFile(filepath.Join(second, results.SentFile))
		return err == nil && bytes.Count(b, []byte("\n")) > 100
	})
	noProcessesLeft(t, dir)
	rec, err := saturation.ReadSweep(dir)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != results.StatusRunning || rec.Cells[0].Status != results.StatusComplete || rec.Cells[1].Status != results.StatusRunning {
		t.Fatalf("after the kill: sweep %s, cells %s, %s", rec.Status, rec.Cells[0].Status, rec.Cells[1].Status)
	}
	first, err := results.ReadRun(filepath.Join(dir, "cells", "c1-r100-0"))
	if err != nil {
		t.Fatal(err)
	}

	// Kept: a resumed cell measured again because other packages' tests
	// busied the host would be a third "sweep: cell" line.
	code, stdout, stderr := runKept(t, "sweep", "--resume", dir)
	if code != exitcode.OK {
		t.Fatalf("resume: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if strings.Count(stderr, "sweep: cell ") != 2 { // "cell 2/2 …" and its outcome
		t.Errorf("resume ran other than the killed cell:\n%s", stderr)
	}
	rec, err = saturation.ReadSweep(dir)
	if err != nil || rec.Status != results.StatusComplete {
		t.Fatalf("after resume: %v, status %s", err, rec.Status)
	}
	for _, c := range rec.Cells {
		if c.Status != results.StatusComplete || c.Verdict == nil {
			t.Errorf("cell %s: status %s, verdict %v", c.ID, c.Status, c.Verdict)
		}
	}
	again, err := results.ReadRun(filepath.Join(dir, "cells", "c1-r100-0"))
	if err != nil || again.ID != first.ID {
		t.Errorf("the finished cell was run again: %s → %s (%v)", first.ID, again.ID, err)
	}
	if _, err := os.Stat(filepath.Join(second+".interrupted", results.SentFile)); err != nil {
		t.Errorf("the killed cell's records were not kept: %v", err)
	}
	md, err := os.ReadFile(filepath.Join(dir, results.SweepReportFile))
	if err != nil || !bytes.Contains(md, []byte("| r=150 |")) {
		t.Errorf("sweep report after resume: %v\n%s", err, md)
	}
}

// TestSaturateKilledResumes SIGKILLs `cometlab saturate` during its second
// run and resumes the search: the first run is kept, the killed one set
// aside and the search goes on to its budget of 2 runs; the path is
// recorded (each step's decision, run directory, evidence and verdict, and
// the outcome) in saturate.json and saturate.md.
func TestSaturateKilledResumes(t *testing.T) {
	killTest(t)
	dir := filepath.Join(t.TempDir(), "search")
	cmd, out := startCometlab(t, "saturate", "--start", "100", "-T", "6s", "--max-runs", "2", "--validators", "3", "--out", dir)
	killWhen(t, cmd, out, 3*time.Minute, func() bool {
		rec, err := saturation.ReadSearch(dir)
		if err != nil || len(rec.Steps) != 2 {
			return false
		}
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rec.Steps[1].Dir), results.SentFile))
		return err == nil && bytes.Count(b, []byte("\n")) > 100
	})
	noProcessesLeft(t, dir)
	rec, err := saturation.ReadSearch(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Steps) != 2 || !results.Finished(rec.Steps[0].Status) || rec.Steps[1].Status != results.StatusRunning {
		t.Fatalf("after the kill: %d steps, %+v", len(rec.Steps), rec.Steps)
	}
	killed := rec.Steps[1].Dir
	firstRun, err := results.ReadRun(filepath.Join(dir, filepath.FromSlash(rec.Steps[0].Dir)))
	if err != nil {
		t.Fatal(err)
	}

	code, stdout, stderr := runKept(t, "saturate", "--resume", dir)
	if code != exitcode.OK {
		t.Fatalf("resume: exit %d\n%s\n%s", code, stdout, stderr)
	}
	rec, err = saturation.ReadSearch(dir)
	if err != nil || rec.Status != results.StatusComplete || rec.Outcome == nil {
		t.Fatalf("after resume: %v, status %s, outcome %v", err, rec.Status, rec.Outcome)
	}
	// Every step kept (runKept): the budget's two, none measured again.
	if n := len(rec.Observations()); n != 2 {
		t.Fatalf("%d steps after resume (%d measured again), want the budget of 2", n, len(rec.Steps)-n)
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
	md, err := os.ReadFile(filepath.Join(dir, results.SaturateReportFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"## Path", "| 1 | grow | 100 |", "| 2 |", "### Evidence", "## Saturation criterion", "## Latency–throughput curve"} {
		if !strings.Contains(string(md), w) {
			t.Errorf("saturate.md lacks %q", w)
		}
	}
	again, err := results.ReadRun(filepath.Join(dir, filepath.FromSlash(rec.Steps[0].Dir)))
	if err != nil || again.ID != firstRun.ID {
		t.Errorf("the finished first run was run again: %s → %s (%v)", firstRun.ID, again.ID, err)
	}
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(killed)+".interrupted", results.SentFile)); err != nil {
		t.Errorf("the killed run's records were not kept: %v", err)
	}
	if !strings.Contains(stdout, rec.Outcome.Summary) {
		t.Errorf("the outcome %q is not printed:\n%s", rec.Outcome.Summary, stdout)
	}
}
