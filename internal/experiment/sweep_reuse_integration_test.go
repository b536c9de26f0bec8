package experiment_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/saturation"
	"github.com/cometlab/cometlab/internal/testnet/testnettest"
)

// TestSweepReuseCollects: the cells of a --reuse-testnet sweep gather what
// a fresh run gathers (metrics.csv, resources.csv, events.csv), and a node
// of the shared testnet that dies during a cell is named in that cell's
// run (partial), not missed.
func TestSweepReuseCollects(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real testnet")
	}
	dir := filepath.Join(t.TempDir(), "sweep")
	var out syncBuffer
	env := sweepEnv(t, &out) // waits for the node lock
	// Kill validator04 of the shared testnet 3 s into the second cell's load.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	killed := make(chan string, 1)
	go func() {
		second := filepath.Join(dir, "cells", "c1-r150-0")
		for ctx.Err() == nil {
			if r, err := results.ReadRun(second); err == nil && !r.LoadStart.IsZero() {
				time.Sleep(3 * time.Second)
				for _, pid := range testnettest.ProcessesUnder(t, filepath.Join(dir, "testnets", "t1", "nodes", "validator04")) {
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
	rec, err := experiment.Sweep(context.Background(), experiment.SweepOptions{Manifest: shortManifest(t), Connections: []int{1},
		Rates: []float64{100, 150}, Repeat: 1, Reuse: true, CoolDown: time.Second, Criterion: saturation.DefaultCriterion(), Dir: dir,
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
	for _, c := range rec.Cells {
		cell := filepath.Join(dir, c.Dir)
		for _, f := range []string{results.MetricsFile, results.ResourceFile, results.AdoptionFile} {
			if st, err := os.Stat(filepath.Join(cell, f)); err != nil || st.Size() < 100 {
				t.Errorf("cell %s: %s missing or empty: %v", c.ID, f, err)
			}
		}
		if _, err := os.Stat(filepath.Join(cell, results.EventsFile)); err != nil {
			t.Errorf("cell %s: %v", c.ID, err) // its rows are checked below
		}
	}
	first, err := results.ReadRun(filepath.Join(dir, rec.Cells[0].Dir))
	if err != nil || first.Status != results.StatusComplete {
		t.Errorf("first cell: %v, %+v", err, first)
	}
	second, err := results.ReadRun(filepath.Join(dir, rec.Cells[1].Dir))
	if err != nil {
		t.Fatal(err)
	}
	if second.Status != results.StatusPartial || !strings.Contains(strings.Join(second.Errors, "; "), "node validator04") {
		t.Errorf("second cell: status %s, errors %q; want partial, naming validator04", second.Status, second.Errors)
	}
	events, err := results.ReadEvents(filepath.Join(dir, rec.Cells[1].Dir))
	if err != nil {
		t.Fatal(err)
	}
	exited := false
	for _, e := range events {
		exited = exited || (e.Node == "validator04" && e.Kind == results.EventExit)
	}
	if !exited {
		t.Errorf("the second cell's events.csv has no exit of validator04: %+v", events)
	}
}
