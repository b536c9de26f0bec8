package testnet

import (
	"fmt"
	"os"
	"syscall"
)

// dieWithParent has the kernel send the process SIGKILL when cometlab
// dies (Pdeathsig).
func dieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }

// commandLine returns the command line of process pid, its arguments
// separated by NUL bytes (/proc/<pid>/cmdline).
func commandLine(pid int) (string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return string(b), err
}
