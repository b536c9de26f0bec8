package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

func TestTrendSentence(t *testing.T) {
	tests := []struct {
		name string
		m    map[string]float64
		want string
	}{
		{"decline", map[string]float64{"tps_first10": 1000, "tps_last10": 210, "tps_slope_per_min": -47, "tps_slope_ci95_per_min": 3},
			"**Throughput declined by 79.0 %** during the load: 1000 tx/s in the first 10 % of the load, 210 tx/s in the last 10 %; slope -47.0 ± 3.00 tx/s per minute (95 %)."},
		{"rise within noise", map[string]float64{"tps_first10": 500, "tps_last10": 540, "tps_slope_per_min": 2, "tps_slope_ci95_per_min": 3},
			"Throughput held steady (no change of 5 % or more with a slope whose 95 % interval excludes 0): 500 tx/s in the first 10 % of the load, 540 tx/s in the last 10 %; slope 2.00 ± 3.00 tx/s per minute (95 %)."},
		{"small significant change", map[string]float64{"tps_first10": 500, "tps_last10": 510, "tps_slope_per_min": 0.5, "tps_slope_ci95_per_min": 0.1},
			"Throughput held steady (no change of 5 % or more with a slope whose 95 % interval excludes 0): 500 tx/s in the first 10 % of the load, 510 tx/s in the last 10 %; slope 0.5 ± 0.1 tx/s per minute (95 %)."},
		{"no windows", map[string]float64{}, "Throughput: not enough windows with a committed transaction to say."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := trendSentence(analysis.Summary{Metrics: tt.m}, "Throughput", "tps", "tps_slope_per_min", "declined", "rose")
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
	lat := trendSentence(analysis.Summary{Metrics: map[string]float64{"block_latency_first10_ms": 1000, "block_latency_last10_ms": 1500,
		"block_latency_slope_ms_per_min": 40, "block_latency_slope_ci95_ms_per_min": 5}}, "Block latency", "block_latency", "block_latency_slope_ms_per_min", "fell", "rose")
	if !strings.HasPrefix(lat, "**Block latency rose by 50.0 %**") || !strings.Contains(lat, "40.0 ± 5.00 ms per minute") {
		t.Errorf("latency: %s", lat)
	}
}

// TestTrendSection: a 6-minute run's report has the decline section, its
// two plots and what grew meanwhile.
func TestTrendSection(t *testing.T) {
	dir := t.TempDir()
	if _, err := resultstest.WriteRun(dir, resultstest.Spec{Nodes: 4, Rate: 20, Duration: 6 * time.Minute}); err != nil {
		t.Fatal(err)
	}
	s, err := analysis.Analyze(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, s, Options{PlotWidth: 400, PlotHeight: 200}); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, results.ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Decline over time", "Throughput held steady", "Block latency held steady",
		"plots/trend_tps.png", "plots/trend_latency.png", "| data-directory size |", "| resident memory (RSS) |", "| block processing time |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	for _, m := range analysis.Dictionary() {
		if _, ok := s.Metrics[m.ID]; !ok && analysis.IsTrendMetric(m.ID) {
			t.Errorf("summary lacks %s", m.ID)
		}
	}
	for _, f := range []string{"trend_tps.png", "trend_latency.png"} {
		if _, err := os.Stat(filepath.Join(dir, results.PlotsDir, f)); err != nil {
			t.Error(err)
		}
	}
}
