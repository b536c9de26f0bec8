package experiment

import (
	"context"
	"strings"
	"testing"
	"time"
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
	if free, err := freeDisk(t.TempDir()); err != nil || free == 0 {
		t.Errorf("freeDisk of a real directory: %d, %v", free, err)
	}
}
