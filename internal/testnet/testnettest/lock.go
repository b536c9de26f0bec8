package testnettest

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// The node lock's files, in the temp directory. nodesLock is the lock the
// bench scripts and the README's measurements take with flock(1)
// (/tmp/cometlab-nodes.lock), so that tests and benchmarks wait for each
// other: an exclusive flock on it is a testnet alone on the machine.
const (
	nodesLock = "cometlab-nodes.lock"
	// nodesGate is held while taking nodesLock, and by an exclusive taker
	// until it has it, so that shared takers arriving one after another
	// cannot keep an exclusive one waiting for ever (flock(2) has no
	// queue: a shared lock is granted beside other shared ones even while
	// an exclusive one waits).
	nodesGate = "cometlab-nodes.gate"
	// nodesSlots are the shared takers' slots: at most this many testnets
	// of shared takers at once.
	nodesSlots = 2
)

// LockForTest serialises tests that start node processes across test
// binaries: `go test ./...` runs packages in parallel, and two testnets on
// a small machine would distort each other's timings. It takes an
// exclusive flock on cometlab-nodes.lock in the temp directory (normally
// /tmp/cometlab-nodes.lock) and releases it when the test ends: while a
// test holds it, no other test's testnet runs (LockSharedForTest's wait
// for it). A test that measures — a latency, the host's CPU, a series'
// disturbance check that must see the machine quiet — takes it.
//
// It also sets COMETLAB_PLOT_SIZE (report.PlotSizeEnv) to 200x100 for the
// test, unless set already: the reports of its runs draw every plot, small
// (under -race a run's full-size plots take about 20 s; the tests check
// that the plots are drawn, not their pixels).
func LockForTest(tb testing.TB) {
	tb.Helper()
	waited(tb, lockNodes(tb, syscall.LOCK_EX), nodesLock)
	if os.Getenv(plotSizeEnv) == "" {
		tb.Setenv(plotSizeEnv, "200x100")
	}
}

// LockSharedForTest is the node lock for a test that proves rather than
// measures: what it checks holds whatever else the machine runs (every
// transaction committed, a verdict, a file written), so it may run its
// testnet beside one other such test's. It takes a shared flock on
// cometlab-nodes.lock (so it waits while a LockForTest test or a benchmark
// holds it exclusively) and one of two slot files, so that at most two
// shared takers run at once whatever -p and -parallel allow. A test that
// calls it may call t.Parallel first, to overlap with its own package's.
//
// It sets COMETLAB_PLOT_SIZE as LockForTest does, for the process (a
// parallel test may not use t.Setenv; the value is the same for every
// test).
func LockSharedForTest(tb testing.TB) {
	tb.Helper()
	start := lockNodes(tb, syscall.LOCK_SH)
	for {
		for i := range nodesSlots {
			if f := tryLockFile(tb, fmt.Sprintf("cometlab-nodes.slot%d", i)); f != nil {
				waited(tb, start, nodesLock)
				if os.Getenv(plotSizeEnv) == "" {
					os.Setenv(plotSizeEnv, "200x100")
				}
				return
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// lockNodes takes nodesLock how (exclusive or shared) through the gate,
// and returns when it began to wait.
func lockNodes(tb testing.TB, how int) time.Time {
	tb.Helper()
	start := time.Now()
	gate := lockFile(tb, nodesGate, syscall.LOCK_EX)
	lockFile(tb, nodesLock, how)
	unlock(gate)
	return start
}

// plotSizeEnv is report.PlotSizeEnv (this package may not import report).
const plotSizeEnv = "COMETLAB_PLOT_SIZE"

// LockFile takes an exclusive flock on the file name in the temp
// directory until the test ends: another machine-wide resource (the
// namespace hosts' bridge). A test that takes two takes them in the same
// order as every other.
func LockFile(tb testing.TB, name string) {
	tb.Helper()
	start := time.Now()
	lockFile(tb, name, syscall.LOCK_EX)
	waited(tb, start, name)
}

// lockFile opens name in the temp directory and flocks it how, until the
// test ends.
func lockFile(tb testing.TB, name string, how int) *os.File {
	tb.Helper()
	f := openLock(tb, name)
	if err := syscall.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		tb.Fatalf("test lock: %v", err)
	}
	tb.Cleanup(func() { unlock(f) })
	return f
}

// tryLockFile is lockFile's exclusive lock without waiting: nil when
// another holds it.
func tryLockFile(tb testing.TB, name string) *os.File {
	tb.Helper()
	f := openLock(tb, name)
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if err == syscall.EWOULDBLOCK {
			return nil
		}
		tb.Fatalf("test lock: %v", err)
	}
	tb.Cleanup(func() { unlock(f) })
	return f
}

func openLock(tb testing.TB, name string) *os.File {
	tb.Helper()
	f, err := os.OpenFile(filepath.Join(os.TempDir(), name), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		tb.Fatalf("test lock: %v", err)
	}
	return f
}

// unlock releases f's lock and closes it; again is a no-op.
func unlock(f *os.File) {
	if f.Fd() != ^uintptr(0) {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	}
	f.Close()
}

// waited says how much of the test's elapsed time in `go test -json` was
// waiting for other tests (.ci/testtimes.go leaves it out of the test's
// time).
func waited(tb testing.TB, start time.Time, name string) {
	tb.Helper()
	if wait := time.Since(start); wait > time.Second {
		tb.Logf("waited %s for %s", wait.Round(100*time.Millisecond), filepath.Join(os.TempDir(), name))
	}
}
