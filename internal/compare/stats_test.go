package compare

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	moremath "github.com/aclements/go-moremath/stats"
	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results/resultstest"
	"github.com/cometlab/cometlab/internal/stats"
	"gonum.org/v1/gonum/stat/distuv"
)

func TestBootstrapDiff(t *testing.T) {
	gen := func(seed uint64, n int, mean float64) DistSample {
		r := rand.New(rand.NewPCG(seed, 0))
		var s DistSample
		for i := range n {
			s.Values = append(s.Values, mean+r.NormFloat64()*10)
			s.Cluster = append(s.Cluster, int32(i/100))
		}
		return s
	}
	ss := []Stat{StatMean, StatMedian, StatP99}
	for _, c := range []struct {
		name     string
		n        int
		shift    float64
		excludes bool
	}{
		{"no shift", 2000, 0, false},
		{"shift of 5 sd", 2000, 50, true},
		{"capped: 30,000 values a side", 30000, 2, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, v := gen(1, c.n, 100), gen(2, c.n, 100+c.shift)
			ivs, ok := bootstrapDiff(b, v, ss, 500, 0.95, rand.New(rand.NewPCG(3, 4)))
			again, _ := bootstrapDiff(b, v, ss, 500, 0.95, rand.New(rand.NewPCG(3, 4)))
			for i, st := range ss {
				if !ok[i] {
					t.Fatalf("%s: no interval", st)
				}
				d := st.Of(v.Values) - st.Of(b.Values)
				if ivs[i].Excludes(d) {
					t.Errorf("%s: interval %v excludes the estimate %v", st, ivs[i], d)
				}
				if st == StatMean && ivs[i].Excludes(0) != c.excludes {
					t.Errorf("%s: interval %v, excludes 0 = %v, want %v", st, ivs[i], ivs[i].Excludes(0), c.excludes)
				}
				if ivs[i] != again[i] {
					t.Errorf("%s: not deterministic: %v then %v", st, ivs[i], again[i])
				}
			}
		})
	}
	if _, ok := bootstrapDiff(DistSample{}, gen(1, 10, 0), ss, 500, 0.95, rand.New(rand.NewPCG(1, 1))); ok[0] {
		t.Error("an empty side gave an interval")
	}
}

func TestTTest(t *testing.T) {
	x, y := []float64{10, 12, 11, 13}, []float64{15, 14, 17, 16, 15}
	iv, p, ok := tTest(x, y, 0.95)
	want, err := moremath.TwoSampleWelchTTest(moremath.Sample{Xs: x}, moremath.Sample{Xs: y}, moremath.LocationDiffers)
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	if math.Abs(p-want.P) > 1e-9 {
		t.Errorf("Welch p = %v, moremath says %v", p, want.P)
	}
	d := stats.Mean(y) - stats.Mean(x)
	if math.Abs((iv.Lo+iv.Hi)/2-d) > 1e-9 || iv.Excludes(d) || !iv.Excludes(0) {
		t.Errorf("interval %v around %v", iv, d)
	}

	// One run against three: the three runs' variance, ν = 2.
	iv, p, ok = tTest([]float64{10}, []float64{12, 14, 16}, 0.95)
	se := 2 * math.Sqrt(1+1.0/3)
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: 2}
	if !ok || math.Abs(p-2*tq.Survival(4/se)) > 1e-9 || math.Abs(iv.Hi-(4+tq.Quantile(0.975)*se)) > 1e-9 {
		t.Errorf("1 v 3: %v %v %v", iv, p, ok)
	}

	for _, c := range []struct {
		name string
		x, y []float64
		p    float64
		ok   bool
	}{
		{"identical runs", []float64{5, 5}, []float64{5, 5}, 1, true},
		{"constant but shifted", []float64{0, 0}, []float64{3, 3}, 0, true},
		{"one run a side", []float64{1}, []float64{2}, 0, false},
		{"empty side", nil, []float64{1, 2, 3}, 0, false},
	} {
		_, p, ok := tTest(c.x, c.y, 0.95)
		if ok != c.ok || (ok && p != c.p) {
			t.Errorf("%s: p %v ok %v, want %v %v", c.name, p, ok, c.p, c.ok)
		}
	}
}

func TestTwoProportionP(t *testing.T) {
	p, ok := twoProportionP(0, 6000, 60, 6000)
	ph := 60.0 / 12000
	z := 0.01 / math.Sqrt(ph*(1-ph)*2/6000)
	if !ok || math.Abs(p-2*distuv.UnitNormal.Survival(z)) > 1e-20 {
		t.Errorf("p = %v", p)
	}
	if p, ok := twoProportionP(0, 100, 0, 100); !ok || p != 1 {
		t.Errorf("0 of 100 twice: %v %v", p, ok)
	}
	for _, bad := range [][4]float64{{1, 0, 1, 1}, {5, 4, 1, 10}, {-1, 10, 1, 10}} {
		if _, ok := twoProportionP(bad[0], bad[1], bad[2], bad[3]); ok {
			t.Errorf("%v accepted", bad)
		}
	}
}

func TestMannWhitneyP(t *testing.T) {
	if p, ok := mannWhitneyP([]float64{1, 1}, []float64{1, 1, 1}); !ok || p != 1 {
		t.Errorf("all equal: %v %v", p, ok)
	}
	if _, ok := mannWhitneyP(nil, []float64{1}); ok {
		t.Error("empty side accepted")
	}
	// 2 v 2, completely separated: the exact two-sided p is 2/6.
	if p, _ := mannWhitneyP([]float64{1, 2}, []float64{3, 4}); math.Abs(p-1.0/3) > 1e-12 {
		t.Errorf("2 v 2 separated: p = %v, want 1/3", p)
	}
}

func TestParseThresholds(t *testing.T) {
	for _, c := range []struct {
		name, doc string
		errs      []string
	}{
		{"empty", "", nil},
		{"full", "threshold_pct = 5\nalpha = 0.01\n[metric.block_latency_p99_ms]\nthreshold_pct = 20\nmin_delta = 50\n[metric.tps_stddev]\nignore = true\n", nil},
		{"unknown key", "treshold_pct = 5\n[metric.late_sends]\nmin_detla = 3\n", []string{"t.toml:1:1: treshold_pct: unknown key", "metric.late_sends.min_detla: unknown key"}},
		{"unknown metric", "[metric.latency_p99]\nthreshold_pct = 5\n", []string{"[metric.latency_p99]: no metric with this id"}},
		{"out of range", "alpha = 0.9\nthreshold_pct = -1\n[metric.late_sends]\nmin_delta = -2\n", []string{"alpha = 0.9", "threshold_pct = -1", "min_delta = -2"}},
		{"wrong type", "threshold_pct = \"ten\"\n", []string{"t.toml:1:"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			th, err := ParseThresholds("t.toml", []byte(c.doc))
			if len(c.errs) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error; got %+v", th)
			}
			for _, w := range c.errs {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
	th, err := ParseThresholds("t.toml", []byte("[metric.block_latency_p99_ms]\nthreshold_pct = 20\nmin_delta = 50\n"))
	if err != nil {
		t.Fatal(err)
	}
	if pct, floor, ign := th.For("block_latency_p99_ms"); pct != 20 || floor != 50 || ign {
		t.Errorf("For = %v %v %v", pct, floor, ign)
	}
	if pct, floor, _ := th.For("tps_mean"); pct != DefaultThresholdPct || floor != 0 {
		t.Errorf("default For = %v %v", pct, floor)
	}
}

// TestCompareSamplesMatchSummary checks that the distributions tested are
// those the summary's figures are statistics of.
func TestCompareSamplesMatchSummary(t *testing.T) {
	in := synthetic(3, 400, 50, true)
	s := analysis.Summarize(in)
	d := Samples(in)
	for _, c := range []struct {
		id   string
		dist string
		st   Stat
	}{
		{"block_latency_mean_ms", DistBlockLatency, StatMean},
		{"block_latency_p99_ms", DistBlockLatency, StatP99},
		{"block_latency_stddev_ms", DistBlockLatency, "stddev"},
		{"observed_latency_p50_ms", DistObservedLatency, StatMedian},
		{"tps_mean", DistTPS, StatMean},
		{"tps_max", DistTPS, "max"},
		{"blocks_per_s_mean", DistBlocksPerS, StatMean},
		{"block_interval_mean_s", DistBlockInterval, StatMean},
	} {
		want, ok := s.Metrics[c.id]
		if !ok {
			t.Fatalf("summary has no %s", c.id)
		}
		if got := c.st.Of(d[c.dist].Values); math.Abs(got-want) > 1e-9*max(1, math.Abs(want)) {
			t.Errorf("%s of %s = %v, summary's %s = %v", c.st, c.dist, got, c.id, want)
		}
		if ev := evidenceOf(c.id); ev.dist != c.dist || ev.stat != c.st {
			t.Errorf("evidenceOf(%s) = %+v", c.id, ev)
		}
	}
	if lat := d[DistBlockLatency]; len(lat.Cluster) != len(lat.Values) {
		t.Error("block latency is not clustered by height")
	}
	if a := d[DistAdoption]; a.Len() == 0 || slices.Min(a.Values) < 0 {
		t.Errorf("adoption lags: %v", a.Values)
	}
}

func BenchmarkCompare1M(b *testing.B) {
	gen := func(seed uint64, mean float64) Run {
		r := rand.New(rand.NewPCG(seed, 0))
		s := DistSample{Values: make([]float64, 1_000_000), Cluster: make([]int32, 1_000_000)}
		for i := range s.Values {
			s.Values[i], s.Cluster[i] = mean+r.NormFloat64()*100, int32(i/200)
		}
		run := Run{Dir: "x", Samples: map[string]DistSample{DistBlockLatency: s}, Metrics: map[string]float64{}}
		for _, m := range analysis.Dictionary() {
			if ev := evidenceOf(m.ID); ev.dist == DistBlockLatency && ev.stat != "" {
				run.Metrics[m.ID] = ev.stat.Of(s.Values)
			}
		}
		return run
	}
	base := Side{Label: "a", Runs: []Run{gen(1, 800)}}
	cand := []Side{{Label: "b", Runs: []Run{gen(2, 810)}}}
	b.ResetTimer()
	for b.Loop() {
		if _, err := Sides(base, cand, Options{Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// synthetic is resultstest.Synthetic as an analysis.Input.
func synthetic(conns, perConn int, rate float64, dups bool) analysis.Input {
	r := resultstest.Synthetic(conns, perConn, rate, dups)
	return analysis.Input{Run: r.Run, Sent: r.Sent, Replies: r.Replies, Txs: r.Txs, Blocks: r.Blocks, Adoption: r.Adoption,
		Metrics: analysis.NewSeriesSet(r.Metrics), Resources: r.Resources}
}
