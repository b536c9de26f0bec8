package history

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/saturation"
)

// readSweep reads the sweep directory dir (absolute) and its cells' runs.
func readSweep(dir string) (Found, error) {
	rec, err := saturation.ReadSweep(dir)
	if err != nil {
		return Found{}, fmt.Errorf("%s unreadable (half-written?): %w", results.SweepFile, err)
	}
	p := seriesRun(dir, KindSweep, rec.ID, rec.Status, rec.Created, rec.Updated, rec.Host, rec.Testnet)
	p.Load = Load{Size: rec.Testnet.TxSize, DurationS: rec.Grid.DurationS, Detail: gridDetail(rec.Grid)}
	p.Figures = figuresOf(rec.Figures)
	p.Manifest = firstManifest(filepath.Join(dir, results.ManifestsDir, "*.toml"))
	out := Found{Runs: []Run{p}}
	for _, c := range rec.Cells {
		what := fmt.Sprintf("cell %s repeat %d (%s)", c.ID, c.Repeat, c.Status)
		out.child(dir, resolve(dir, c.Dir), what, "")
	}
	return out, nil
}

// readSearch reads the saturation-search directory dir (absolute) and
// its steps' runs.
func readSearch(dir string) (Found, error) {
	rec, err := saturation.ReadSearch(dir)
	if err != nil {
		return Found{}, fmt.Errorf("%s unreadable (half-written?): %w", results.SaturateFile, err)
	}
	p := seriesRun(dir, KindSaturate, rec.ID, rec.Status, rec.Created, rec.Updated, rec.Host, rec.Testnet)
	s := rec.Search
	p.Load = Load{Connections: rec.Connections, Size: rec.Testnet.TxSize, DurationS: s.DurationS,
		Detail: fmt.Sprintf("search from %g/s ×%g, ±%g, ≤ %d runs", s.Start, s.Growth, s.Resolution, s.MaxRuns)}
	p.Figures = figuresOf(rec.Figures)
	if o := rec.Outcome; o != nil && o.HalfWidth > 0 {
		if f, ok := p.Figures[saturationTPS]; ok {
			hw := float64(rec.Connections) * o.HalfWidth
			f.Interval = &Interval{Lo: f.Value - hw, Hi: f.Value + hw}
			p.Figures[saturationTPS] = f
		}
	}
	for _, st := range rec.Steps {
		if p.Manifest == "" && st.Dir != "" {
			p.Manifest = firstManifest(filepath.Join(resolve(dir, st.Dir), results.ManifestFile))
		}
	}
	out := Found{Runs: []Run{p}}
	for _, st := range rec.Steps {
		if st.Dir != "" {
			out.child(dir, resolve(dir, st.Dir), fmt.Sprintf("step %d (%s)", st.N, st.Status), "")
		}
	}
	return out, nil
}

// saturationTPS is the search's figure whose interval saturate.json keeps
// (outcome.half_width, per connection).
const saturationTPS = "saturation_tps"

// abFile is the part of ab.json history reads (series.ABRecord).
type abFile struct {
	Status  string   `json:"status"`
	Partial bool     `json:"partial"`
	Labels  []string `json:"labels"`
	Base    string   `json:"base"`
	Pairs   int      `json:"pairs"`
}

// readAB reads the A/B experiment directory dir (absolute) and the runs of
// its rounds (runs/NN-<side>), each labelled with its side.
func readAB(dir string) (Found, error) {
	var rec abFile
	if err := results.ReadJSON(filepath.Join(dir, ABFile), &rec); err != nil {
		return Found{}, fmt.Errorf("%s unreadable (half-written?): %w", ABFile, err)
	}
	p := Run{Dir: dir, Kind: KindAB, ID: filepath.Base(dir), Status: rec.Status, Label: strings.Join(rec.Labels, sidesSep), Release: rec.Base}
	if p.Status == "" { // an ab.json of a cometlab before resume
		p.Status = results.StatusComplete
		if rec.Partial {
			p.Status = results.StatusPartial
		}
	}
	out := Found{Runs: []Run{p}}
	entries, err := os.ReadDir(filepath.Join(dir, "runs"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Found{}, fmt.Errorf("runs/: %w", err)
	}
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") || strings.HasSuffix(e.Name(), ".disturbed") {
			continue
		}
		_, side, _ := strings.Cut(e.Name(), "-")
		out.child(dir, filepath.Join(dir, "runs", e.Name()), "run "+e.Name(), side)
	}
	ab := &out.Runs[0]
	for _, c := range out.Runs[1:] {
		if ab.Created.IsZero() || c.Created.Before(ab.Created) {
			ab.Created = c.Created
		}
		if c.Ended.After(ab.Ended) {
			ab.Ended = c.Ended
		}
	}
	if base := slices.IndexFunc(out.Runs[1:], func(c Run) bool { return len(rec.Labels) > 0 && c.Label == rec.Labels[0] }); base >= 0 {
		b := out.Runs[1+base]
		ab.App, ab.Validators, ab.FullNodes, ab.Load, ab.Host, ab.Manifest = b.App, b.Validators, b.FullNodes, b.Load, b.Host, b.Manifest
		ab.Release = b.Release
	}
	if ab.Status == StatusRunning {
		ab.Ended = time.Time{}
	}
	if ab.Created.IsZero() {
		if fi, err := os.Stat(filepath.Join(dir, ABFile)); err == nil {
			ab.Created = fi.ModTime().UTC()
		}
	}
	return out, nil
}

// readQA reads a QA directory: the QA itself (its sides' labels, the
// candidate's release and testnet) and every step's series or runs, each
// under the QA as its parent (a step's own runs under the step's series).
func readQA(dir string) (Found, error) {
	var rec results.QARecord
	if err := results.ReadJSON(filepath.Join(dir, results.QAFile), &rec); err != nil {
		return Found{}, fmt.Errorf("%s unreadable (half-written?): %w", results.QAFile, err)
	}
	var tn results.TestnetInfo
	if len(rec.Testnets) > 0 {
		tn = rec.Testnets[len(rec.Testnets)-1] // the candidate's
	}
	p := seriesRun(dir, KindQA, filepath.Base(dir), rec.Status, rec.Created, rec.Updated, rec.Host, tn)
	p.Label = strings.Join(rec.Labels, sidesSep)
	out := Found{Runs: []Run{p}}
	for _, st := range rec.Steps {
		for _, d := range st.Dirs {
			f, err := Read(resolve(dir, d))
			if err != nil {
				out.Skipped = append(out.Skipped, Skip{Dir: resolve(dir, d), Reason: "step " + st.ID + ": " + err.Error()})
				continue
			}
			for i := range f.Runs {
				if f.Runs[i].Parent == "" {
					f.Runs[i].Parent = dir
				}
			}
			out.Runs = append(out.Runs, f.Runs...)
			out.Skipped = append(out.Skipped, f.Skipped...)
		}
	}
	return out, nil
}

// StatusRunning is a run's or a series' status while it runs (or after
// cometlab died without a word).
const StatusRunning = results.StatusRunning

// child reads the run directory d of the series parent: indexed with its
// Parent, its Label side when run.json names none; skipped with what (the
// cell, step or run) and why when it cannot be read.
func (f *Found) child(parent, d, what, side string) {
	r, err := readRun(d)
	if err != nil {
		reason := err.Error()
		if _, serr := os.Stat(d); serr != nil {
			reason = "no run directory"
		}
		f.Skipped = append(f.Skipped, Skip{Dir: d, Reason: what + ": " + reason})
		return
	}
	r.Parent = parent
	if side != "" && r.Label == r.Release {
		r.Label = side
	}
	f.Runs = append(f.Runs, r)
}

// seriesRun is the Run of a sweep or search from its record's fields.
func seriesRun(dir, kind, id, status string, created, updated time.Time, h results.Host, tn results.TestnetInfo) Run {
	r := Run{Dir: dir, Kind: kind, ID: id, Status: status, Created: created, Release: tn.CometBFTVersion,
		Label: tn.CometBFTVersion, App: tn.App, Validators: tn.Validators, FullNodes: max(0, tn.Nodes-tn.Validators), Host: hostOf(h)}
	if status != StatusRunning {
		r.Ended = updated
	}
	return r
}

func figuresOf(m map[string]float64) map[string]Figure {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]Figure, len(m))
	for id, v := range m {
		out[id] = Figure{Value: v}
	}
	return out
}

// firstManifest is ManifestHash, load left out, of the first file (in
// name order) matching glob; "" for none.
func firstManifest(glob string) string {
	names, _ := filepath.Glob(glob)
	slices.Sort(names)
	for _, n := range names {
		if b, err := os.ReadFile(n); err == nil {
			h, _ := ManifestHash(b, true)
			return h
		}
	}
	return ""
}

// resolve joins a record's relative run directory to the series' dir.
func resolve(dir, d string) string {
	if filepath.IsAbs(d) {
		return d
	}
	return filepath.Join(dir, filepath.FromSlash(d))
}

// gridDetail describes a sweep's grid: "c 1,2,4 × r 200,400 ×3, mempool.size=1000,5000".
func gridDetail(g results.SweepGrid) string {
	ints := make([]string, len(g.Connections))
	for i, c := range g.Connections {
		ints[i] = strconv.Itoa(c)
	}
	rates := make([]string, len(g.Rates))
	for i, r := range g.Rates {
		rates[i] = strconv.FormatFloat(r, 'g', -1, 64)
	}
	s := fmt.Sprintf("sweep c %s × r %s ×%d", strings.Join(ints, ","), strings.Join(rates, ","), g.Repeat)
	for _, p := range g.Params {
		s += ", " + p.Key + "=" + strings.Join(p.Values, ",")
	}
	return s
}
