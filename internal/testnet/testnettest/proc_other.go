//go:build !linux

package testnettest

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// ChildAttr is for a server process a test starts: its own process group.
// Without Linux's parent-death signal it outlives a test binary that dies
// without stopping it.
func ChildAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// ProcessesUnder lists the pids of the processes whose command line
// mentions dir (nodes are started with --home under their testnet
// directory): tests use it to check that nothing was left running. Without
// /proc it asks ps(1); a test fails when ps cannot list the processes.
func ProcessesUnder(tb testing.TB, dir string) []string {
	tb.Helper()
	out, err := exec.Command("ps", "-A", "-ww", "-o", "pid=,args=").Output()
	if err != nil {
		tb.Fatalf("list processes: ps: %v", err)
	}
	var pids []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		pid, args, _ := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		if strings.Contains(args, dir) {
			pids = append(pids, pid)
		}
	}
	return pids
}
