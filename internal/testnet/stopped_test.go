package testnet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeProc writes a process table under a temp root: pid 42's threads
// with the given states, each comm holding a space and a parenthesis.
func fakeProc(t *testing.T, states ...string) string {
	t.Helper()
	root := t.TempDir()
	for i, s := range states {
		dir := filepath.Join(root, "42", "task", string(rune('a'+i)))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		stat := "42 (comet bft) x) " + s + " 1 42 42 0 -1\n"
		if err := os.WriteFile(filepath.Join(dir, "stat"), []byte(stat), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestThreadsStopped(t *testing.T) {
	for _, c := range []struct {
		name    string
		states  []string
		stopped bool
		err     string
	}{
		{"all stopped", []string{"T", "T", "t"}, true, ""},
		{"one still running", []string{"T", "R", "T"}, false, ""},
		{"one sleeping", []string{"S"}, false, ""},
		{"no thread", nil, false, "no thread"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := fakeProc(t, c.states...)
			got, err := threadsStopped(root, 42)
			if got != c.stopped || (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
				t.Errorf("threadsStopped = %v, %v; want %v, error %q", got, err, c.stopped, c.err)
			}
		})
	}
	if ok, err := threadsStopped(filepath.Join(t.TempDir(), "none"), 42); !ok || err != nil {
		t.Errorf("no process table: %v, %v; want true (nothing to wait for)", ok, err)
	}
}

func TestWaitStopped(t *testing.T) {
	if err := waitStopped(fakeProc(t, "T", "T"), 42, time.Second); err != nil {
		t.Errorf("stopped: %v", err)
	}
	err := waitStopped(fakeProc(t, "T", "R"), 42, 20*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "not stopped after 20ms") {
		t.Errorf("running: %v", err)
	}
}
