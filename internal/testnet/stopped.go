package testnet

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// procRoot is where threadsStopped reads the process table.
const procRoot = "/proc"

// threadsStopped reports whether every thread of process pid is stopped
// (state T, or t when traced) in the process table under root
// (root/<pid>/task/<tid>/stat). Where there is no such table (not
// Linux) it reports true: the signal is all there is to go by.
func threadsStopped(root string, pid int) (bool, error) {
	tasks, err := filepath.Glob(filepath.Join(root, fmt.Sprint(pid), "task", "*", "stat"))
	if err != nil || len(tasks) == 0 {
		if _, statErr := os.Stat(root); os.IsNotExist(statErr) {
			return true, nil
		}
		return false, fmt.Errorf("process %d: no thread in %s", pid, root)
	}
	for _, p := range tasks {
		b, err := os.ReadFile(p)
		if err != nil {
			return false, err // a thread that ended meanwhile: look again
		}
		// pid (comm) state …: comm may hold spaces and parentheses.
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 || i+2 >= len(b) {
			return false, fmt.Errorf("%s: no state field", p)
		}
		if s := b[i+2]; s != 'T' && s != 't' {
			return false, nil
		}
	}
	return true, nil
}

// waitStopped waits up to timeout for every thread of pid to stop after
// SIGSTOP: the signal is delivered to each thread when it next runs, so on
// a busy host a "paused" node may still answer a request for a moment.
func waitStopped(root string, pid int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		ok, err := threadsStopped(root, pid)
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			if err == nil {
				err = fmt.Errorf("a thread still running")
			}
			return fmt.Errorf("process %d not stopped after %s: %w", pid, timeout, err)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
