package analysis

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/results"
)

// trendRun builds a run of dur s with a block every second whose run
// transactions number rate(t) and have block latency lat(t) ms, t in s
// since the load start (at the block's commit).
func trendRun(dur int, rate, lat func(t float64) float64) (Input, *TxAggregates) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	in := Input{Run: results.Run{LoadStart: t0, LoadEnd: t0.Add(time.Duration(dur) * time.Second), Load: results.Load{DurationS: float64(dur)}}}
	a := &TxAggregates{Heights: map[int64]*HeightLatency{}}
	for k := range dur {
		t := float64(k) + 0.5
		at := t0.UnixNano() + int64(t*results.NsPerS)
		n := int(math.Round(rate(t)))
		in.Blocks = append(in.Blocks, results.Block{Height: int64(k + 1), Time: at - int64(time.Second), CommitTime: at, Txs: n, RunTxs: n})
		if n > 0 {
			a.Heights[int64(k+1)] = &HeightLatency{Sum: float64(n) * lat(t) * results.NsPerMs, N: int64(n)}
		}
	}
	return in, a
}

func TestTrends(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	tests := []struct {
		name                   string
		dur                    int
		rate, lat              func(t float64) float64
		ok                     bool
		tpsSlope, latSlope     float64 // per minute
		tol                    float64 // on the slopes
		tpsVerdict, latVerdict int
	}{
		{"steady", 600, func(float64) float64 { return 500 }, func(float64) float64 { return 1200 }, true, 0, 0, 1e-9, 0, 0},
		{"linear decline and rise", 1200, func(t float64) float64 { return 1000 - 0.5*t }, func(t float64) float64 { return 800 + 2*t },
			true, -30, 120, 0.5, -1, 1},
		{"BEP-19: 1,000 to 210 tx/s over 1,000 s", 1000, func(t float64) float64 { return 1000 - 0.79*t }, func(float64) float64 { return 1500 },
			true, -47.4, 0, 0.5, -1, 0},
		{"noisy but steady", 900, func(float64) float64 { return 400 + 40*r.NormFloat64() }, func(float64) float64 { return 1000 + 100*r.NormFloat64() },
			true, 0, 0, 5, 0, 0},
		{"too short", 240, func(float64) float64 { return 500 }, func(float64) float64 { return 1000 }, false, 0, 0, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, a := trendRun(tt.dur, tt.rate, tt.lat)
			tps, lat, ok := Trends(in, a)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			if math.Abs(tps.Slope-tt.tpsSlope) > tt.tol || math.Abs(lat.Slope-tt.latSlope) > tt.tol*4 {
				t.Errorf("slopes = %v tx/s/min, %v ms/min; want %v, %v", tps.Slope, lat.Slope, tt.tpsSlope, tt.latSlope)
			}
			if tps.CI95 < 0 || lat.CI95 < 0 || math.IsNaN(tps.CI95) || math.IsNaN(lat.CI95) {
				t.Errorf("CI95 = %v, %v", tps.CI95, lat.CI95)
			}
			// The true slope lies in the interval (noise-free lines: the
			// tolerance of the window rounding).
			if math.Abs(tps.Slope-tt.tpsSlope) > tps.CI95+tt.tol {
				t.Errorf("tx/s slope %v ± %v misses %v", tps.Slope, tps.CI95, tt.tpsSlope)
			}
			if got := tps.Significant(); got != tt.tpsVerdict {
				t.Errorf("tx/s verdict = %d, want %d (%+v)", got, tt.tpsVerdict, tps)
			}
			if got := lat.Significant(); got != tt.latVerdict {
				t.Errorf("latency verdict = %d, want %d", got, tt.latVerdict)
			}
		})
	}
}

func TestFitTrend(t *testing.T) {
	xs := []float64{0, 60, 120, 180, 240, math.NaN()}
	ys := []float64{10, 12, 14, 16, 18, math.NaN()}
	xs[5] = 300
	tr := FitTrend(xs, ys)
	if tr.Slope != 2 || tr.CI95 != 0 || tr.Intercept != 10 || tr.First != 10 || tr.Last != 18 || len(tr.X) != 5 {
		t.Errorf("FitTrend = %+v", tr)
	}
	if c := tr.Change(); c != 1.8 {
		t.Errorf("Change = %v", c)
	}
	// By hand: mean x 90, mean y 1.5, sxx = 18000, sxy = 180, so b =
	// 0.01 per s = 0.6 per min, a = 0.6; residuals 0.4, −1.2, 1.2, −0.4,
	// ssr = 3.2, se = sqrt(3.2/2/18000) per s, t(0.975, 2) = 4.302653.
	tr = FitTrend([]float64{0, 60, 120, 180}, []float64{1, 0, 3, 2})
	if math.Abs(tr.Slope-0.6) > 1e-12 || math.Abs(tr.Intercept-0.6) > 1e-12 {
		t.Errorf("slope, intercept = %v, %v, want 0.6, 0.6", tr.Slope, tr.Intercept)
	}
	want := 4.302652729911275 * math.Sqrt(3.2/2/18000) * 60
	if math.Abs(tr.CI95-want) > 1e-9 {
		t.Errorf("CI95 = %v, want %v", tr.CI95, want)
	}
	if tr := FitTrend(nil, nil); !math.IsNaN(tr.Slope) || !math.IsNaN(tr.First) {
		t.Errorf("empty: %+v", tr)
	}
}
