package experiment

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/shape"
)

// TestChooseTimeScale checks the rule of time_scale = "auto" against given
// probe figures on a 2-core host (limit 90 % = 1.8 cores).
func TestChooseTimeScale(t *testing.T) {
	probe := func(k, testnet, harness, other float64) results.TimeScaleProbe {
		return results.TimeScaleProbe{K: k, Seconds: 8, Rate: 200, Cores: 2, Testnet: testnet, Harness: harness, Other: other, Samples: 8}
	}
	for _, c := range []struct {
		name      string
		probes    []results.TimeScaleProbe
		maxK      float64
		k         float64 // 0: a reprobe is wanted
		reprobe   float64
		busy      float64
		saturated bool
		reason    string
	}{
		{name: "light load: real time", probes: []results.TimeScaleProbe{probe(1, 0.5, 0.05, 0.03)}, maxK: 100,
			k: 1, busy: 29, reason: "in real time the host is 29 % busy"},
		{name: "just within the limit", probes: []results.TimeScaleProbe{probe(1, 1.7, 0.08, 0.02)}, maxK: 100,
			k: 1, busy: 90},
		{name: "probe at k = 4: k = 2 suffices", probes: []results.TimeScaleProbe{probe(4, 0.6, 0.05, 0.02)}, maxK: 100,
			k: 2, busy: 66, reason: "k = 2 is the smallest that keeps the host within its 90 % limit (66 % busy; k = 1: 131 %)"},
		{name: "demand of 5 cores: k = 4", probes: []results.TimeScaleProbe{probe(8, 0.6, 0.025, 0)}, maxK: 100,
			k: 4, busy: 62.5},
		{name: "probe saturated: probe again", probes: []results.TimeScaleProbe{probe(1, 1.7, 0.1, 0.05)}, maxK: 100,
			reprobe: 2},
		{name: "probe saturated, heavy: probe again higher", probes: []results.TimeScaleProbe{probe(1, 1.85, 0.1, 0)}, maxK: 100,
			reprobe: 2},
		{name: "probe saturated, no probe left: choose", probes: []results.TimeScaleProbe{probe(1, 1.9, 0.1, 0), probe(1, 1.9, 0.1, 0), probe(1, 1.9, 0.1, 0)}, maxK: 100,
			k: 2, busy: 50, reason: "after 3 probes"},
		{name: "saturated at the largest k allowed", probes: []results.TimeScaleProbe{probe(1, 1.9, 0.1, 0), probe(4, 1.9, 0.1, 0), probe(8, 1.9, 0.05, 0)}, maxK: 8,
			k: 8, busy: 97.5, saturated: true, reason: "even k = 8, the largest allowed, leaves the host 98 % busy"},
		{name: "a release's bound: k ≤ 59 tries 32", probes: []results.TimeScaleProbe{probe(32, 1.9, 0, 0)}, maxK: 59,
			k: 32, busy: 95, saturated: true},
		{name: "other work: counted at the threshold, said", probes: []results.TimeScaleProbe{probe(1, 0.5, 0.05, 1.0)}, maxK: 100,
			k: 1, busy: 37.5, reason: "other work took 50 % of the host during the probe, above the 10 % disturbance threshold: it is counted at 10 %"},
		{name: "other work above the limit: no k helps, none probed", probes: []results.TimeScaleProbe{probe(1, 0.1, 0, 1.9)}, maxK: 100,
			k: 1, busy: 15, reason: "it is counted at 10 %"},
		{name: "other work and a busy testnet", probes: []results.TimeScaleProbe{probe(2, 0.9, 0.05, 1.0)}, maxK: 100,
			k: 2, busy: 57.5},
		{name: "a probe is at most k = 8: choose from it", probes: []results.TimeScaleProbe{probe(8, 1.9, 0.05, 0)}, maxK: 100,
			k: 16, busy: 48.75},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, reprobe := chooseTimeScale(c.probes, c.maxK)
			if reprobe != c.reprobe {
				t.Fatalf("reprobe %v, want %v (choice %+v)", reprobe, c.reprobe, got)
			}
			if c.reprobe > 0 {
				return
			}
			if got.Chosen != c.k || math.Abs(got.BusyPct-c.busy) > 1e-9 || got.Saturated != c.saturated || got.LimitPct != 90 {
				t.Errorf("k %v busy %v saturated %v limit %v, want k %v busy %v saturated %v", got.Chosen, got.BusyPct, got.Saturated, got.LimitPct, c.k, c.busy, c.saturated)
			}
			if !reflect.DeepEqual(got.Probes, c.probes) || got.MaxScale > c.maxK {
				t.Errorf("probes %v, max scale %v", got.Probes, got.MaxScale)
			}
			if !strings.Contains(got.Reason, c.reason) {
				t.Errorf("reason %q, want it to hold %q", got.Reason, c.reason)
			}
		})
	}
}

// TestAutoScales checks the candidates: powers of two up to the bound.
func TestAutoScales(t *testing.T) {
	for maxK, want := range map[float64][]float64{1: {1}, 59: {1, 2, 4, 8, 16, 32}, 100: {1, 2, 4, 8, 16, 32, 64}, 1000: {1, 2, 4, 8, 16, 32, 64}} {
		if got := autoScales(maxK); !reflect.DeepEqual(got, want) {
			t.Errorf("autoScales(%v) = %v, want %v", maxK, got, want)
		}
	}
}

// TestProbeManifest checks the probe's testnet: the manifest's at k, its
// load for 8 s of the host at k = 1 and 5 model seconds at k = 2 and 4, a shape
// made constant at its mean rate, no perturbation, a short drain.
func TestProbeManifest(t *testing.T) {
	m := manifest.Default()
	rate, d, auto := 100.0, time.Minute, manifest.TimeScaleAuto
	if err := m.Apply(manifest.Overrides{Rate: &rate, Duration: &d, TimeScale: &auto}); err != nil {
		t.Fatal(err)
	}
	m.Perturb = map[string]manifest.ManifestPerturb{"validator02": {Action: "kill", At: "10s"}}
	r, err := m.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		k   float64
		dur time.Duration
	}{{1, 8 * time.Second}, {4, 5 * time.Second}, {2, 5 * time.Second}} {
		p, err := probeManifest(r, c.k)
		if err != nil {
			t.Fatal(err)
		}
		if p.TimeScale != c.k || p.TimeScaleAuto || p.Load.Duration != c.dur || p.Load.Rate != 100 || len(p.Perturbations) != 0 || p.Load.DrainTimeout > probeModel {
			t.Errorf("k = %v: scale %v auto %v, load %v at %v tx/s, drain %v, perturbations %v", c.k, p.TimeScale, p.TimeScaleAuto,
				p.Load.Duration, p.Load.Rate, p.Load.DrainTimeout, p.Perturbations)
		}
	}
	ramp := r
	ramp.Load.Shape = shape.Spec{Kind: shape.Ramp, Steps: []float64{100, 300}, Step: 30 * time.Second}
	p, err := probeManifest(ramp, 1)
	if err != nil || !p.Load.Shape.IsConstant() || p.Load.Rate != 200 {
		t.Errorf("a ramp 100 → 300 tx/s probes at %v tx/s (constant %v, %v), want its mean 200", p.Load.Rate, p.Load.Shape.IsConstant(), err)
	}
	if _, err := probeManifest(r, 128); err == nil {
		t.Error("probe at k = 128 taken")
	}
}

// TestProbeFigures checks the means of host.csv over a probe's load.
func TestProbeFigures(t *testing.T) {
	host := []results.HostSample{
		{Time: 1, Cores: 2, Busy: 2, Testnet: 2},                     // before
		{Time: 10, Cores: 2, Busy: 1.0, Testnet: 0.6, Harness: 0.1},  // other 0.3
		{Time: 20, Cores: 2, Busy: 0.8, Testnet: 0.4, Harness: 0.1},  // other 0.3
		{Time: 30, Cores: 2, Busy: 0.2, Testnet: 0.3, Harness: 0.05}, // other 0 (never below)
		{Time: 40, Cores: 2, Busy: 2, Testnet: 2, Harness: 1},        // after
	}
	p := probeFigures(host, 10, 30)
	if p.Samples != 3 || p.Cores != 2 || math.Abs(p.Testnet-1.3/3) > 1e-12 || math.Abs(p.Harness-0.25/3) > 1e-12 || math.Abs(p.Other-0.2) > 1e-12 {
		t.Errorf("probe figures %+v", p)
	}
	if p := probeFigures(host, 100, 200); p.Samples != 0 {
		t.Errorf("no row in the window: %+v", p)
	}
}
