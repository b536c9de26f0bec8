package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/results"
)

// divergeAt is the height after which the diverging node's app state
// differs: late enough that the run's heights watcher hears the other
// nodes' headers of it (the load has started), early enough to fall in a
// 12-s load.
const divergeAt = 10

// divergeOne is the stderr of a run that, when the run prints that it
// starts the nodes (their homes are written, no node runs yet), gives one
// node's e2e app a validator update at height divergeAt that no other
// node's app has: a validator nobody knows, with power 1. That app stores
// the validator in its state (test/e2e/app storeValidator), so its app
// hash after divergeAt differs from the others', while CometBFT commits
// the same block divergeAt on every node.
type divergeOne struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	home string // the diverging node's home
	err  error
	done bool
}

func (w *divergeOne) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done && bytes.HasPrefix(b, []byte("testnet: starting ")) {
		w.done = true
		key := sha256.Sum256([]byte("cometlab safety known answer"))
		extra := fmt.Sprintf("\n[validator_update.%d]\n%q = 1\n", divergeAt, base64.StdEncoding.EncodeToString(key[:]))
		f, err := os.OpenFile(cometbft.AppConfigFile(w.home), os.O_APPEND|os.O_WRONLY, 0)
		if err == nil {
			_, err = f.WriteString(extra)
			err = errors.Join(err, f.Close())
		}
		w.err = err
	}
	return w.buf.Write(b)
}

// TestSafetyFiresOnDivergentApp is the safety check's known answer on real
// nodes: a 4-validator testnet of the e2e app where validator04's app
// computes another app hash after height divergeAt (see divergeOne). The
// run must exit 5 (exitcode.Unsafe), open its report and its terminal
// output with the violation naming the height and the node, and keep
// everything it gathered on disk. The healthy runs' silence is asserted
// by checkAccounted in package experiment's tests.
func TestSafetyFiresOnDivergentApp(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real testnet")
	}
	proves(t)
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "run")
	man := filepath.Join(tmp, "m.toml")
	if err := os.WriteFile(man, []byte("app = \"e2e\"\n[load]\nrate = 50\nduration = \"14s\"\ndrain_timeout = \"3s\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stderr := &divergeOne{home: filepath.Join(dir, results.NodesDir, "validator04")}
	var stdout bytes.Buffer
	code := execute(t.Context(), &state{stdout: &stdout, stderr: stderr, args: []string{"run", "--manifest", man, "--out", dir}, hard: t.Context()})
	t.Logf("exit %d\n%s\n%s", code, stdout.String(), stderr.buf.String())
	if !stderr.done || stderr.err != nil {
		t.Fatalf("validator04's app.toml not changed before the start (seen %v): %v", stderr.done, stderr.err)
	}
	if code != exitcode.Unsafe {
		t.Errorf("exit %d, want %d (safety violation)", code, exitcode.Unsafe)
	}
	want := fmt.Sprintf("first at height %d: validator01, validator02, validator03 committed app hash", divergeAt)
	rep, err := os.ReadFile(filepath.Join(dir, results.ReportFile))
	// The first line after the report's title.
	lines := strings.SplitN(string(rep), "\n", 4)
	first := lines[min(2, len(lines)-1)]
	if err != nil || !strings.HasPrefix(first, "- **SAFETY VIOLATION**") || !strings.Contains(first, want) || !strings.Contains(first, "validator04 (") {
		t.Errorf("report's first line %q (%v), want the violation at height %d naming validator04", first, err, divergeAt)
	}
	// The terminal summary opens with it (after the run's name), and the
	// error line that gives the exit code repeats it.
	summary := strings.TrimSpace(stdout.String())
	if _, after, _ := strings.Cut(summary, "\n"); !strings.HasPrefix(strings.TrimSpace(after), "SAFETY VIOLATION") || !strings.Contains(after, want) {
		t.Errorf("the terminal summary does not open with the violation %q", want)
	}
	if !strings.Contains(stderr.buf.String(), "cometlab: safety violation: ") {
		t.Errorf("no error line of the safety violation on stderr")
	}
	checkDivergence(t, dir)
}

// checkDivergence checks what the diverging run left on disk: the summary's
// first disagreement (app hash at divergeAt, validator04 alone), the
// metrics, validator04's app row in hashes.csv and its consensus failure
// in its log.
func checkDivergence(t *testing.T, dir string) {
	t.Helper()
	var s analysis.Summary
	if err := results.ReadJSON(filepath.Join(dir, results.SummaryFile), &s); err != nil {
		t.Fatal(err)
	}
	if s.Safety == nil || len(s.Safety.Disagreements) == 0 {
		t.Fatalf("summary.json has no disagreement: %+v", s.Safety)
	}
	d := s.Safety.Disagreements[0]
	if d.Height != divergeAt || d.Hash != "app" || len(d.Differing) != 1 || d.Differing[0].Node != "validator04" || len(d.Agreed) != 3 {
		t.Errorf("first disagreement %+v, want app hash at %d, validator04 against the other three", d, divergeAt)
	}
	if s.Metrics["disagreeing_heights"] < 1 || s.Metrics["safety_violations"] < 1 {
		t.Errorf("disagreeing_heights %v, safety_violations %v: want ≥ 1", s.Metrics["disagreeing_heights"], s.Metrics["safety_violations"])
	}
	rows, err := results.ReadHashes(dir)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range rows {
		found = found || (r.Node == "validator04" && r.Source == results.HashFromApp && r.Height == divergeAt)
	}
	if !found {
		t.Errorf("hashes.csv has no app row of validator04 at height %d", divergeAt)
	}
	lg, err := os.ReadFile(filepath.Join(dir, results.LogsDir, "validator04.log"))
	if err != nil || !bytes.Contains(lg, []byte("wrong Block.Header.AppHash")) {
		t.Errorf("validator04's log does not say why it halted (wrong Block.Header.AppHash): %v", err)
	}
	for _, f := range []string{results.RunFile, results.SentFile, results.TxsFile, results.BlocksFile, results.EventsFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("not on disk: %v", err)
		}
	}
}
