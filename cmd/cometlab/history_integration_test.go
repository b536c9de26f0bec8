package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/history"
	"github.com/cometlab/cometlab/internal/testnet/testnettest"
)

// TestRunRemembered: a real run adds itself to the history index when it
// ends, with its identity and figures; the gate then has too few runs to
// judge it (exit 6).
func TestRunRemembered(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real testnet")
	}
	testnettest.LockForTest(t)
	index := filepath.Join(t.TempDir(), "history.db")
	t.Setenv(history.Env, index)
	dir := filepath.Join(t.TempDir(), "run")
	if code, out, errs := run(t, "run", "-T", "5s", "-r", "50", "--out", dir); code != exitcode.OK {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs := run(t, "history", "--json")
	var listed struct {
		Runs []history.Run `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &listed); code != exitcode.OK || err != nil || len(listed.Runs) != 1 {
		t.Fatalf("history: exit %d, %v\n%s%s", code, err, out, errs)
	}
	r := listed.Runs[0]
	if r.Dir != dir || r.Status != "complete" || r.Validators != 4 || r.Load.Rate != 50 || r.Host.Cores == 0 || r.Manifest == "" ||
		r.Figures["committed_tps"].Value <= 0 || len(r.Figures) < 50 || r.Note != "" {
		t.Errorf("indexed %+v (%d figures)", r, len(r.Figures))
	}
	if code, out, errs := run(t, "gate"); code != exitcode.Insufficient || !strings.Contains(out, "too few runs to judge: 0 earlier runs") {
		t.Errorf("gate: exit %d\n%s%s", code, out, errs)
	}
}
