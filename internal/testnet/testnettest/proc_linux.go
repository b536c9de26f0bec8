package testnettest

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// ChildAttr is for a server process a test starts: its own process group,
// and SIGKILL when the test binary dies without stopping it.
func ChildAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// ProcessesUnder lists the pids of the processes whose command line
// mentions dir (nodes are started with --home under their testnet
// directory): tests use it to check that nothing was left running. It
// reads /proc; a test fails when /proc cannot be listed.
func ProcessesUnder(tb testing.TB, dir string) []string {
	tb.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		tb.Fatalf("list processes: %v", err)
	}
	var pids []string
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(b, []byte(dir)) {
			pids = append(pids, e.Name())
		}
	}
	return pids
}
