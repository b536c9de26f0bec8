package history

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
	"github.com/cometlab/cometlab/internal/saturation"
)

// TestReadFixture indexes the recorded run after analysis: every figure of
// its summary.json, its identity from run.json and manifest.toml.
func TestReadFixture(t *testing.T) {
	dir := resultstest.CopyRun(t, small)
	s, err := analysis.Analyze(dir)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Runs) != 1 || len(f.Skipped) != 0 {
		t.Fatalf("found %+v", f)
	}
	r := f.Runs[0]
	if len(r.Figures) != len(s.Metrics) || len(r.Figures) < 50 {
		t.Errorf("%d figures, summary.json has %d", len(r.Figures), len(s.Metrics))
	}
	for id, v := range s.Metrics {
		if r.Figures[id].Value != v {
			t.Errorf("%s = %v, summary.json %v", id, r.Figures[id].Value, v)
		}
	}
	want := Run{Dir: dir, Kind: KindRun, ID: "6f1c2d3e-4b5a-4c6d-8e7f-8091a2b3c4d5", Status: "complete", Release: "v0.38.26", Label: "v0.38.26",
		App: "kvstore", Validators: 2, Load: Load{Connections: 2, Rate: 10, Size: 256, DurationS: 3},
		Host: Host{Name: "qa-01", Cores: 8, MemBytes: 17179869184, Arch: "amd64"}}
	r.Figures, want.Manifest = nil, r.Manifest
	want.Created, want.Ended = time.Date(2025, 3, 14, 9, 59, 55, 0, time.UTC), time.Date(2025, 3, 14, 10, 0, 9, 0, time.UTC)
	if r.Note != "" || len(r.Manifest) != 64 || !equalRun(r, want) {
		t.Errorf("read\n %+v\nwant\n %+v", r, want)
	}
	if got := r.Series().String(); got != "manifest "+r.Manifest[:12]+", app kvstore, load 2×10/s 256 B 3s, host 8 cores, CPU unknown, 16 GiB, amd64" {
		t.Errorf("series %s", got)
	}
}

func equalRun(a, b Run) bool {
	return a.Dir == b.Dir && a.Kind == b.Kind && a.ID == b.ID && a.Status == b.Status && a.Release == b.Release && a.Label == b.Label &&
		a.App == b.App && a.Validators == b.Validators && a.FullNodes == b.FullNodes && a.Load == b.Load && a.Host == b.Host &&
		a.Created.Equal(b.Created) && a.Ended.Equal(b.Ended) && a.Manifest == b.Manifest && a.Parent == b.Parent
}

// TestReadBroken: what cannot be read is skipped with its reason, what is
// missing is noted, never a crash.
func TestReadBroken(t *testing.T) {
	root := t.TempDir()
	writeRun(t, filepath.Join(root, "a-good"), spec{figures: map[string]float64{"committed_tps": 20}})
	writeRun(t, filepath.Join(root, "b-running"), spec{status: "running"})
	half := filepath.Join(root, "c-half")
	writeRun(t, half, spec{})
	b, _ := os.ReadFile(filepath.Join(half, results.RunFile))
	resultstest.WriteFile(t, filepath.Join(half, results.RunFile), b[:len(b)/2])
	os.MkdirAll(filepath.Join(root, "d-empty"), 0o755)
	noStatus := filepath.Join(root, "e-nostatus")
	os.MkdirAll(noStatus, 0o755)
	resultstest.WriteFile(t, filepath.Join(noStatus, results.RunFile), []byte(`{"id": "x"}`))
	badSummary := filepath.Join(root, "f-badsummary")
	writeRun(t, badSummary, spec{})
	resultstest.WriteFile(t, filepath.Join(badSummary, results.SummaryFile), []byte(`{"metrics": {`))
	os.Remove(filepath.Join(badSummary, results.ManifestFile))
	resultstest.WriteFile(t, filepath.Join(root, "not-a-dir"), []byte("x"))
	os.MkdirAll(filepath.Join(root, ".hidden"), 0o755)

	f := Walk([]string{root, filepath.Join(root, "missing")})
	var got []string
	for _, r := range f.Runs {
		got = append(got, filepath.Base(r.Dir)+" "+r.Status+" ["+r.Note+"]")
	}
	want := []string{"a-good complete []", "b-running running [no summary.json: no figures]",
		"f-badsummary complete [no manifest.toml; summary.json unreadable: no figures]"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("indexed\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	got = nil
	for _, s := range f.Skipped {
		got = append(got, filepath.Base(s.Dir)+": "+s.Reason)
	}
	want = []string{
		"c-half: run.json unreadable (half-written?): decode " + filepath.Join(half, results.RunFile) + ": unexpected end of JSON input",
		"d-empty: " + ErrNotRun.Error(),
		"e-nostatus: run.json names no status",
		"missing: no such directory",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("skipped\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := Read(filepath.Join(root, "d-empty")); !errors.Is(err, ErrNotRun) {
		t.Errorf("Read of an empty directory: %v", err)
	}
}

// TestReadSeries reads a sweep, a search and an A/B experiment: their runs
// are runs too, linked to them; a pending cell is skipped with why.
func TestReadSeries(t *testing.T) {
	root := t.TempDir()
	sweep := filepath.Join(root, "sweeps", "s1")
	writeRun(t, filepath.Join(sweep, "cells", "c2-r10-0"), spec{figures: map[string]float64{"committed_tps": 20}})
	man, _ := os.ReadFile(filepath.Join(small, results.ManifestFile))
	resultstest.WriteFile(t, filepath.Join(sweep, results.ManifestsDir, "c2-r10.toml"), man)
	cell := func(id string, repeat int, status string) saturation.SweepCell {
		return saturation.SweepCell{SweepCell: results.SweepCell{ID: id, Repeat: repeat, Dir: "cells/" + id + "-" + string(rune('0'+repeat)), Status: status}}
	}
	srec := saturation.SweepRecord{ID: "s1", Kind: "sweep", Status: "complete", Created: day(0), Updated: day(0).Add(time.Hour),
		Testnet: results.TestnetInfo{CometBFTVersion: "v0.38.26", App: "kvstore", Validators: 2, Nodes: 3, TxSize: 256},
		Grid:    results.SweepGrid{Connections: []int{2}, Rates: []float64{10, 20}, Repeat: 1, DurationS: 3},
		Cells:   []saturation.SweepCell{cell("c2-r10", 0, "complete"), cell("c2-r20", 0, "pending")}, Figures: map[string]float64{"saturation_diagonal_tps": 20}}
	if err := results.WriteJSON(filepath.Join(sweep, results.SweepFile), srec); err != nil {
		t.Fatal(err)
	}
	search := filepath.Join(root, "saturations", "q1")
	writeRun(t, filepath.Join(search, "steps", "s01"), spec{})
	qrec := saturation.SearchRecord{ID: "q1", Kind: "saturate", Status: "complete", Created: day(1), Updated: day(1), Connections: 2,
		Search: saturation.SearchConfig{Start: 200, Growth: 4, Resolution: 0.05, MaxRuns: 8, DurationS: 60},
		Steps:  []saturation.SearchStep{{N: 1, Dir: "steps/s01", Status: "complete"}}, Outcome: &saturation.Outcome{Saturation: 500, HalfWidth: 10},
		Figures: map[string]float64{"saturation_tps": 1000}}
	if err := results.WriteJSON(filepath.Join(search, results.SaturateFile), qrec); err != nil {
		t.Fatal(err)
	}
	ab := filepath.Join(root, "ab", "2026-11-02T10:00:00Z")
	writeRun(t, filepath.Join(ab, "runs", "01-base"), spec{started: day(2)})
	writeRun(t, filepath.Join(ab, "runs", "01-cand"), spec{started: day(2).Add(time.Minute), release: "v0.40.0"})
	resultstest.WriteFile(t, filepath.Join(ab, ABFile), []byte(`{"base": "v0.38.26", "labels": ["base", "cand"], "status": "complete", "pairs": 1}`))

	f := Walk([]string{filepath.Join(root, "sweeps"), filepath.Join(root, "saturations"), filepath.Join(root, "ab")})
	var got []string
	for _, r := range f.Runs {
		rel, _ := filepath.Rel(root, r.Dir)
		p, _ := filepath.Rel(root, r.Parent)
		if r.Parent == "" {
			p = "-"
		}
		got = append(got, rel+" "+r.Kind+" "+r.Status+" "+r.Label+" parent "+p+" "+r.Load.String())
	}
	want := []string{
		"sweeps/s1 sweep complete v0.38.26 parent - 256 B 3s sweep c 2 × r 10,20 ×1",
		"sweeps/s1/cells/c2-r10-0 run complete v0.38.26 parent sweeps/s1 2×10/s 256 B 3s",
		"saturations/q1 saturate complete  parent - 2 conns 1m0s search from 200/s ×4, ±0.05, ≤ 8 runs",
		"saturations/q1/steps/s01 run complete v0.38.26 parent saturations/q1 2×10/s 256 B 3s",
		"ab/2026-11-02T10:00:00Z ab complete base vs cand parent - 2×10/s 256 B 3s",
		"ab/2026-11-02T10:00:00Z/runs/01-base run complete base parent ab/2026-11-02T10:00:00Z 2×10/s 256 B 3s",
		"ab/2026-11-02T10:00:00Z/runs/01-cand run complete cand parent ab/2026-11-02T10:00:00Z 2×10/s 256 B 3s",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("indexed\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(f.Skipped) != 1 || !strings.HasSuffix(f.Skipped[0].Dir, "c2-r20-0") || f.Skipped[0].Reason != "cell c2-r20 repeat 0 (pending): no run directory" {
		t.Errorf("skipped %+v", f.Skipped)
	}
	sat := f.Runs[2].Figures[saturationTPS]
	if sat.Interval == nil || *sat.Interval != (Interval{Lo: 980, Hi: 1020}) {
		t.Errorf("saturation_tps %+v", sat)
	}
	if f.Runs[0].Manifest == "" || f.Runs[0].Manifest == f.Runs[1].Manifest || f.Runs[0].FullNodes != 1 {
		t.Errorf("sweep manifest %q (cell's %q), full nodes %d", f.Runs[0].Manifest, f.Runs[1].Manifest, f.Runs[0].FullNodes)
	}
	if abRun := f.Runs[4]; !abRun.Created.Equal(day(2)) || abRun.Release != "v0.38.26" || abRun.Manifest != f.Runs[5].Manifest {
		t.Errorf("ab %+v", abRun)
	}
}

// TestManifestHash: comments, layout and the release do not change the
// hash; any other value does.
func TestManifestHash(t *testing.T) {
	base := "name = \"x\"\ncometbft_version = \"v0.38.26\"\n[load]\nrate = 200\n[node.v0]\nmode = \"validator\"\ncometbft_version = \"v0.38.26\"\n"
	h0, ok := ManifestHash([]byte(base), false)
	if !ok {
		t.Fatal("not TOML")
	}
	for _, c := range []struct {
		name, text  string
		withoutLoad bool
		same        bool
	}{
		{"comments and layout", "# resolved\nname   = \"x\"\n\n[node.v0]\nmode = \"validator\"\n[load]\nrate = 200 # tx/s\n", false, true},
		{"another release", strings.ReplaceAll(base, "v0.38.26", "v0.40.0"), false, true},
		{"a binary", strings.ReplaceAll(base, "cometbft_version = \"v0.38.26\"\n[load]", "cometbft_binary = \"/bin/cometbft\"\n[load]"), false, true},
		{"another rate", strings.ReplaceAll(base, "200", "400"), false, false},
		{"another mode", strings.ReplaceAll(base, "validator", "full"), false, false},
		{"without load", base, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			h, ok := ManifestHash([]byte(c.text), c.withoutLoad)
			if !ok || (h == h0) != c.same {
				t.Errorf("hash %s (ok %v), base %s; same %v", h, ok, h0, c.same)
			}
		})
	}
	if h, ok := ManifestHash([]byte("not = = toml"), false); ok || len(h) != 64 {
		t.Errorf("not TOML: %s %v", h, ok)
	}
}

// TestReadQA: a QA directory is indexed with its steps' series and runs
// under it; a step's directory that cannot be read is skipped with the
// step named.
func TestReadQA(t *testing.T) {
	root := t.TempDir()
	qa := filepath.Join(root, "qa", "20261127-100000")
	long := filepath.Join(qa, "tests", "long")
	writeRun(t, filepath.Join(long, "runs", "01-v0.38.26"), spec{started: day(3)})
	writeRun(t, filepath.Join(long, "runs", "01-v0.40.0"), spec{started: day(3).Add(time.Minute), release: "v0.40.0"})
	resultstest.WriteFile(t, filepath.Join(long, ABFile), []byte(`{"base": "v0.38.26", "labels": ["v0.38.26", "v0.40.0"], "status": "complete", "pairs": 1}`))
	rec := results.QARecord{Kind: "qa", Status: "complete", Created: day(3), Updated: day(3).Add(time.Hour), Labels: []string{"v0.38.26", "v0.40.0"},
		Testnets: []results.TestnetInfo{{CometBFTVersion: "v0.38.26", App: "kvstore", Validators: 4, Nodes: 4}, {CometBFTVersion: "v0.40.0", App: "kvstore", Validators: 4, Nodes: 4}},
		Steps:    []results.QAStep{{ID: "long", Status: "done", Dirs: []string{"tests/long"}}, {ID: "partition", Status: "failed", Dirs: []string{"tests/partition"}}}}
	if err := results.WriteJSON(filepath.Join(qa, results.QAFile), rec); err != nil {
		t.Fatal(err)
	}
	f := Walk([]string{filepath.Join(root, "qa")})
	var got []string
	for _, r := range f.Runs {
		rel, _ := filepath.Rel(root, r.Dir)
		p, _ := filepath.Rel(root, r.Parent)
		if r.Parent == "" {
			p = "-"
		}
		got = append(got, rel+" "+r.Kind+" "+r.Status+" "+r.Release+" "+r.Label+" parent "+p)
	}
	want := []string{
		"qa/20261127-100000 qa complete v0.40.0 v0.38.26 vs v0.40.0 parent -",
		"qa/20261127-100000/tests/long ab complete v0.38.26 v0.38.26 vs v0.40.0 parent qa/20261127-100000",
		"qa/20261127-100000/tests/long/runs/01-v0.38.26 run complete v0.38.26 v0.38.26 parent qa/20261127-100000/tests/long",
		"qa/20261127-100000/tests/long/runs/01-v0.40.0 run complete v0.40.0 v0.40.0 parent qa/20261127-100000/tests/long",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("indexed\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(f.Skipped) != 1 || !strings.HasPrefix(f.Skipped[0].Reason, "step partition: ") {
		t.Errorf("skipped %+v", f.Skipped)
	}
}
