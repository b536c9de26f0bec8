package compare

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"
)

func metricRun(id string, v float64) Run {
	return Run{Metrics: map[string]float64{id: v}}
}

// TestMeasureNoise checks the figures against a hand computation.
func TestMeasureNoise(t *testing.T) {
	const id = "block_latency_mean_ms"
	base := []Run{metricRun(id, 100), metricRun(id, 100), metricRun(id, 100)}
	cand := []Run{metricRun(id, 110), metricRun(id, 90), metricRun(id, 100)}
	n := MeasureNoise("spec", base, cand, 0.05)
	m, ok := n.Metrics[id]
	if !ok {
		t.Fatalf("no noise for %s: %+v", id, n)
	}
	// Δ % = 10, −10, 0: RMS √(200/3); runs 100,110,100,90,100,100: SD √40.
	want := NoiseMetric{Pairs: 3, RelPairs: 3, Mean: 100, CVPct: math.Sqrt(40), DiffRMS: math.Sqrt(200.0 / 3),
		DiffRMSPct: math.Sqrt(200.0 / 3),
		FloorPct:   3.182446305 * math.Sqrt(200.0/3),                // t(0.975; 3)
		MDEPct:     (4.302652730 + 1.060660172) * 10 / math.Sqrt(3)} // t(0.975; 2) + t(0.8; 2), SD(Δ %) = 10
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"mean", m.Mean, want.Mean}, {"cv", m.CVPct, want.CVPct}, {"rms", m.DiffRMS, want.DiffRMS},
		{"rms%", m.DiffRMSPct, want.DiffRMSPct}, {"floor", m.FloorPct, want.FloorPct}, {"mde", m.MDEPct, want.MDEPct},
	} {
		if math.Abs(c.got-c.want) > 1e-6*math.Max(1, math.Abs(c.want)) {
			t.Errorf("%s = %.9g, want %.9g", c.name, c.got, c.want)
		}
	}
	if m.Pairs != 3 || m.RelPairs != 3 {
		t.Errorf("pairs %d/%d, want 3/3", m.Pairs, m.RelPairs)
	}
	if _, ok := n.Metrics["tps_mean"]; ok {
		t.Error("a metric no run has got a noise entry")
	}
}

// TestNoiseTest checks the single-run test against the noise: a change of
// exactly the floor has p = α; zero noise makes any change significant.
func TestNoiseTest(t *testing.T) {
	nm := NoiseMetric{Pairs: 10, RelPairs: 10, DiffRMSPct: 5}
	floor := 2.228138852 * 5 // t(0.975; 10)·5 %
	_, p, _, ok := noiseTest(nm, 1000, floor/100*1000, 0.95)
	if !ok || math.Abs(p-0.05) > 1e-6 {
		t.Errorf("p at the floor = %v (ok %v), want 0.05", p, ok)
	}
	abs := NoiseMetric{Pairs: 10, RelPairs: 9, DiffRMS: 3}
	iv, _, _, _ := noiseTest(abs, 0, 1, 0.95)
	if math.Abs(iv.Hi-1-2.228138852*3) > 1e-6 {
		t.Errorf("absolute interval %+v, want 1 ± t·3", iv)
	}
	if _, p, _, _ := noiseTest(NoiseMetric{Pairs: 4, RelPairs: 4}, 10, 1, 0.95); p != 0 {
		t.Errorf("zero noise, a change: p = %v, want 0", p)
	}
	if _, p, _, _ := noiseTest(NoiseMetric{Pairs: 4, RelPairs: 4}, 10, 0, 0.95); p != 1 {
		t.Errorf("zero noise, no change: p = %v, want 1", p)
	}
}

// TestFalseAlarmRate simulates many A/A experiments of 10 pairs whose runs
// differ only by host noise (normal, 8 % of the mean, plus a drift common
// to a pair) and checks that a single-run comparison against the noise of
// the other pairs calls a metric changed in about α of the pairs.
func TestFalseAlarmRate(t *testing.T) {
	const id, experiments, pairs = "block_latency_mean_ms", 150, 10
	r := rand.New(rand.NewPCG(7, 11))
	th := DefaultThresholds()
	th.DefaultPct = 0 // judge significance alone
	var flagged, total int
	for range experiments {
		var base, cand []Run
		for range pairs {
			drift := 1000 * (1 + 0.1*r.NormFloat64())
			base = append(base, metricRun(id, drift*(1+0.08*r.NormFloat64())))
			cand = append(cand, metricRun(id, drift*(1+0.08*r.NormFloat64())))
		}
		fa, err := CountFalseAlarms("aa", base, cand, Options{Thresholds: th})
		if err != nil {
			t.Fatal(err)
		}
		flagged += fa.PerMetricAfter[id]
		total += fa.Pairs
	}
	rate := float64(flagged) / float64(total)
	t.Logf("false-alarm rate %.4f over %d pairs", rate, total)
	// 1,500 pairs: the standard error of a 5 % rate is 0.56 %.
	if rate > 0.07 || rate < 0.03 {
		t.Errorf("false-alarm rate %.3f over %d pairs, want 0.05 ± 0.02", rate, total)
	}
}

func TestNoiseFileRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "noise.json")
	n := Noise{Spec: "v0.40.0", Pairs: 10, Alpha: 0.05, Metrics: map[string]NoiseMetric{"tps_mean": {Pairs: 10, DiffRMSPct: 2}},
		FalseAlarms: &FalseAlarms{Pairs: 10, Before: 4, After: 1, Judged: 50}}
	if err := WriteNoise(path, n); err != nil {
		t.Fatal(err)
	}
	got, err := ReadNoise(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Metrics["tps_mean"].DiffRMSPct != 2 || got.FalseAlarms.Before != 4 {
		t.Errorf("read back %+v", got)
	}
	if _, err := ReadNoise(filepath.Join(t.TempDir(), "none.json")); err == nil {
		t.Error("a missing file read without error")
	}
}
