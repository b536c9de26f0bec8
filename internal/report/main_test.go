package report

import (
	"os"
	"testing"
)

// TestMain renders the package's plots at 200×100 (PlotSizeEnv) unless
// the environment sets a size: under -race a full-size report takes
// seconds of CPU per run, which slowed the whole full lane's timed node
// tests beside it. Every check of a plot's size compares it with the
// configured size (wantPlotSize); TestSmallRun and TestLatencyPNG render
// at the default size, which TestPlotSize's cases cover too.
func TestMain(m *testing.M) {
	if os.Getenv(PlotSizeEnv) == "" {
		os.Setenv(PlotSizeEnv, "200x100")
	}
	os.Exit(m.Run())
}

// wantPlotSize is the size every plot drawn with no size of its own has
// in this test: PlotSizeEnv's, or the default.
func wantPlotSize() (int, int) { return plotSize(0, 0) }

// defaultPlots makes the test render at the default plot size.
func defaultPlots(t *testing.T) { t.Setenv(PlotSizeEnv, "") }
