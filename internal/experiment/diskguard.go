package experiment

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cometlab/cometlab/internal/exitcode"
)

// DefaultMinFreeDisk is the free space (bytes) under which the disk guard
// stops a run's load: 1 GiB, room for the read-back and the report.
const DefaultMinFreeDisk = 1 << 30

// diskGuardPrefix begins the error the disk guard records in run.json
// when it stops a load (stoppedByDiskGuard finds it there).
const diskGuardPrefix = "disk guard: "

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
	// did says what tripping the guard does, for its reason; now checks
	// once at the start too, not only after g.every.
	did string
	now bool

	mu  sync.Mutex
	why string
}

func newDiskGuard(dir string, min uint64) *diskGuard {
	return &diskGuard{dir: dir, min: min, every: diskGuardEvery, free: freeDisk,
		did: "the load was stopped before the disk fills (--min-free-disk)"}
}

// watch checks the free space every g.every until ctx ends; below the
// minimum it records why and calls stop. A failed check is not a reason to
// stop (the next one may work).
func (g *diskGuard) watch(ctx context.Context, stop func()) {
	ctx, done := context.WithCancel(ctx)
	defer done()
	check := func() {
		if free, err := g.free(g.dir); err == nil && free < g.min {
			g.mu.Lock()
			g.why = fmt.Sprintf(diskGuardPrefix+"%s free under %s, below the minimum %s: %s",
				fmtBytes(free), g.dir, fmtBytes(g.min), g.did)
			g.mu.Unlock()
			stop()
			done()
		}
	}
	if g.now {
		check()
	}
	every(ctx, g.every, check)
}

// drainGuard watches the drain of a run whose load the guard g stopped:
// the nodes go on writing while the drain waits, so it is cut short when
// less than half of g's minimum is left (checked at once, then as often as
// g), keeping room for the read-back and the report.
func (g *diskGuard) drainGuard() *diskGuard {
	return &diskGuard{dir: g.dir, min: g.min / 2, every: g.every, free: g.free, now: true,
		did: "the drain was cut short, the nodes still writing (--min-free-disk)"}
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

// checkDiskRoom refuses to start a series' run in dir when the file
// system that will hold it (dir's nearest existing ancestor's) has less
// free space than the disk guard's minimum (minFree as
// Collect.MinFreeDisk: 0 the default, below 0 no guard): the guard would
// stop its load at once, and the series would go on judging runs that
// measured nothing. (A single run starts, and its guard stops it partial
// with the reason.) A failed check is no reason to refuse (the guard
// checks again during the load).
func checkDiskRoom(dir string, minFree int64) error {
	limit, on := diskGuardMin(minFree)
	if !on {
		return nil
	}
	d := dir
	for {
		if _, err := os.Stat(d); err == nil {
			break
		}
		up := filepath.Dir(d)
		if up == d {
			break
		}
		d = up
	}
	free, err := freeDisk(d)
	if err != nil || free >= limit {
		return nil
	}
	return exitcode.With(fmt.Errorf("%s%s free under %s, below the minimum %s (--min-free-disk): the run was not started; "+
		"free some space and run it again (a series or a QA: --resume its directory)", diskGuardPrefix, fmtBytes(free), d, fmtBytes(limit)), exitcode.Failed)
}

// diskGuardMin is the guard's minimum free space in bytes for
// Collect.MinFreeDisk (0: DefaultMinFreeDisk), and whether there is a
// guard at all (below 0: none).
func diskGuardMin(minFree int64) (uint64, bool) {
	switch {
	case minFree < 0:
		return 0, false
	case minFree == 0:
		return DefaultMinFreeDisk, true
	}
	return uint64(minFree), true
}

// stoppedByDiskGuard says why the disk guard stopped a run's load, from
// the errors run.json records; "" when it did not.
func stoppedByDiskGuard(errs []string) string {
	for _, e := range errs {
		if strings.HasPrefix(e, diskGuardPrefix) {
			return e
		}
	}
	return ""
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
