package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestBootSampleStatsMatchPercentile(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	s := DistSample{}
	for i := range 500 {
		s.Values = append(s.Values, math.Round(r.NormFloat64()*100))
		s.Cluster = append(s.Cluster, int32(i/10))
	}
	w := prepareBootstrap(s, r)
	ss := []Stat{StatMean, "stddev", StatMedian, "p90", StatP99, "p0", "p100"}
	got := make([]float64, len(ss))
	// Multiplicity 1 everywhere: the statistics of the sample itself.
	w.stats(nil, ss, got)
	for i, st := range ss {
		if want := st.Of(s.Values); math.Abs(got[i]-want) > 1e-9*max(1, math.Abs(want)) {
			t.Errorf("%s = %v, want %v", st, got[i], want)
		}
	}
	// Random multiplicities: the statistics of the expanded multiset.
	for trial := range 20 {
		mult := make([]int32, w.k)
		w.resample(r, mult)
		var expanded []float64
		for i, v := range w.sorted {
			for range mult[w.cluster[i]] {
				expanded = append(expanded, v)
			}
		}
		w.stats(mult, ss, got)
		for i, st := range ss {
			if want := st.Of(expanded); math.Abs(got[i]-want) > 1e-9*max(1, math.Abs(want)) {
				t.Errorf("trial %d: %s = %v, want %v", trial, st, got[i], want)
			}
		}
	}
}

func TestStatParse(t *testing.T) {
	tests := []struct {
		s           Stat
		p           float64
		pct, resamp bool
	}{
		{"p50", 50, true, true},
		{"p99", 99, true, true},
		{"p99.9", 99.9, true, true},
		{"p0", 0, true, true},
		{"p100", 100, true, true},
		{"p101", 0, false, false},
		{"p-1", 0, false, false},
		{"p", 0, false, false},
		{"pNaN", 0, false, false},
		{"mean", 0, false, true},
		{"stddev", 0, false, true},
		{"min", 0, false, false},
		{"max", 0, false, false},
	}
	for _, tt := range tests {
		p, ok := tt.s.Percentile()
		if ok != tt.pct || (ok && p != tt.p) {
			t.Errorf("Stat(%q).Percentile() = %v, %v; want %v, %v", tt.s, p, ok, tt.p, tt.pct)
		}
		if got := tt.s.Resamplable(); got != tt.resamp {
			t.Errorf("Stat(%q).Resamplable() = %v", tt.s, got)
		}
	}
	xs := []float64{4, 1, 3, 2}
	for s, want := range map[Stat]float64{"mean": 2.5, "min": 1, "max": 4, "p50": 2.5, "p100": 4, "stddev": math.Sqrt(5.0 / 3), "median": math.NaN()} {
		if got := s.Of(xs); !near(got, want, 1e-12) {
			t.Errorf("Stat(%q).Of(%v) = %v, want %v", s, xs, got, want)
		}
	}
}

// FuzzStatPercentile: whatever the name, a percentile Stat parses to a p
// in [0, 100] whose Of is Percentile's on the sorted values.
func FuzzStatPercentile(f *testing.F) {
	for _, s := range []string{"p50", "p99.9", "p1e1", "p0x10", "p+5", "pInf", "mean", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, ok := Stat(s).Percentile()
		if !ok {
			return
		}
		if !(p >= 0 && p <= 100) {
			t.Fatalf("Stat(%q).Percentile() = %v, ok", s, p)
		}
		xs := []float64{5, -1, 3, 8, 0}
		if got, want := Stat(s).Of(xs), Percentile([]float64{-1, 0, 3, 5, 8}, p); got != want {
			t.Fatalf("Stat(%q).Of = %v, Percentile(%v) = %v", s, got, p, want)
		}
	})
}

func TestBootstrapDiffShift(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var base, cand DistSample
	for i := range 400 {
		v := r.NormFloat64()
		base.Values = append(base.Values, v)
		cand.Values = append(cand.Values, v+10)
		base.Cluster = append(base.Cluster, int32(i/4))
		cand.Cluster = append(cand.Cluster, int32(i/4))
	}
	ss := []Stat{StatMean, StatMedian, "min"}
	ivs, ok := BootstrapDiff(base, cand, ss, 500, 0.95, rand.New(rand.NewPCG(1, 1)))
	for i := range 2 {
		if !ok[i] || ivs[i].Excludes(10) || !ivs[i].Excludes(9.5) || !ivs[i].Excludes(10.5) {
			t.Errorf("%s: interval %+v, %v; want one about 10", ss[i], ivs[i], ok[i])
		}
	}
	again, _ := BootstrapDiff(base, cand, ss, 500, 0.95, rand.New(rand.NewPCG(1, 1)))
	if again[0] != ivs[0] || again[1] != ivs[1] {
		t.Errorf("same seed, other intervals: %+v then %+v", ivs, again)
	}
	if _, ok := BootstrapDiff(base, DistSample{}, ss, 500, 0.95, r); ok[0] {
		t.Error("an empty side gave an interval")
	}
}
