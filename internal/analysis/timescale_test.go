package analysis

import (
	"math"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
	"github.com/cometlab/cometlab/internal/stats"
)

// TestTimeScaleExponent classifies every unit of the dictionary: a new
// unit must say how a time scale changes it.
func TestTimeScaleExponent(t *testing.T) {
	want := map[string]int{
		UnitMS: -1, UnitS: -1, UnitMSPerHeight: -1, UnitTPS: 1, UnitBPS: 1, UnitMiBPerHour: 1, UnitTPSPerMin: 2, UnitMSPerMin: 0,
		UnitTxs: 0, UnitRatio: 0, UnitBlocks: 0, UnitRounds: 0, UnitBytes: 0, UnitMiB: 0, UnitPct: 0, UnitLoad: 0,
		UnitPeers: 0, UnitNodes: 0, UnitFiles: 0, UnitEvents: 0, UnitLines: 0, UnitGas: 0,
	}
	for _, u := range Units() {
		e, ok := want[u]
		if !ok {
			t.Errorf("unit %q: say how a time scale changes it (TimeScaleExponent) and add it here", u)
			continue
		}
		if got := TimeScaleExponent(u); got != e {
			t.Errorf("TimeScaleExponent(%q) = %d, want %d", u, got, e)
		}
	}
	for _, c := range []struct {
		v    float64
		unit string
		k    float64
		want float64
	}{
		{4000, UnitMS, 4, 1000}, {0.25, UnitTPS, 4, 1}, {1, UnitTPSPerMin, 4, 16}, {8, UnitMSPerMin, 4, 8},
		{120, UnitTxs, 4, 120}, {55, UnitPct, 4, 55}, {4000, UnitMS, 1, 4000}, {4000, UnitMS, 0, 4000},
	} {
		if got := ModelValue(c.v, c.unit, c.k); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("ModelValue(%v %s, k = %v) = %v, want %v", c.v, c.unit, c.k, got, c.want)
		}
	}
}

// TestToModelOnce analyses a synthetic run made at time scale 4 (20 tx/s
// for 60 s, a block a second, in the model: 5 tx/s for 240 s, a block
// every 4 s on the host) and the same run in real time: the figures of
// time and rate agree (within the synthetic jitter), the counts are the
// same, and analysing the scaled run again gives the same summary (the
// figures are turned into model time once, not twice).
func TestToModelOnce(t *testing.T) {
	model := resultstest.Spec{Rate: 20, Duration: time.Minute, Interval: time.Second}
	host := resultstest.Spec{Rate: 5, Duration: 4 * time.Minute, Interval: 4 * time.Second, Scrape: 4 * time.Second,
		Before: 20 * time.Second, After: 40 * time.Second, Scale: 4}
	realDir, scaledDir := filepath.Join(t.TempDir(), "real"), filepath.Join(t.TempDir(), "scaled")
	if _, err := resultstest.WriteRun(realDir, model); err != nil {
		t.Fatal(err)
	}
	run, err := resultstest.WriteRun(scaledDir, host)
	if err != nil {
		t.Fatal(err)
	}
	// run.json records the model's load and the scale, as a run does.
	run.TimeScale = 4
	run.Load.Rate, run.Load.DurationS = 20, 60
	if err := results.WriteJSON(filepath.Join(scaledDir, results.RunFile), run); err != nil {
		t.Fatal(err)
	}
	real, err := Analyze(realDir)
	if err != nil {
		t.Fatal(err)
	}
	scaled, err := Analyze(scaledDir)
	if err != nil {
		t.Fatal(err)
	}
	for id, tol := range map[string]float64{
		"expected_txs": 0, "sent_txs": 0, "committed_txs": 0, "blocks": 0.02,
		"committed_tps": 0.02, "tps_mean": 0.05, "blocks_per_s_mean": 0.05, "block_interval_mean_s": 0.02,
		"tps_max": 0.05, "tps_stddev": 0.05, "blocks_per_s_max": 0.05,
		"block_latency_p50_ms": 0.05, "block_latency_p99_ms": 0.05, "block_latency_mean_ms": 0.05, "observed_latency_p50_ms": 0.05,
	} {
		a, okA := real.Metrics[id]
		b, okB := scaled.Metrics[id]
		if !okA || !okB {
			t.Errorf("%s: real %v (%v), scaled %v (%v)", id, a, okA, b, okB)
			continue
		}
		if math.Abs(b-a) > tol*math.Abs(a)+1e-9 {
			t.Errorf("%s: %v in the scaled run's model time, %v in real time (tolerance %.0f %%)", id, b, a, 100*tol)
		}
	}
	again, err := Analyze(scaledDir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again, scaled) {
		t.Error("analysing the scaled run again changed its summary")
	}
	if n := len(scaled.Notes); n == 0 || scaled.Notes[n-1][:25] != "scaled in time by k = 4: " {
		t.Errorf("no time-scale note: %q", scaled.Notes)
	}
}

// TestToModelParts checks the parts of a summary that are not in
// Metrics: per-node and per-perturbation figures and intervals, clients,
// catch-ups, the autopsy and the stages.
func TestToModelParts(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	s := Summary{
		Metrics: map[string]float64{"block_latency_p50_ms": 4000, "committed_tps": 50, "blocks": 30, "cpu_mean_pct": 80, "tps_slope_per_min": 1},
		Nodes:   map[string]map[string]float64{"v1": {"rss_max_mib": 100, "catch_up_s": 8}},
		Perturbations: []PerturbationSummary{{BeginS: 40, EndS: f(60), Figures: map[string]float64{"liveness_gap_s": 12, "tps_during": 25},
			Intervals: map[string]stats.Interval{"latency_during_ms": {Lo: -400, Hi: 800}}}},
		Clients:    []ClientSummary{{OfferedTPS: 10, CommittedTPS: 9, Committed: 500, BlockP50: f(2000)}},
		CatchUps:   []CatchUp{{StartS: 20, CatchUpS: 8, BlocksPerS: 2, Height: 16}},
		Autopsy:    []Verdict{{Height: 7, IntervalMs: 6000}},
		SlowStages: []SlowStage{{Height: 7, FirstPrecommitMs: f(4000), QuorumMs: nil}},
	}
	ToModel(&s, 4)
	for id, want := range map[string]float64{"block_latency_p50_ms": 1000, "committed_tps": 200, "blocks": 30, "cpu_mean_pct": 80, "tps_slope_per_min": 16} {
		if s.Metrics[id] != want {
			t.Errorf("%s = %v, want %v", id, s.Metrics[id], want)
		}
	}
	p := s.Perturbations[0]
	if s.Nodes["v1"]["rss_max_mib"] != 100 || s.Nodes["v1"]["catch_up_s"] != 2 || p.BeginS != 10 || *p.EndS != 15 ||
		p.Figures["liveness_gap_s"] != 3 || p.Figures["tps_during"] != 100 || p.Intervals["latency_during_ms"] != (stats.Interval{Lo: -100, Hi: 200}) {
		t.Errorf("nodes %v, perturbation %+v", s.Nodes, p)
	}
	c, u := s.Clients[0], s.CatchUps[0]
	if c.OfferedTPS != 40 || c.CommittedTPS != 36 || c.Committed != 500 || *c.BlockP50 != 500 || u.StartS != 5 || u.CatchUpS != 2 || u.BlocksPerS != 8 || u.Height != 16 {
		t.Errorf("client %+v, catch-up %+v", c, u)
	}
	if s.Autopsy[0].IntervalMs != 1500 || *s.SlowStages[0].FirstPrecommitMs != 1000 || s.SlowStages[0].QuorumMs != nil {
		t.Errorf("autopsy %+v, stages %+v", s.Autopsy, s.SlowStages)
	}
	one := Summary{Metrics: map[string]float64{"block_latency_p50_ms": 4000}}
	ToModel(&one, 1)
	if one.Metrics["block_latency_p50_ms"] != 4000 || one.Notes != nil {
		t.Errorf("k = 1 changed the summary: %+v", one)
	}
}
