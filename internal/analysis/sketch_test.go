package analysis

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/cometlab/cometlab/internal/results"
)

// sketchBound is the error bound Sketch states past its exact cap: 2⁻¹¹
// of the value, plus 1 ns of rounding.
func sketchBound(exact float64) float64 { return math.Abs(exact)/2048 + 1 }

// goalBound is issue 11's bound: 1 % or 1 ms of the exact value,
// whichever is larger.
func goalBound(exact float64) float64 { return max(math.Abs(exact)/100, results.NsPerMs) }

var sketchPercentiles = []float64{0, 1, 10, 25, 50, 75, 90, 95, 99, 99.9, 100}

// checkSketch compares the histogram's figures for xs (the exact cap
// switched off) with the exact ones, and returns the largest error of a
// percentile relative to the exact value.
func checkSketch(t *testing.T, xs []float64) float64 {
	t.Helper()
	sk := Sketch{ExactCap: -1}
	for _, x := range xs {
		sk.Add(x)
	}
	if sk.Exact() {
		t.Fatal("sketch with ExactCap -1 is exact")
	}
	want := Describe(xs)
	got := sk.Describe()
	if got.N != want.N || got.Min != want.Min || got.Max != want.Max {
		t.Errorf("n, min, max = %d %v %v, want %d %v %v", got.N, got.Min, got.Max, want.N, want.Min, want.Max)
	}
	if math.Abs(got.Mean-want.Mean) > 1e-9*math.Abs(want.Mean)+1e-9 {
		t.Errorf("mean = %v, want %v", got.Mean, want.Mean)
	}
	if len(xs) > 1 && math.Abs(got.StdDev-want.StdDev) > 1e-6*want.StdDev+1e-9 {
		t.Errorf("stddev = %v, want %v", got.StdDev, want.StdDev)
	}
	worst := 0.0
	for _, p := range sketchPercentiles {
		e, g := want.Percentile(p), got.Percentile(p)
		if d := math.Abs(g - e); d > sketchBound(e) || d > goalBound(e) {
			t.Errorf("p%v = %v, want %v (error %v > bound %v)", p, g, e, d, sketchBound(e))
		}
		if e != 0 {
			worst = max(worst, math.Abs(g-e)/math.Abs(e))
		}
	}
	return worst
}

func TestSketchBound(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	gen := func(n int, f func() float64) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = math.Round(f())
		}
		return xs
	}
	const ms = 1e6
	tests := []struct {
		name string
		xs   []float64
	}{
		{"one value", []float64{1234567}},
		{"constant", gen(1000, func() float64 { return 800 * ms })},
		{"uniform 0.2–2 s", gen(200_000, func() float64 { return 200*ms + r.Float64()*1800*ms })},
		{"lognormal latency", gen(200_000, func() float64 { return math.Exp(r.NormFloat64()*0.6) * 900 * ms })},
		{"block steps", gen(200_000, func() float64 { return float64(1+r.IntN(4))*1000*ms - r.Float64()*5*ms })},
		{"send lag µs with negatives", gen(100_000, func() float64 { return r.NormFloat64() * 30_000 })},
		{"tail to a minute", gen(100_000, func() float64 { return r.ExpFloat64() * 3000 * ms })},
		{"small values", gen(10_000, func() float64 { return float64(r.IntN(3000)) })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkSketch(t, tt.xs) })
	}
}

// TestSketchExact: within its exact cap a sketch is Describe, bit for bit.
func TestSketchExact(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	xs := make([]float64, 5000)
	sk := Sketch{}
	for i := range xs {
		xs[i] = r.NormFloat64() * 1e9
		sk.Add(xs[i])
	}
	want, got := Describe(xs), sk.Describe()
	if !sk.Exact() || got.Mean != want.Mean || got.StdDev != want.StdDev || got.Min != want.Min || got.Max != want.Max {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for _, p := range sketchPercentiles {
		if g, w := got.Percentile(p), want.Percentile(p); g != w {
			t.Errorf("p%v = %v, want %v", p, g, w)
		}
	}
	var empty Sketch
	if d := empty.Describe(); d.N != 0 || !math.IsNaN(d.Percentile(50)) || !math.IsNaN(empty.Percentile(50)) {
		t.Errorf("empty sketch: %+v", d)
	}
}

// TestSketchMerge: merging sketches (exact and not) is adding every
// value to one.
func TestSketchMerge(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var all []float64
	parts := []*Sketch{{ExactCap: -1}, {ExactCap: 100}, {}, {ExactCap: -1}}
	for i, p := range parts {
		for range 1000 * (i + 1) {
			x := math.Round(math.Exp(r.NormFloat64()) * 1e9)
			all = append(all, x)
			p.Add(x)
		}
	}
	sum := &Sketch{ExactCap: 10}
	for _, p := range parts {
		sum.Merge(p)
	}
	want := Describe(all)
	got := sum.Describe()
	if got.N != want.N || got.Min != want.Min || got.Max != want.Max || math.Abs(got.Mean-want.Mean) > 1e-6*want.Mean ||
		math.Abs(got.StdDev-want.StdDev) > 1e-6*want.StdDev {
		t.Fatalf("merged: %+v, want %+v", got, want)
	}
	for _, p := range sketchPercentiles {
		if e, g := want.Percentile(p), got.Percentile(p); math.Abs(g-e) > sketchBound(e) {
			t.Errorf("p%v = %v, want %v", p, g, e)
		}
	}
}

// TestSketchRuns checks the histogram against the exact latencies of the
// run directories in testdata and of the run directories listed in
// $COMETLAB_SKETCH_RUNS (a path list, ":" separated: real runs too large for the
// repository), and logs the largest error.
func TestSketchRuns(t *testing.T) {
	dirs, _ := filepath.Glob("../../testdata/runs/*")
	dirs = append(dirs, filepath.SplitList(os.Getenv("COMETLAB_SKETCH_RUNS"))...)
	for _, dir := range dirs {
		if _, err := os.Stat(filepath.Join(dir, results.RunFile)); err != nil {
			continue
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			in, err := ReadInput(dir)
			if err != nil {
				t.Fatal(err)
			}
			block := BlockLatencies(in.Txs)
			obs := ObservedLatencies(in)
			var lags []float64
			for _, s := range in.Sent {
				if s.Actual != 0 && s.Err == "" {
					lags = append(lags, float64(s.Actual-s.Intended))
				}
			}
			for _, d := range []struct {
				name string
				xs   []float64
			}{{"block latency", block}, {"observed latency", obs}, {"send lag", lags}} {
				if len(d.xs) == 0 {
					continue
				}
				worst := checkSketch(t, d.xs)
				t.Logf("%s: %d values, largest percentile error %.4f %%", d.name, len(d.xs), 100*worst)
			}
		})
	}
}

// TestStreamEqualsSlices: the summary of a run directory read by
// ReadStream is the summary of its rows held in memory (ReadInput).
func TestStreamEqualsSlices(t *testing.T) {
	dirs, _ := filepath.Glob("../../testdata/runs/*")
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			in, err := ReadInput(dir)
			if err != nil {
				t.Fatal(err)
			}
			st, err := ReadStream(dir)
			if err != nil {
				t.Fatal(err)
			}
			if st.Txs != nil || st.Sent != nil || st.Replies != nil {
				t.Fatal("ReadStream holds rows")
			}
			want, got := Summarize(in), Summarize(st)
			wj, _ := jsonOf(want)
			gj, _ := jsonOf(got)
			if wj != gj {
				t.Errorf("streamed summary differs:\n got %s\nwant %s", gj, wj)
			}
		})
	}
}

func jsonOf(s Summary) (string, error) {
	b, err := json.MarshalIndent(s, "", " ")
	return string(b), err
}
