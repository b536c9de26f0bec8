package series_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/experiment/experimenttest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/saturation"
	"github.com/cometlab/cometlab/internal/series"
	"github.com/cometlab/cometlab/internal/testnet/testnettest"
)

// TestSweepReuse runs a 2-cell --reuse-testnet sweep (c = 1, 2 at 100
// tx/s for 6 s) on one shared testnet, cooled down between cells, and
// kills validator04 of that testnet 3 s into the second cell's load. The
// cells are named and recorded as a reused sweep's; each gathers what a
// fresh run gathers (metrics.csv, resources.csv, adoption.csv,
// events.csv); the first is complete and judged; the second is partial,
// naming the node that died (its exit in events.csv), not missed.
func TestSweepReuse(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real testnet")
	}
	experimenttest.Proves(t)
	dir := filepath.Join(t.TempDir(), "sweep")
	var out experimenttest.SyncBuffer
	env := sweepEnv(t, &out) // waits for the node lock
	killed := killDuringCell(t, filepath.Join(dir, "cells", "c2-r100-0"), filepath.Join(dir, "testnets", "t1", "nodes", "validator04"))
	rec, err := series.Sweep(context.Background(), series.SweepOptions{Manifest: shortManifest(t), Connections: []int{1, 2},
		Rates: []float64{100}, Repeat: 1, Reuse: true, CoolDown: time.Second, Criterion: saturation.DefaultCriterion(), Dir: dir,
		Env: env})
	t.Log(out.String())
	if err != nil && len(rec.Cells) != 2 {
		t.Fatal(err)
	}
	select {
	case <-killed:
	default:
		t.Fatal("validator04 was not killed during the second cell")
	}
	if len(rec.Cells) != 2 || rec.Mode != results.ModeReuse {
		t.Fatalf("status %s, %d cells, mode %s", rec.Status, len(rec.Cells), rec.Mode)
	}
	for i, id := range []string{"c1-r100", "c2-r100"} {
		if c := rec.Cells[i]; c.ID != id || c.Dir != "cells/"+id+"-0" || c.Params["c"] != id[1:2] || c.Params["r"] != "100" {
			t.Errorf("cell %d: %+v", i, c)
		}
		checkCollected(t, filepath.Join(dir, rec.Cells[i].Dir))
	}
	checkCell(t, dir, rec.Cells[0])
	if n := strings.Count(out.String(), "reuse: starting a shared testnet"); n != 1 {
		t.Errorf("%d shared testnets started, want 1", n)
	}
	if !strings.Contains(out.String(), "cooling down") {
		t.Error("no cool-down between the cells")
	}
	if onDisk, err := saturation.ReadSweep(dir); err != nil || len(onDisk.Cells) != 2 || onDisk.Mode != results.ModeReuse {
		t.Errorf("sweep.json: %v, %+v", err, onDisk)
	}
	checkSweepReport(t, dir, "one testnet for consecutive cells")
	checkDied(t, filepath.Join(dir, rec.Cells[1].Dir), "validator04")
}

// killDuringCell SIGKILLs the processes under node 3 s after the run in
// cell starts its load; the channel receives each pid killed.
func killDuringCell(t *testing.T, cell, node string) <-chan string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	killed := make(chan string, 4)
	go func() {
		for ctx.Err() == nil {
			if r, err := results.ReadRun(cell); err == nil && !r.LoadStart.IsZero() {
				time.Sleep(3 * time.Second)
				for _, pid := range testnettest.ProcessesUnder(t, node) {
					n, _ := strconv.Atoi(pid)
					if syscall.Kill(n, syscall.SIGKILL) == nil {
						killed <- pid
					}
				}
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	return killed
}

// checkCollected checks that a cell's run directory holds what a fresh
// run's collectors write.
func checkCollected(t *testing.T, cell string) {
	t.Helper()
	for _, f := range []string{results.MetricsFile, results.ResourceFile, results.AdoptionFile} {
		if st, err := os.Stat(filepath.Join(cell, f)); err != nil || st.Size() < 100 {
			t.Errorf("cell %s: %s missing or empty: %v", cell, f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(cell, results.EventsFile)); err != nil {
		t.Errorf("cell %s: %v", cell, err)
	}
}

// checkDied checks that the run in cell is partial, naming node, and that
// its events.csv has node's exit.
func checkDied(t *testing.T, cell, node string) {
	t.Helper()
	r, err := results.ReadRun(cell)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != results.StatusPartial || !strings.Contains(strings.Join(r.Errors, "; "), "node "+node) {
		t.Errorf("%s: status %s, errors %q; want partial, naming %s", cell, r.Status, r.Errors, node)
	}
	events, err := results.ReadEvents(cell)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		if e.Node == node && e.Kind == results.EventExit {
			return
		}
	}
	t.Errorf("%s: events.csv has no exit of %s: %+v", cell, node, events)
}
