package compare

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// compareCases holds the data-driven cases: NAME.toml, the case and the
// verdicts it expects (hand-written, never rewritten), and NAME.golden, the
// figures (go test -update rewrites them).
const compareCases = "../../testdata/compare"

// casePaths returns the paths of the cases' .toml files and fails when
// there is none.
func casePaths(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(compareCases, "*.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatalf("no case in %s", compareCases)
	}
	return paths
}

// cmpCase is one data-driven case: testdata/compare/NAME.toml.
type cmpCase struct {
	Description string
	Options     struct {
		Seed         uint64
		ThresholdPct *float64 `toml:"threshold_pct"`
		Resamples    int
		// Noise gives metrics a measured between-run noise: id → the RMS
		// of the A/A pairs' Δ %, over NoisePairs pairs (default 10).
		Noise      map[string]float64
		NoisePairs int `toml:"noise_pairs"`
	}
	Run    []cmpCaseRun
	Expect struct {
		Verdict  string
		Metrics  map[string]string // id → verdict, or "v1 | v2" one per candidate
		Warnings []string          // substrings of warnings
		NoWarn   bool              `toml:"no_warnings"`
	}
}

type cmpCaseRun struct {
	Side   string // "base", "cand", "cand2", …
	Dir    string
	Status string
	Load   *struct {
		C int
		R float64
		T float64
	}
	Metrics  map[string]float64
	Foreign  []string
	Missing  []string // notes about missing files
	Samples  map[string]cmpCaseSample
	Versions []string // node versions
}

// cmpCaseSample generates a sample: explicit values, or n normal values
// (mean, sd) from seed; clusters > 0 groups consecutive values into that
// many clusters, each shifted by its own N(0, cluster_sd) offset.
type cmpCaseSample struct {
	Values    []float64
	Normal    []float64 // mean, sd, n
	Seed      uint64
	Clusters  int
	ClusterSD float64 `toml:"cluster_sd"`
}

func (s cmpCaseSample) build() DistSample {
	var d DistSample
	if len(s.Normal) == 3 {
		r := rand.New(rand.NewPCG(s.Seed, 99))
		n := int(s.Normal[2])
		offs := make([]float64, max(s.Clusters, 1))
		for i := range offs {
			offs[i] = r.NormFloat64() * s.ClusterSD
		}
		for i := range n {
			c := 0
			if s.Clusters > 0 {
				c = i * s.Clusters / n
			}
			d.Values = append(d.Values, s.Normal[0]+offs[c]+r.NormFloat64()*s.Normal[1])
		}
	} else {
		d.Values = slices.Clone(s.Values)
	}
	if s.Clusters > 0 {
		for i := range d.Values {
			d.Cluster = append(d.Cluster, int32(i*s.Clusters/len(d.Values)))
		}
	}
	return d
}

// build makes the run; metrics that are a statistic of a given sample
// (block_latency_p99_ms of block_latency) are derived from it unless the
// case sets them.
func (cr cmpCaseRun) build() Run {
	load := results.Load{Connections: 1, Rate: 100, Size: 1024, DurationS: 60, Pacing: "even"}
	if cr.Load != nil {
		load.Connections, load.Rate, load.DurationS = cr.Load.C, cr.Load.R, cr.Load.T
	}
	status := cr.Status
	if status == "" {
		status = results.StatusComplete
	}
	r := Run{Dir: cr.Dir, Run: results.Run{ID: cr.Dir, Status: status, Load: load, Started: time.Unix(0, 0)},
		Metrics: map[string]float64{}, Samples: map[string]DistSample{}, Foreign: cr.Foreign, Notes: cr.Missing}
	for _, v := range cr.Versions {
		r.Run.Nodes = append(r.Run.Nodes, results.Node{Name: fmt.Sprintf("n%d", len(r.Run.Nodes)), Mode: "validator", Version: v})
	}
	for name, s := range cr.Samples {
		r.Samples[name] = s.build()
	}
	for _, m := range analysis.Dictionary() {
		ev := evidenceOf(m.ID)
		if s, ok := r.Samples[ev.dist]; ok && ev.stat != "" {
			r.Metrics[m.ID] = ev.stat.Of(s.Values)
		}
	}
	for id, v := range cr.Metrics {
		r.Metrics[id] = v
	}
	r.Settings = RunSettings(r.Run)
	return r
}

func loadCase(t *testing.T, path string) (cmpCase, Side, []Side, Options) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c cmpCase
	if err := toml.NewDecoder(bytes.NewReader(b)).DisallowUnknownFields().Decode(&c); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	sides := map[string]*Side{}
	var order []string
	for i, cr := range c.Run {
		if cr.Dir == "" {
			cr.Dir = fmt.Sprintf("%s-%d", cr.Side, i)
		}
		if sides[cr.Side] == nil {
			sides[cr.Side] = &Side{Label: cr.Side}
			if cr.Side != "base" {
				order = append(order, cr.Side)
			}
		}
		sides[cr.Side].Runs = append(sides[cr.Side].Runs, cr.build())
	}
	if sides["base"] == nil {
		t.Fatalf("%s: no base run", path)
	}
	var cands []Side
	for _, s := range order {
		cands = append(cands, *sides[s])
	}
	opts := Options{Seed: c.Options.Seed, Resamples: c.Options.Resamples, Thresholds: DefaultThresholds()}
	if c.Options.Noise != nil {
		pairs := cmp.Or(c.Options.NoisePairs, 10)
		opts.Noise = &Noise{Pairs: pairs, Metrics: map[string]NoiseMetric{}}
		for id, pct := range c.Options.Noise {
			opts.Noise.Metrics[id] = NoiseMetric{Pairs: pairs, RelPairs: pairs, DiffRMSPct: pct}
		}
	}
	if c.Options.ThresholdPct != nil {
		opts.Thresholds.DefaultPct = *c.Options.ThresholdPct
	}
	return c, *sides["base"], cands, opts
}

// TestCompareCases runs every testdata/compare/*.toml: the verdicts must
// be those the case expects (known answers), and the figures those of its
// .golden file (rewrite with -update).
func TestCompareCases(t *testing.T) {
	for _, path := range casePaths(t) {
		name := strings.TrimSuffix(filepath.Base(path), ".toml")
		t.Run(name, func(t *testing.T) {
			c, base, cands, opts := loadCase(t, path)
			got, err := Sides(base, cands, opts)
			if err != nil {
				t.Fatal(err)
			}
			if string(got.Verdict) != c.Expect.Verdict {
				t.Errorf("verdict %s, want %s", got.Verdict, c.Expect.Verdict)
			}
			for id, want := range c.Expect.Metrics {
				i := slices.IndexFunc(got.Metrics, func(r Row) bool { return r.ID == id })
				if i < 0 {
					t.Errorf("%s: no row", id)
					continue
				}
				wants := strings.Split(want, "|") // one per candidate, or one for all
				for ci, cell := range got.Metrics[i].Candidates {
					w := strings.TrimSpace(wants[min(ci, len(wants)-1)])
					if string(cell.Verdict) != w {
						t.Errorf("%s (candidate %d): %s (%s), want %s", id, ci+1, cell.Verdict, cell.Reason, w)
					}
				}
			}
			all := strings.Join(got.Warnings, "\n")
			for _, w := range c.Expect.Warnings {
				if !strings.Contains(all, w) {
					t.Errorf("no warning containing %q in:\n%s", w, all)
				}
			}
			if c.Expect.NoWarn && len(got.Warnings) > 0 {
				t.Errorf("unexpected warnings:\n%s", all)
			}
			text := renderCase(got)
			resultstest.Golden(t, filepath.Join(compareCases, name+".golden"), []byte(text))
			// Deterministic: the same inputs and seed give the same output.
			again, err := Sides(base, cands, opts)
			if err != nil {
				t.Fatal(err)
			}
			if renderCase(again) != text {
				t.Error("a second Compare gave another result")
			}
		})
	}
}

// renderCase prints a comparison compactly for the golden files.
func renderCase(c Result) string {
	var b strings.Builder
	f := func(p *float64) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprintf("%.4g", *p)
	}
	iv := func(p *Interval) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprintf("[%.4g, %.4g]", p.Lo, p.Hi)
	}
	fmt.Fprintf(&b, "verdict %s\n", c.Verdict)
	for _, s := range c.Candidates {
		fmt.Fprintf(&b, "candidate %s: %s (better %d, worse %d)\n", s.Label, s.Verdict, s.Better, s.Worse)
	}
	for _, w := range c.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	for _, d := range c.Differences {
		fmt.Fprintf(&b, "setting %s: %s\n", d.Key, strings.Join(d.Values, " ⇢ "))
	}
	for _, r := range c.Metrics {
		for _, cell := range r.Candidates {
			fmt.Fprintf(&b, "%s: %s → %s Δ=%s Δ%%=%s ci=%s p=%s %s (%s) [%s]\n", r.ID, f(r.Baseline), f(cell.Value), f(cell.Delta),
				f(cell.DeltaPct), iv(cell.CI), f(cell.P), cell.Verdict, cell.Reason, cell.Test)
		}
	}
	for _, d := range c.Distributions {
		for _, cell := range d.Candidates {
			fmt.Fprintf(&b, "dist %s:", d.Name)
			for _, x := range []struct {
				n string
				d *DistDelta
			}{{"mean", cell.Mean}, {"median", cell.Median}, {"p99", cell.P99}} {
				if x.d != nil {
					fmt.Fprintf(&b, " Δ%s=%.4g %s", x.n, x.d.Delta, iv(x.d.CI))
				}
			}
			fmt.Fprintf(&b, " p=%s [%s]\n", f(cell.P), cell.Test)
		}
	}
	return b.String()
}

func TestCompareErrors(t *testing.T) {
	one := Side{Label: "a", Runs: []Run{{Dir: "a"}}}
	for _, c := range []struct {
		name  string
		base  Side
		cands []Side
	}{
		{"no baseline run", Side{Label: "a"}, []Side{one}},
		{"no candidate", one, nil},
		{"empty candidate", one, []Side{{Label: "b"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := Sides(c.base, c.cands, Options{}); err == nil {
				t.Error("no error")
			}
		})
	}
}

// TestComparePure checks that Sides leaves its inputs alone.
func TestComparePure(t *testing.T) {
	_, base, cands, opts := loadCase(t, filepath.Join(compareCases, "shift-worse.toml"))
	before := slices.Clone(base.Runs[0].Samples[DistBlockLatency].Values)
	if _, err := Sides(base, cands, opts); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(before, base.Runs[0].Samples[DistBlockLatency].Values) {
		t.Error("Compare modified a sample")
	}
}

// TestNoNaNInComparison checks that no case's comparison has a NaN or an
// infinity among its figures.
func TestNoNaNInComparison(t *testing.T) {
	for _, path := range casePaths(t) {
		_, base, cands, opts := loadCase(t, path)
		got, err := Sides(base, cands, opts)
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(path), err)
		}
		for _, r := range got.Metrics {
			for _, cell := range r.Candidates {
				for _, p := range []*float64{r.Baseline, cell.Value, cell.Delta, cell.DeltaPct, cell.P} {
					if p != nil && (math.IsNaN(*p) || math.IsInf(*p, 0)) {
						t.Errorf("%s: %s has NaN or Inf", filepath.Base(path), r.ID)
					}
				}
			}
		}
	}
}
