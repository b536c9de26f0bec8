//go:build !linux

package testnet

import (
	"os/exec"
	"strconv"
	"syscall"
)

// dieWithParent does nothing: other Unix systems have no parent-death
// signal, so a node outlives a cometlab killed by SIGKILL (Stop and a
// cometlab that exits normally still stop it).
func dieWithParent(*syscall.SysProcAttr) {}

// commandLine returns the command line of process pid, as ps(1) prints it
// (there is no /proc to read).
func commandLine(pid int) (string, error) {
	b, err := exec.Command("ps", "-ww", "-o", "args=", "-p", strconv.Itoa(pid)).Output()
	return string(b), err
}
