package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cometlab/cometlab/internal/history"
	"github.com/cometlab/cometlab/internal/report"
)

// mainEnv makes the test binary run main() instead of the tests, so a test
// can start cometlab as a process of its own and SIGKILL it.
const mainEnv = "COMETLAB_TEST_MAIN"

// TestMain runs main() when mainEnv says so; otherwise the tests, with
// plots drawn at 200×100 (report.PlotSizeEnv) unless the environment sets
// a size: no test here checks a plot's pixels, and a full-size report
// costs seconds of CPU under -race; and with the history index
// (history.Env) in a temporary directory.
func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) == "1" {
		main()
		return
	}
	if os.Getenv(report.PlotSizeEnv) == "" {
		os.Setenv(report.PlotSizeEnv, "200x100")
	}
	// Runs the tests make add themselves to a history index of the
	// tests' own, never to the user's.
	tmp, err := os.MkdirTemp("", "cometlab-history-")
	if err != nil {
		panic(err)
	}
	os.Setenv(history.Env, filepath.Join(tmp, "history.db"))
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}
