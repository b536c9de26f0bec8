package report

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
	"github.com/cometlab/cometlab/internal/saturation"
)

// saturationGolden is where the sweep and search report goldens live;
// `go test -update` rewrites them.
const saturationGolden = "../../testdata/saturation"

func f64(v float64) *float64 { return &v }

// fixtureEvidence is a run at c × r for 60 s that commits tps tx/s with
// the given latency slope.
func fixtureEvidence(c int, r, tps, slope, meanMS float64) saturation.Evidence {
	exp := float64(c) * r * 60
	committed := min(exp, tps*60)
	return saturation.Evidence{Connections: c, Rate: r, DurationS: 60, Status: results.StatusComplete,
		ExpectedTxs: exp, CommittedTxs: committed, ThroughputRatio: f64(committed / exp), CommittedTPS: f64(min(tps, float64(c)*r) * 0.985),
		LatencyMeanMS: f64(meanMS), LatencyP99MS: f64(meanMS * 1.9),
		Trend:  &saturation.Trend{Slope: slope, Low: slope - 0.004, High: slope + 0.004, Points: 30, FromS: 12, ToS: 48},
		Drain:  &saturation.Drain{Seconds: 0.4 + 30*slope, Drained: true, Source: saturation.DrainFromRPC},
		Rounds: &saturation.Rounds{Heights: 48}}
}

// fixtureSweep is a 2 × 3 grid with 2 repeats on a network that sustains
// 1,300 tx/s, one failed run and one cell not run yet.
func fixtureSweep() saturation.SweepRecord {
	t0 := time.Date(2025, 3, 14, 10, 0, 0, 0, time.UTC)
	crit := saturation.DefaultCriterion()
	rec := saturation.SweepRecord{ID: "5b0672d9-38f2-4807-8719-0f8af580bef3", Kind: "sweep", Status: results.StatusPartial,
		CometlabVersion: "v0.1.0", Created: t0, Updated: t0.Add(time.Hour),
		Host:    results.Host{Hostname: "qa-1", OS: "linux", Arch: "amd64", CPUs: 2},
		Testnet: results.TestnetInfo{Name: "default", CometBFTVersion: "v0.40.0", App: "kvstore", Validators: 4, Nodes: 4, TxSize: 1024, Pacing: "even"},
		Grid:    results.SweepGrid{Connections: []int{1, 2}, Rates: []float64{400, 800, 1600}, Repeat: 2, DurationS: 60},
		Mode:    results.ModeFresh, Criterion: crit}
	at := t0
	for rep := range 2 {
		for _, r := range []float64{400, 800, 1600} {
			for _, c := range []int{1, 2} {
				id := "c" + map[int]string{1: "1", 2: "2"}[c] + "-r" + fmtFloat(r)
				cell := saturation.SweepCell{SweepCell: results.SweepCell{ID: id, Params: map[string]string{"c": map[int]string{1: "1", 2: "2"}[c], "r": fmtFloat(r)},
					Repeat: rep, Dir: "cells/" + id + "-" + map[int]string{0: "0", 1: "1"}[rep], Status: results.StatusComplete,
					Started: at, Ended: at.Add(70 * time.Second)}}
				at = at.Add(75 * time.Second)
				load := float64(c) * r
				slope := 0.002 + float64(rep)*0.001
				tps := 1300 + 20*float64(rep)
				if load > 1300 {
					slope = (load - tps) / tps
				}
				ev := fixtureEvidence(c, r, tps, slope, 700+load/4+float64(rep)*30)
				switch {
				case rep == 1 && id == "c2-r1600":
					cell.Status, cell.Error, cell.Started, cell.Ended = results.StatusPending, "", time.Time{}, time.Time{}
				case rep == 1 && id == "c1-r400":
					cell.Status, cell.Error = results.StatusFailed, "testnet start: validator03 did not advance within 1m30s"
					v := saturation.Verdict{Checks: []saturation.Check{{Name: saturation.CheckRun, Detail: "no evidence"}}}
					cell.Verdict = &v
				default:
					v := crit.Judge(ev)
					cell.Evidence, cell.Verdict = &ev, &v
				}
				rec.Cells = append(rec.Cells, cell)
			}
		}
	}
	rec.Figures = map[string]float64{"saturation_diagonal_tps": 800, "saturated_tps": 1300}
	return rec
}

func fixtureSaturate() saturation.SearchRecord {
	t0 := time.Date(2025, 3, 14, 12, 0, 0, 0, time.UTC)
	crit := saturation.DefaultCriterion()
	rec := saturation.SearchRecord{ID: "60fee432-24dd-4321-9eec-491a78f97e41", Kind: "saturate", Status: results.StatusComplete,
		CometlabVersion: "v0.1.0", Created: t0, Updated: t0.Add(10 * time.Minute),
		Host:        results.Host{Hostname: "qa-1", OS: "linux", Arch: "amd64", CPUs: 2},
		Testnet:     results.TestnetInfo{Name: "default", CometBFTVersion: "v0.40.0", App: "kvstore", Validators: 4, Nodes: 4, TxSize: 1024, Pacing: "even"},
		Connections: 1, Mode: results.ModeFresh, Search: saturation.DefaultSearch(400, 60), Criterion: crit}
	rec.Search.Growth, rec.Search.ProbeDurationS, rec.Search.Margin = 2, 20, 0.05
	at := t0
	for _, run := range []struct {
		rate, dur, slope float64
	}{{400, 20, 0.001}, {800, 20, 0.01}, {1600, 20, 0.23}, {1216, 60, 0.004}, {1344, 60, 0.05}} {
		step, done := rec.Search.Next(rec.Observations())
		if done || step.Rate != run.rate || step.DurationS != run.dur {
			panic("the fixture's path no longer matches the stepper: " + fmtFloat(step.Rate))
		}
		ev := fixtureEvidence(1, run.rate, 1300, run.slope, 700+run.rate/4)
		ev.DurationS = run.dur
		ev.Trend.ToS, ev.Trend.FromS = run.dur*0.8, run.dur*0.2
		v := crit.Judge(ev)
		n := len(rec.Steps) + 1
		rec.Steps = append(rec.Steps, saturation.SearchStep{N: n, Step: step, Dir: "steps/s0" + fmtFloat(float64(n)) + "-r" + fmtFloat(run.rate) + "-" + fmtFloat(run.dur) + "s",
			Status: results.StatusComplete, Started: at, Ended: at.Add(time.Duration(run.dur+10) * time.Second), Evidence: &ev, Verdict: &v})
		at = at.Add(time.Duration(run.dur+12) * time.Second)
	}
	if _, done := rec.Search.Next(rec.Observations()); !done {
		panic("the fixture's search is not done")
	}
	o := rec.Search.Conclude(rec.Observations())
	rec.Outcome = &o
	rec.Figures = map[string]float64{"saturation_tps": o.Saturation, "recommended_tps": o.Recommended}
	return rec
}

func checkPlot(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, filepath.FromSlash(results.LatencyThroughputPlot)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if w, h := wantPlotSize(); img.Bounds().Dx() != w || img.Bounds().Dy() != h {
		t.Errorf("plot is %v, want %d×%d", img.Bounds(), w, h)
	}
}

func TestWriteSweepGolden(t *testing.T) {
	defaultPlots(t) // its -update writes the plot for a look: at the size users get
	dir := t.TempDir()
	rec := fixtureSweep()
	if err := WriteSweep(dir, rec, Options{}); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, results.SweepReportFile))
	if err != nil {
		t.Fatal(err)
	}
	resultstest.Golden(t, filepath.Join(saturationGolden, "sweep.golden.md"), md)
	checkPlot(t, dir)
	page, err := os.ReadFile(filepath.Join(dir, results.SweepHTMLFile))
	if err != nil || !bytes.Contains(page, []byte("data:image/png;base64,")) {
		t.Errorf("sweep.html without the inlined plot (%v)", err)
	}
	checkPage(t, results.SweepHTMLFile, page)
	if resultstest.Updating() {
		// The plot, for a look with an image viewer (not compared).
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(results.LatencyThroughputPlot)))
		if err != nil {
			t.Fatal(err)
		}
		resultstest.WriteFile(t, filepath.Join(saturationGolden, "sweep.golden.png"), b)
	}

	var text bytes.Buffer
	SweepText(&text, rec)
	resultstest.Golden(t, filepath.Join(saturationGolden, "sweep.golden.txt"), text.Bytes())
}

func TestWriteSaturateGolden(t *testing.T) {
	dir := t.TempDir()
	rec := fixtureSaturate()
	if err := WriteSaturate(dir, rec, Options{}); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, results.SaturateReportFile))
	if err != nil {
		t.Fatal(err)
	}
	resultstest.Golden(t, filepath.Join(saturationGolden, "saturate.golden.md"), md)
	checkPlot(t, dir)
	page, err := os.ReadFile(filepath.Join(dir, results.SaturateHTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	checkPage(t, results.SaturateHTMLFile, page)
	var text bytes.Buffer
	SaturateText(&text, rec)
	resultstest.Golden(t, filepath.Join(saturationGolden, "saturate.golden.txt"), text.Bytes())
}

// TestWriteSweepEmpty reports a sweep before its first cell: no plot, a
// table of dashes.
func TestWriteSweepEmpty(t *testing.T) {
	dir := t.TempDir()
	rec := fixtureSweep()
	for i := range rec.Cells {
		c := rec.Cells[i].SweepCell
		rec.Cells[i] = saturation.SweepCell{SweepCell: results.SweepCell{ID: c.ID, Params: c.Params, Repeat: c.Repeat, Dir: c.Dir, Status: results.StatusPending}}
	}
	if err := WriteSweep(dir, rec, Options{}); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, results.SweepReportFile))
	for _, w := range []string{"No cell has finished yet.", "No plot yet", "| r=400 | — | — |"} {
		if !strings.Contains(string(md), w) {
			t.Errorf("sweep.md lacks %q", w)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(results.LatencyThroughputPlot))); err == nil {
		t.Error("a plot without data")
	}
}
