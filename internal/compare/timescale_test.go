package compare

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// TestTimeScaleMismatch: sides made at different time scales (run.json
// time_scale; absent is 1) are refused, naming both, unless allowed, and
// then compared with a warning; one scale on both sides (1 or 4) is
// compared as ever.
func TestTimeScaleMismatch(t *testing.T) {
	side := func(label string, ks ...float64) Side {
		s := Side{Label: label}
		for _, k := range ks {
			s.Runs = append(s.Runs, Run{Dir: label, Run: results.Run{TimeScale: k}, Metrics: map[string]float64{"committed_tps": 200}})
		}
		return s
	}
	for _, c := range []struct {
		name        string
		base, cand  Side
		allow       bool
		err, warned string
	}{
		{"real time", side("a", 0), side("b", 1), false, "", ""},
		{"both at 4", side("a", 4, 4), side("b", 4), false, "", ""},
		{"1 against 4", side("a", 0), side("b", 4), false, "different time scales: a (a) at k = 1, b (b) at k = 4: their figures are in model time and comparable, the load on their host is not; give --allow-time-scale-mismatch", ""},
		{"within a side", side("a", 4, 2), side("b", 4), false, "a (a) at k = 4, a (a) at k = 2", ""},
		{"allowed", side("a", 0), side("b", 4), true, "", "different time scales: a (a) at k = 1, b (b) at k = 4 (--allow-time-scale-mismatch)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Sides(c.base, []Side{c.cand}, Options{AllowTimeScaleMismatch: c.allow})
			switch {
			case c.err != "":
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			warned := ""
			for _, w := range res.Warnings {
				if strings.Contains(w, "time scale") {
					warned = w
				}
			}
			if (c.warned == "") != (warned == "") || !strings.Contains(warned, c.warned) {
				t.Errorf("warning %q, want %q", warned, c.warned)
			}
		})
	}
}

// TestLoadRunTimeScale: a run made at k = 4 is read with the model's load
// (run.json's, not the host's analysis uses) and its distributions in
// model time: the same as the run's in real time within the synthetic
// jitter.
func TestLoadRunTimeScale(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "scaled")
	run, err := resultstest.WriteRun(dir, resultstest.Spec{Rate: 5, Duration: 240e9, Interval: 4e9, Scrape: 4e9, Before: 20e9, After: 40e9, Scale: 4})
	if err != nil {
		t.Fatal(err)
	}
	run.TimeScale, run.Load.Rate, run.Load.DurationS = 4, 20, 60
	if err := results.WriteJSON(filepath.Join(dir, results.RunFile), run); err != nil {
		t.Fatal(err)
	}
	realDir := filepath.Join(t.TempDir(), "real")
	if _, err := resultstest.WriteRun(realDir, resultstest.Spec{Rate: 20, Duration: 60e9}); err != nil {
		t.Fatal(err)
	}
	scaled, err := LoadRun(dir, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	real, err := LoadRun(realDir, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !scaled.Run.Load.Equal(real.Run.Load) || scaled.Settings["run.load.rate"] != real.Settings["run.load.rate"] {
		t.Errorf("load %+v (settings rate %s), want the model's %+v", scaled.Run.Load, scaled.Settings["run.load.rate"], real.Run.Load)
	}
	for _, name := range []string{DistBlockLatency, DistBlockInterval, DistTPS} { // (the generator's adoption lags are not scaled)
		a, b := analysis.Describe(real.Samples[name].Values), analysis.Describe(scaled.Samples[name].Values)
		if d := b.Mean - a.Mean; d > 0.05*a.Mean || d < -0.05*a.Mean {
			t.Errorf("%s: mean %v at k = 4 in model time, %v in real time", name, b.Mean, a.Mean)
		}
	}
	for _, name := range []string{TraceBlocksPerMin, TraceTxsPerMin} {
		a, b := scaled.Traces[name], real.Traces[name]
		if len(a.X) == 0 || len(b.X) == 0 || a.X[len(a.X)-1] > 1.1*b.X[len(b.X)-1] || a.Y[len(a.Y)/2] > 1.2*b.Y[len(b.Y)/2] || a.Y[len(a.Y)/2] < 0.8*b.Y[len(b.Y)/2] {
			t.Errorf("%s: the scaled run's trace is not in model time", name)
		}
	}
}
