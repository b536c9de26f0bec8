package series_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/experiment/experimenttest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/stats"
)

// TestRunKnowsItsHost: a CPU hog (a busy shell loop, its own process)
// started half-way through a run's load is seen in host.csv by its share
// of the host's CPU (measured from the hog's own CPU time, within 5 points
// on a quiet host, more when the background before it moved), and the run
// is marked disturbed in its summary and report.
func TestRunKnowsItsHost(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real testnet")
	}
	dir := filepath.Join(t.TempDir(), "run")
	f := experimenttest.Fetcher(t) // waits for the node lock
	const load = 16 * time.Second
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type hogged struct {
		from, to time.Time
		cpu      time.Duration
		err      error
	}
	hog := make(chan hogged, 1)
	go func() {
		var start time.Time
		for ctx.Err() == nil && start.IsZero() {
			if r, err := results.ReadRun(dir); err == nil {
				start = r.LoadStart
			}
			time.Sleep(100 * time.Millisecond)
		}
		if ctx.Err() != nil {
			hog <- hogged{err: ctx.Err()}
			return
		}
		time.Sleep(time.Until(start.Add(load / 2)))
		cmd := exec.Command("sh", "-c", "while :; do :; done")
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		h := hogged{from: time.Now()}
		if h.err = cmd.Start(); h.err != nil {
			hog <- h
			return
		}
		time.Sleep(time.Until(start.Add(load - time.Second)))
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		h.to = time.Now()
		h.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		hog <- h
	}()
	res, err := experiment.Run(context.Background(), experiment.Options{Manifest: experimenttest.Resolved(t, 100, load), Dir: dir,
		Env: experiment.Env{Fetcher: f, Out: os.Stderr, Version: "test"}})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	h := <-hog
	if h.err != nil {
		t.Fatalf("hog: %v", h.err)
	}
	rows, err := results.ReadHost(dir)
	if err != nil {
		t.Fatal(err)
	}
	cores := float64(rows[0].Cores)
	// Other work per sample, before the hog and while it ran (a sample
	// covers the second before its time; the edges are left out).
	var before, during []float64
	for _, r := range rows {
		at := time.Unix(0, r.Time)
		switch {
		case at.After(res.Run.LoadStart.Add(time.Second)) && at.Before(h.from):
			before = append(before, 100*r.Other()/cores)
		case at.After(h.from.Add(time.Second)) && !at.After(h.to):
			during = append(during, 100*r.Other()/cores)
		}
	}
	if len(before) < 5 || len(during) < 5 {
		t.Fatalf("%d samples before the hog, %d during it: too few", len(before), len(during))
	}
	mean := stats.Mean
	want := 100 * h.cpu.Seconds() / h.to.Sub(h.from).Seconds() / cores
	got := mean(during) - mean(before)
	// The background (other tests share the machine in CI) moves from
	// second to second: the bound widens by twice its spread before the hog.
	sd := stats.StdDev(before)
	tol := 5 + 2*sd
	t.Logf("other work: %.1f %% (sd %.1f) of %v cores before the hog, %.1f %% during it; the hog's own CPU: %.1f %% (%s over %s)",
		mean(before), sd, cores, mean(during), want, h.cpu.Round(time.Millisecond), h.to.Sub(h.from).Round(time.Millisecond))
	if got < want-tol || got > want+tol {
		t.Errorf("the hog's share measured as %.1f %%, its own CPU says %.1f %%: want within %.1f points", got, want, tol)
	}
	pct, disturbed, known := analysis.Disturbance(res.Summary)
	if !known || !disturbed {
		t.Errorf("summary: disturbance %.1f %% (known %v), want flagged above %d %%", pct, known, analysis.DisturbedPct)
	}
	report, err := os.ReadFile(filepath.Join(dir, results.ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(report), "- **Host busy with other work**:") {
		t.Error("report.md does not open with the disturbance")
	}
	if mean(before) >= analysis.DisturbedPct {
		t.Logf("the host was already busy before the hog (%.1f %%): other tests share this machine", mean(before))
	}
}
