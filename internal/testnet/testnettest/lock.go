package testnettest

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// LockForTest serialises tests that start node processes across test
// binaries: `go test ./...` runs packages in parallel, and two testnets on
// a small machine would distort each other's timings. It takes an
// exclusive flock on cometlab-nodes.lock in the temp directory (normally
// /tmp/cometlab-nodes.lock, the lock the bench scripts and the README's
// measurements take with flock(1), so that tests and benchmarks wait for
// each other) and releases it when the test ends; tests that start nodes
// call it first.
//
// It also sets COMETLAB_PLOT_SIZE (report.PlotSizeEnv) to 200x100 for the
// test, unless set already: the reports of its runs draw every plot, small
// (under -race a run's full-size plots take about 20 s; the tests check
// that the plots are drawn, not their pixels).
func LockForTest(tb testing.TB) {
	tb.Helper()
	LockFile(tb, "cometlab-nodes.lock")
	if os.Getenv(plotSizeEnv) == "" {
		tb.Setenv(plotSizeEnv, "200x100")
	}
}

// plotSizeEnv is report.PlotSizeEnv (this package may not import report).
const plotSizeEnv = "COMETLAB_PLOT_SIZE"

// LockFile takes an exclusive flock on the file name in the temp
// directory until the test ends: LockForTest's lock, or another for
// another machine-wide resource (the namespace hosts' bridge). A test
// that takes two takes them in the same order as every other.
func LockFile(tb testing.TB, name string) {
	tb.Helper()
	path := filepath.Join(os.TempDir(), name)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		tb.Fatalf("test lock: %v", err)
	}
	start := time.Now()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		tb.Fatalf("test lock: %v", err)
	}
	// The wait is part of the test's elapsed time in `go test -json`: say
	// how much of it was waiting for other tests.
	if wait := time.Since(start); wait > time.Second {
		tb.Logf("waited %s for %s", wait.Round(100*time.Millisecond), path)
	}
	tb.Cleanup(func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	})
}
