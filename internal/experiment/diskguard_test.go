package experiment

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/exitcode"
)

func TestDiskGuard(t *testing.T) {
	for _, tc := range []struct {
		name  string
		frees []uint64 // successive readings
		trips bool
		want  string
	}{
		{"plenty", []uint64{5 << 30, 5 << 30, 5 << 30}, false, ""},
		{"fills up", []uint64{3 << 30, 2 << 30, 512 << 20}, true, "disk guard: 512 MiB free under /runs/x, below the minimum 1.0 GiB"},
		{"already full", []uint64{10 << 20}, true, "10 MiB free"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			i := 0
			g := &diskGuard{dir: "/runs/x", min: DefaultMinFreeDisk, every: time.Millisecond, free: func(string) (uint64, error) {
				v := tc.frees[min(i, len(tc.frees)-1)]
				i++
				return v, nil
			}}
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			stopped := false
			g.watch(ctx, func() { stopped = true })
			if stopped != tc.trips || !strings.Contains(g.tripped(), tc.want) {
				t.Errorf("stopped %v, why %q; want %v, %q", stopped, g.tripped(), tc.trips, tc.want)
			}
		})
	}
	// After the load, the drain's guard trips at half the minimum (its
	// first reading at once, then every millisecond), saying what it cut
	// short.
	i := 0
	frees := []uint64{700 << 20, 600 << 20, 400 << 20}
	g := (&diskGuard{dir: "/runs/x", min: DefaultMinFreeDisk, every: time.Millisecond}).drainGuard()
	g.free = func(string) (uint64, error) { v := frees[min(i, len(frees)-1)]; i++; return v, nil }
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	stopped := false
	g.watch(ctx, func() { stopped = true })
	if want := "400 MiB free under /runs/x, below the minimum 512 MiB: the drain was cut short"; !stopped || !strings.Contains(g.tripped(), want) || i != 3 {
		t.Errorf("drain guard: stopped %v after %d readings, why %q; want it stopped at the third, %q", stopped, i, g.tripped(), want)
	}
	if free, err := freeDisk(t.TempDir()); err != nil || free == 0 {
		t.Errorf("freeDisk of a real directory: %d, %v", free, err)
	}
}

// TestCheckDiskRoom: a run is refused before it starts when its file
// system has less room than the guard's minimum (the directory need not
// exist yet: its nearest existing ancestor is measured), never with the
// guard off; the refusal is the guard's, which a series finds again.
func TestCheckDiskRoom(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runs", "not-yet")
	for _, tc := range []struct {
		min    int64
		refuse bool
	}{{-1, false}, {0, false}, {1, false}, {1 << 62, true}} {
		err := checkDiskRoom(dir, tc.min)
		if (err != nil) != tc.refuse {
			t.Errorf("min %d: %v, want refused %v", tc.min, err, tc.refuse)
			continue
		}
		if err == nil {
			continue
		}
		if code, _ := exitcode.Of(err); code != exitcode.Failed || !strings.Contains(err.Error(), "below the minimum 4294967296.0 GiB") {
			t.Errorf("min %d: %v (code %d)", tc.min, err, code)
		}
		if stoppedByDiskGuard([]string{"other", err.Error()}) == "" {
			t.Errorf("the refusal %q is not found as the guard's", err)
		}
	}
	if why := stoppedByDiskGuard([]string{"node validator01 died"}); why != "" {
		t.Errorf("another error taken for the guard's: %q", why)
	}
}
