package report

import (
	"bytes"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// manyTxs returns a run and n committed transactions sent at 1,000 tx/s
// per connection over 10 connections, latency ≈ 1–3 s with a slow patch.
func manyTxs(n int) (results.Run, []results.Tx) {
	r := rand.New(rand.NewPCG(5, 6))
	t0 := time.Date(2025, 3, 14, 10, 0, 0, 0, time.UTC)
	run := results.Run{LoadStart: t0, Load: results.Load{Connections: 10, Rate: 1000, DurationS: float64(n) / 10000}}
	txs := make([]results.Tx, n)
	for i := range txs {
		sent := t0.UnixNano() + int64(i)*int64(time.Second)/10000
		x := float64(i) / 10000
		lat := 1 + 0.5*math.Sin(x/7) + r.ExpFloat64()*0.3
		if x > 40 && x < 45 {
			lat += 2
		}
		txs[i] = results.Tx{Conn: i % 10, Seq: uint64(i / 10), Sent: sent, CommitTime: sent + int64(lat*1e9)}
	}
	return run, txs
}

func TestLatencyPNG(t *testing.T) {
	defaultPlots(t)
	tests := []struct {
		name          string
		n             int
		width, height int
		wantErr       bool
	}{
		{"default size", 1000, 0, 0, false},
		{"custom size", 1000, 640, 320, false},
		{"no points", 0, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run, txs := manyTxs(tt.n)
			var b bytes.Buffer
			err := LatencyPNG(&b, run, txs, tt.width, tt.height)
			if (err != nil) != tt.wantErr {
				t.Fatalf("LatencyPNG error = %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			img, err := png.Decode(&b)
			if err != nil {
				t.Fatal(err)
			}
			w, h := tt.width, tt.height
			if w == 0 {
				w, h = DefaultPlotWidth, DefaultPlotHeight
			}
			if got := img.Bounds().Size(); got.X != w || got.Y != h {
				t.Errorf("size %v, want %d×%d", got, w, h)
			}
		})
	}
}

func TestLatencyPoints(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	s := int64(time.Second)
	txs := []results.Tx{
		{Sent: t0.UnixNano() + s, CommitTime: t0.UnixNano() + 3*s},
		{Sent: t0.UnixNano() + 2*s, CommitTime: t0.UnixNano() + 3*s, Duplicate: true},
		{Sent: t0.UnixNano() + 2*s, CommitTime: 0},
		{Sent: t0.UnixNano() + 2*s, CommitTime: t0.UnixNano() + 5*s/2},
	}
	tests := []struct {
		name   string
		run    results.Run
		xs, ys []float64
	}{
		{"load start", results.Run{LoadStart: t0}, []float64{1, 2}, []float64{2, 0.5}},
		{"first send", results.Run{}, []float64{0, 1}, []float64{2, 0.5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			xs, ys := LatencyPoints(tt.run, txs)
			if len(xs) != len(tt.xs) || len(ys) != len(tt.ys) {
				t.Fatalf("got %v %v, want %v %v", xs, ys, tt.xs, tt.ys)
			}
			for i := range xs {
				if xs[i] != tt.xs[i] || ys[i] != tt.ys[i] {
					t.Errorf("point %d = (%v, %v), want (%v, %v)", i, xs[i], ys[i], tt.xs[i], tt.ys[i])
				}
			}
		})
	}
}

func TestNiceTicks(t *testing.T) {
	tests := []struct {
		lo, hi float64
		labels []string
	}{
		{0, 2.8, []string{"0.0", "0.5", "1.0", "1.5", "2.0", "2.5"}},
		{0, 3, []string{"0.0", "0.5", "1.0", "1.5", "2.0", "2.5", "3.0"}},
		{0, 100, []string{"0", "20", "40", "60", "80", "100"}},
		{0, 7, []string{"0", "1", "2", "3", "4", "5", "6", "7"}},
		{0.013, 0.052, []string{"0.015", "0.020", "0.025", "0.030", "0.035", "0.040", "0.045", "0.050"}},
		{5, 5, []string{"5"}},
	}
	for _, tt := range tests {
		var labels []string
		for _, tk := range niceTicks(tt.lo, tt.hi) {
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
			if tk.Value < tt.lo || tk.Value > tt.hi+1e-9 {
				t.Errorf("niceTicks(%v, %v): tick %v out of range", tt.lo, tt.hi, tk.Value)
			}
		}
		if len(labels) != len(tt.labels) {
			t.Errorf("niceTicks(%v, %v) labels %q, want %q", tt.lo, tt.hi, labels, tt.labels)
			continue
		}
		for i := range labels {
			if labels[i] != tt.labels[i] {
				t.Errorf("niceTicks(%v, %v) labels %q, want %q", tt.lo, tt.hi, labels, tt.labels)
				break
			}
		}
	}
}

// TestLatencyPNGMillion draws a million points and leaves the image in the
// temporary directory when -v is given, to look at.
func TestLatencyPNGMillion(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	run, txs := manyTxs(1_000_000)
	var b bytes.Buffer
	start := time.Now()
	if err := LatencyPNG(&b, run, txs, 0, 0); err != nil {
		t.Fatal(err)
	}
	t.Logf("1,000,000 points in %v", time.Since(start))
	if testing.Verbose() {
		resultstest.WriteFile(t, filepath.Join(os.TempDir(), "cometlab-million-latency.png"), b.Bytes())
	}
}

func BenchmarkLatencyPNG1M(b *testing.B) {
	run, txs := manyTxs(1_000_000)
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := LatencyPNG(&buf, run, txs, 0, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// TestOfferedRates checks the offered series of a shaped load's tx/s plot:
// a square wave of 4 tx/s, 1 s on and 1 s off, in 1 s and 2 s windows.
func TestOfferedRates(t *testing.T) {
	perSecond := []int64{4, 0, 4, 0}
	xs, rates := offeredRates(perSecond, 1, 4)
	if want := []float64{0.5, 1.5, 2.5, 3.5}; !slices.Equal(xs, want) {
		t.Errorf("xs = %v, want %v", xs, want)
	}
	if want := []float64{4, 0, 4, 0}; !slices.Equal(rates, want) {
		t.Errorf("rates = %v, want %v", rates, want)
	}
	if _, rates := offeredRates(perSecond, 2, 2); !slices.Equal(rates, []float64{2, 2}) {
		t.Errorf("2 s windows: %v", rates)
	}
}

// TestOfferedPerSecond checks the aggregate the offered line is drawn from:
// sent.csv's rows counted by the second of their intended time.
func TestOfferedPerSecond(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	run := results.Run{LoadStart: t0, Load: results.Load{Connections: 1, DurationS: 4}}
	a := analysis.NewTxAggregates(run, nil)
	for i, off := range []float64{0, 0.25, 0.5, 0.75, 2, 2.25, 2.5, 2.75} {
		a.AddSent(&results.Sent{Seq: uint64(i), Intended: t0.UnixNano() + int64(off*1e9), Actual: 1})
	}
	if got := a.Offered(); !slices.Equal(got, []int64{4, 0, 4}) {
		t.Errorf("Offered = %v, want [4 0 4]", got)
	}
}

// TestExperimentShapeRows checks the Load table of a shaped run of the
// user's own transactions: the shape, the file, and the shape's count.
func TestExperimentShapeRows(t *testing.T) {
	var b strings.Builder
	run := results.Run{Load: results.Load{Connections: 2, Rate: 200, Size: 1024, DurationS: 40, Pacing: "even",
		Shape: "ramp", ShapeDetail: "ramp 200→1200 tx/s", Expected: 56000, Txs: "/tmp/kv.b64"}}
	mdWriter{w: &b}.experiment(run, nil)
	for _, want := range []string{
		"| shape (rates per connection) | ramp 200→1200 tx/s |",
		"| transactions | the user's own, from /tmp/kv.b64, matched on the chain by SHA-256 |",
		"| transaction size | — (the user's own; see sent.csv) |",
		"| expected transactions (the shape's schedule) | 56,000 |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("Load table lacks %q:\n%s", want, b.String())
		}
	}
}

// TestPlotSize: a given size is kept; otherwise COMETLAB_PLOT_SIZE's when
// valid, else the default.
func TestPlotSize(t *testing.T) {
	for _, c := range []struct {
		env          string
		w, h         int
		wantW, wantH int
	}{
		{"", 0, 0, DefaultPlotWidth, DefaultPlotHeight},
		{"", 300, 200, 300, 200},
		{"200x100", 0, 0, 200, 100},
		{"200x100", 300, 200, 300, 200},
		{"200", 0, 0, DefaultPlotWidth, DefaultPlotHeight},
		{"0x100", 0, 0, DefaultPlotWidth, DefaultPlotHeight},
		{"ax100", 0, 0, DefaultPlotWidth, DefaultPlotHeight},
	} {
		t.Setenv(PlotSizeEnv, c.env)
		if w, h := plotSize(c.w, c.h); w != c.wantW || h != c.wantH {
			t.Errorf("%s=%q: plotSize(%d, %d) = %d × %d, want %d × %d", PlotSizeEnv, c.env, c.w, c.h, w, h, c.wantW, c.wantH)
		}
	}
}
