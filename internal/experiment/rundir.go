package experiment

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cometlab/cometlab/internal/results"
)

// runDir is an open run directory with its run.json kept up to date.
type runDir struct {
	dir string
	mu  sync.Mutex
	run results.Run
}

// createRunDir creates dir (which must not hold a run already) and writes
// the first run.json.
func createRunDir(dir string, run results.Run) (*runDir, error) {
	if _, err := os.Stat(filepath.Join(dir, results.RunFile)); err == nil {
		return nil, fmt.Errorf("run directory %s already holds a run; choose another --out", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create run directory: %w", err)
	}
	rd := &runDir{dir: dir, run: run}
	return rd, rd.update(func(*results.Run) {})
}

func (rd *runDir) path(name string) string { return filepath.Join(rd.dir, name) }

// update applies fn to the run and writes run.json out atomically, both
// under the lock, so that run.json is written in the order of the changes:
// the last write holds every change.
func (rd *runDir) update(fn func(r *results.Run)) error {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	fn(&rd.run)
	return results.WriteJSON(rd.path(results.RunFile), rd.run)
}

// fail records err in run.json.
func (rd *runDir) fail(err error) {
	_ = rd.update(func(r *results.Run) { r.Errors = append(r.Errors, err.Error()) })
}

// hostInfo describes this machine.
func hostInfo() results.Host {
	h := results.Host{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), Go: runtime.Version()}
	h.Hostname, _ = os.Hostname()
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) == nil {
		h.MemBytes = int64(si.Totalram) * int64(si.Unit)
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		h.Kernel = strings.TrimSpace(string(b))
	}
	return h
}

// DefaultRunDir is runs/<run-id> under the current directory.
func DefaultRunDir(id string) string { return filepath.Join("runs", id) }

// since formats a duration for progress lines.
func since(t time.Time) string { return time.Since(t).Round(100 * time.Millisecond).String() }
