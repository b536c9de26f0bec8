package experiment

import (
	"context"
	"fmt"
	"sync"
	"syscall"
	"time"
)

// DefaultMinFreeDisk is the free space (bytes) under which the disk guard
// stops a run's load: 1 GiB, room for the read-back and the report.
const DefaultMinFreeDisk = 1 << 30

// diskGuardEvery is how often the disk guard checks the free space.
const diskGuardEvery = 5 * time.Second

// diskGuard stops the load when the file system holding the run directory
// (and the nodes' homes) has less than min bytes free, before it fills:
// the run ends partial with everything gathered so far on disk.
type diskGuard struct {
	dir   string
	min   uint64
	every time.Duration
	free  func(dir string) (uint64, error) // free bytes for an unprivileged user

	mu  sync.Mutex
	why string
}

func newDiskGuard(dir string, min uint64) *diskGuard {
	return &diskGuard{dir: dir, min: min, every: diskGuardEvery, free: freeDisk}
}

// watch checks the free space every g.every until ctx ends; below the
// minimum it records why and calls stop. A failed check is not a reason to
// stop (the next one may work).
func (g *diskGuard) watch(ctx context.Context, stop func()) {
	ctx, done := context.WithCancel(ctx)
	defer done()
	every(ctx, g.every, func() {
		if free, err := g.free(g.dir); err == nil && free < g.min {
			g.mu.Lock()
			g.why = fmt.Sprintf("disk guard: %s free under %s, below the minimum %s: the load was stopped before the disk fills (--min-free-disk)",
				fmtBytes(free), g.dir, fmtBytes(g.min))
			g.mu.Unlock()
			stop()
			done()
		}
	})
}

// tripped says why the guard stopped the load, "" if it did not (or there
// is no guard).
func (g *diskGuard) tripped() string {
	if g == nil {
		return ""
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.why
}

// freeDisk returns the bytes available to an unprivileged user on the file
// system holding dir.
func freeDisk(dir string) (uint64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, fmt.Errorf("statfs %s: %w", dir, err)
	}
	return uint64(st.Bavail) * uint64(st.Bsize), nil
}

// fmtBytes writes a byte count in binary units: "512 MiB", "1.5 GiB".
func fmtBytes(b uint64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%d B", b)
}
