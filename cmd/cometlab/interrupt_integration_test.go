package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/testnet/testnettest"
)

// cancelOnLoad is the stderr of a run that it interrupts, as a first
// Ctrl-C does (main cancels the context execute gets): after the run
// prints that its load starts.
type cancelOnLoad struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	cancel context.CancelFunc
	after  time.Duration
	armed  bool
}

func (w *cancelOnLoad) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.armed && bytes.HasPrefix(b, []byte("load: ")) {
		w.armed = true
		time.AfterFunc(w.after, w.cancel)
	}
	return w.buf.Write(b)
}

// TestRunInterrupted interrupts `cometlab run` 4 s into a 60-s load (as
// Ctrl-C does): it exits 130 (exitcode.Interrupted), leaves no node
// running, and its run directory is complete as far as the run got —
// run.json partial with the interruption among its errors, the manifest,
// the four records, summary.json and report.md — with every transaction
// sent accounted for, as the records themselves count them.
func TestRunInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real testnet")
	}
	proves(t)
	dir := filepath.Join(t.TempDir(), "run")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	stderr := &cancelOnLoad{cancel: cancel, after: 4 * time.Second}
	var stdout bytes.Buffer
	code := execute(ctx, &state{stdout: &stdout, stderr: stderr, hard: t.Context(),
		args: []string{"run", "-r", "100", "-T", "60s", "--out", dir}})
	stderr.mu.Lock()
	t.Logf("exit %d\n%s\n%s", code, stdout.String(), stderr.buf.String())
	armed := stderr.armed
	stderr.mu.Unlock()
	if !armed {
		t.Fatal("the run never printed the start of its load: not interrupted")
	}
	if code != exitcode.Interrupted {
		t.Errorf("exit %d, want %d (interrupted)", code, exitcode.Interrupted)
	}
	if left := testnettest.ProcessesUnder(t, dir); len(left) > 0 {
		t.Errorf("node processes left behind: %v", left)
	}
	run, err := results.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != results.StatusPartial || !slices.Contains(run.Errors, "interrupted") || run.Ended.IsZero() {
		t.Errorf("run.json: status %q, errors %q, ended %v; want partial, the interruption recorded, an end", run.Status, run.Errors, run.Ended)
	}
	for _, f := range []string{results.ManifestFile, results.ReportFile} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v, want it written", f, err)
		}
	}
	checkInterruptedAccounts(t, dir)
}

// checkInterruptedAccounts checks the interrupted run's summary.json
// against its records: ~400 txs sent in the 4 s at 100 tx/s, each one
// committed, rejected or missing, with the counts sent.csv, replies.csv
// and txs.csv give, and the blocks of blocks.csv holding txs.csv's rows.
func checkInterruptedAccounts(t *testing.T, dir string) {
	t.Helper()
	var s analysis.Summary
	if err := results.ReadJSON(filepath.Join(dir, results.SummaryFile), &s); err != nil {
		t.Fatal(err)
	}
	m := s.Metrics
	if s.Status != results.StatusPartial {
		t.Errorf("summary.json status %q, want partial", s.Status)
	}
	if m["sent_txs"] < 100 || m["sent_txs"] > 1000 {
		t.Errorf("sent %v txs in about 4 s at 100 tx/s: want ~400", m["sent_txs"])
	}
	if m["committed_txs"]+m["rejected_txs"]+m["missing_txs"] != m["sent_txs"] {
		t.Errorf("committed %v + rejected %v + missing %v ≠ sent %v", m["committed_txs"], m["rejected_txs"], m["missing_txs"], m["sent_txs"])
	}
	if m["committed_txs"] == 0 {
		t.Error("nothing read back after the interrupt")
	}
	type key struct {
		conn int
		seq  uint64
	}
	sent, err := results.ReadSent(dir)
	if err != nil {
		t.Fatal(err)
	}
	written := map[key]bool{}
	for _, r := range sent {
		if r.Err == "" {
			written[key{r.Conn, r.Seq}] = true
		}
	}
	replies, err := results.ReadReplies(dir)
	if err != nil {
		t.Fatal(err)
	}
	accepted, refused := map[key]bool{}, map[key]bool{}
	for _, r := range replies {
		if r.OK {
			accepted[key{r.Conn, r.Seq}] = true
		} else {
			refused[key{r.Conn, r.Seq}] = true
		}
	}
	txs, err := results.ReadTxs(dir)
	if err != nil {
		t.Fatal(err)
	}
	committed, heights := map[key]bool{}, map[int64]int{}
	for _, tx := range txs {
		k := key{tx.Conn, tx.Seq}
		if !written[k] {
			t.Errorf("txs.csv: (%d, %d) committed but not in sent.csv", tx.Conn, tx.Seq)
		}
		committed[k] = true
		heights[tx.Height]++
	}
	rejected := 0
	for k := range refused {
		if written[k] && !accepted[k] && !committed[k] {
			rejected++
		}
	}
	for _, c := range []struct {
		id   string
		file int
	}{{"sent_txs", len(written)}, {"committed_txs", len(committed)}, {"rejected_txs", rejected}} {
		if m[c.id] != float64(c.file) {
			t.Errorf("summary.json %s = %v, the records count %d", c.id, m[c.id], c.file)
		}
	}
	blocks, err := results.ReadBlocks(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) == 0 {
		t.Fatal("blocks.csv has no block")
	}
	for _, k := range blocks {
		if k.RunTxs != heights[k.Height] {
			t.Errorf("blocks.csv: height %d holds %d of the run's txs, txs.csv %d", k.Height, k.RunTxs, heights[k.Height])
		}
		delete(heights, k.Height)
	}
	if len(heights) > 0 {
		t.Errorf("txs.csv has heights blocks.csv lacks: %v", heights)
	}
}
