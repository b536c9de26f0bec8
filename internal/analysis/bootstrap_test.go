package analysis

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
