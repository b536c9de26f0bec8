package report

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
	"github.com/cometlab/cometlab/internal/saturation"
)

// TestSweepFigures checks the per-cell figures tables (mean and 95 %
// interval over repeats, known answers) and the footprint series and plot
// on a sweep of two cells of two repeats each, with hand-made cell runs.
func TestSweepFigures(t *testing.T) {
	dir := t.TempDir()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	rec := saturation.SweepRecord{ID: "s", Kind: "sweep", Status: results.StatusComplete, Criterion: saturation.DefaultCriterion(),
		Grid: results.SweepGrid{Connections: []int{1}, Rates: []float64{200}, Repeat: 2, DurationS: 60}}
	type cellRun struct {
		id      string
		rep     int
		tps     float64
		growth  float64 // MiB over the 60 s load
		height  int64
		dataMiB []float64 // per node, per second
	}
	for _, c := range []cellRun{
		{"size_0", 0, 100, 30, 50, []float64{1, 2, 3}},
		{"size_0", 1, 110, 60, 52, []float64{1, 2, 3}},
		{"size_4096", 0, 90, 120, 48, []float64{2, 4, 8}},
		{"size_4096", 1, 90, 120, 48, []float64{2, 4, 8}},
	} {
		cdir := filepath.Join("cells", c.id+"-"+string(rune('0'+c.rep)))
		rec.Cells = append(rec.Cells, saturation.SweepCell{SweepCell: results.SweepCell{ID: c.id, Repeat: c.rep, Dir: cdir,
			Status: results.StatusComplete}})
		full := filepath.Join(dir, cdir)
		run := results.Run{ID: c.id, Status: results.StatusComplete, LoadStart: start, LastHeight: c.height,
			Load: results.Load{Connections: 1, Rate: 200, DurationS: 60}}
		sum := analysis.Summary{RunID: c.id, Metrics: map[string]float64{"committed_tps": c.tps, "data_dir_growth_mib": c.growth,
			"blocks_per_s_mean": 0.75}}
		if err := os.MkdirAll(full, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, v := range map[string]any{results.RunFile: run, results.SummaryFile: sum} {
			if err := results.WriteJSON(filepath.Join(full, name), v); err != nil {
				t.Fatal(err)
			}
		}
		var rows []results.Resource
		for s, mib := range c.dataMiB {
			at := start.Add(time.Duration(s+1) * time.Second).UnixNano()
			for i, node := range []string{"v1", "v2", "v1/app"} {
				rows = append(rows, results.Resource{Time: at + int64(i)*1e6, Node: node, DataBytes: int64(mib*float64(i+1)) << 20})
			}
		}
		resultstest.WriteCSV(t, filepath.Join(full, results.ResourceFile), results.ResourcesHeader, rows)
	}
	if err := WriteSweep(dir, rec, Options{}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, results.SweepReportFile))
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	// tx/s 100 and 110: mean 105, s = 7.071, t(0.975, 1) = 12.706, half-width 63.5.
	// Growth 30 and 60 MiB over 1 min: mean 45 [−145.6, 235.6]. Blocks/min 0.75 × 60 = 45.
	for _, want := range []string{
		"| `size_0` | 2 | — | 105.0 [41.5, 168.5] | — | — | 45.0 [45.0, 45.0] |",
		"| `size_4096` | 2 | — | 90.0 [90.0, 90.0] |",
		"| `size_0` | 2 | 51 [38, 64] | — | — | — | — | — | — | — | 45.0 [-145.6, 235.6] |",
		"![Data directory over time](plots/footprint.png)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("sweep.md lacks %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, results.PlotsDir, FootprintPlot)); err != nil {
		t.Error(err)
	}
	// The footprint is the mean over the nodes (v1 and v2 = 2 × v1), apps left out.
	run, err := results.ReadRun(filepath.Join(dir, "cells", "size_4096-0"))
	if err != nil {
		t.Fatal(err)
	}
	xs, ys, err := footprintSeries(filepath.Join(dir, "cells", "size_4096-0"), &run)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(xs, []float64{1, 2, 3}) || !slices.Equal(ys, []float64{3, 6, 12}) {
		t.Errorf("footprint %v %v, want x 1,2,3 and y 3,6,12 MiB", xs, ys)
	}
}

func TestCellLabels(t *testing.T) {
	cells := []*cellRuns{
		{id: "a", params: map[string]string{"c": "1", "r": "200", "db_backend": "goleveldb", "app.retain_blocks": "0"}},
		{id: "b", params: map[string]string{"c": "1", "r": "200", "db_backend": "pebbledb", "app.retain_blocks": "30"}},
	}
	keys := varyingParams(cells)
	if !slices.Equal(keys, []string{"app.retain_blocks", "db_backend"}) {
		t.Errorf("varying %v", keys)
	}
	if got := cellLabel(cells[1], keys); got != "30 · pebbledb" {
		t.Errorf("label %q", got)
	}
	if got := cellLabel(cells[0], nil); got != "a" {
		t.Errorf("label without varying settings %q, want the id", got)
	}
}
