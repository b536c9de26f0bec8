package experiment_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/experiment/experimenttest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/testnet/testnettest"
)

// TestRunDiskGuard runs a real testnet with a disk guard that wants more
// free space than the disk has: the load stops at the first check (after
// 5 s), the run is partial with the guard's reason, and no node is left
// running. Two minimums:
//
//   - 1.5 × what is free: the drain's guard (half the minimum) does not
//     trip, the drain waits, and what was sent is read back and accounted
//     for;
//   - more than any disk has: the drain is cut short at once, and run.json
//     says so (the nodes would go on writing while it waited).
//
// It runs without the samples at commits (Collect.NoCommitSamples), which
// it checks too: no mempool.csv or commitcpu.csv, the heights followed all
// the same.
func TestRunDiskGuard(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real 4-validator testnet")
	}
	experimenttest.Proves(t)
	f := experimenttest.Fetcher(t) // waits for the node lock
	free := diskFree(t, t.TempDir())
	for _, tc := range []struct {
		name     string
		min      int64
		cutDrain bool
	}{
		{"load", free + free/2, false},
		{"load and drain", 1 << 62, true}, // 4 EiB
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			var out bytes.Buffer
			start := time.Now()
			res, err := experiment.Run(context.Background(), experiment.Options{
				Manifest: experimenttest.Resolved(t, 200, 60*time.Second), Dir: dir, Env: experiment.Env{Fetcher: f, Out: &out, Version: "test"},
				Collect: experiment.Collect{MinFreeDisk: tc.min, NoCommitSamples: true},
			})
			t.Log(out.String())
			if err != nil {
				t.Fatal(err)
			}
			if res.Run.Status != results.StatusPartial {
				t.Errorf("status %s, want partial", res.Run.Status)
			}
			if len(res.Run.Errors) == 0 || !strings.Contains(res.Run.Errors[0], "disk guard:") {
				t.Errorf("run.json errors %q, want the disk guard's reason", res.Run.Errors)
			}
			// The load's own span, not the run's (a busy machine starts and
			// reads back slower): the guard checks every 5 s.
			if l := res.Run.LoadEnd.Sub(res.Run.LoadStart); res.Run.LoadEnd.IsZero() || l > 30*time.Second {
				t.Errorf("the load ran %s (from %s to %s): the guard did not stop the 60 s load", l, res.Run.LoadStart, res.Run.LoadEnd)
			}
			m := res.Summary.Metrics
			if m["sent_txs"] == 0 || m["sent_txs"] > 200*30 {
				t.Errorf("sent %v txs: want some, ~1,000 in the 5 s before the guard's first check", m["sent_txs"])
			}
			t.Logf("run %s, load %s, sent %v, committed %v", time.Since(start).Round(100*time.Millisecond),
				res.Run.LoadEnd.Sub(res.Run.LoadStart), m["sent_txs"], m["committed_txs"])
			cut := strings.Contains(strings.Join(res.Run.Errors, "\n"), "the drain was cut short")
			switch d := res.Run.Drain; {
			case d == nil:
				t.Errorf("run.json has no drain")
			case tc.cutDrain && (d.Drained || !cut):
				t.Errorf("drain %+v, errors %q: want it cut short by the guard", d, res.Run.Errors)
			case !tc.cutDrain && (!d.Drained || cut):
				t.Errorf("drain %+v, errors %q: want it waited for", d, res.Run.Errors)
			}
			if !tc.cutDrain && (m["sent_txs"] != m["committed_txs"] || m["missing_txs"] != 0) {
				t.Errorf("sent %v, committed %v, missing %v: what was sent before the guard tripped is not all accounted", m["sent_txs"], m["committed_txs"], m["missing_txs"])
			}
			if tc.cutDrain && m["committed_txs"] == 0 {
				t.Errorf("nothing read back after the drain was cut short")
			}
			for _, f := range []string{results.SentFile, results.TxsFile, results.SummaryFile, results.ReportFile} {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Errorf("run directory lacks %s", f)
				}
			}
			for _, f := range []string{results.MempoolFile, results.CommitCPUFile} {
				if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
					t.Errorf("%s written without the samples at commits", f)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, results.AdoptionFile)); err != nil {
				t.Errorf("no %s without the samples at commits: %v", results.AdoptionFile, err)
			}
			if left := testnettest.ProcessesUnder(t, dir); len(left) > 0 {
				t.Errorf("node processes left behind: %v", left)
			}
		})
	}
}

// diskFree is the free space of dir's file system for an unprivileged
// user, in bytes.
func diskFree(t *testing.T, dir string) int64 {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	return int64(st.Bavail) * st.Bsize
}
