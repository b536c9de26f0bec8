package experiment

import (
	"os"
	"testing"

	"github.com/cometlab/cometlab/internal/report"
)

// TestMain runs the tests with plots drawn at 200×100 (report.PlotSizeEnv)
// unless the environment sets a size: no test here checks a plot's pixels,
// and a run's report at the default size costs about 20 s of CPU under
// -race. The tests that start nodes set the same size through
// testnettest.LockForTest; this covers the rest, whose series of fake runs
// (qa, sweeps, searches) write a report per run.
func TestMain(m *testing.M) {
	if os.Getenv(report.PlotSizeEnv) == "" {
		os.Setenv(report.PlotSizeEnv, "200x100")
	}
	os.Exit(m.Run())
}
