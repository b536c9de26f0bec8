package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cometlab/cometlab/internal/history"
	"github.com/cometlab/cometlab/internal/report"
)

// mainEnv makes the test binary run cometlab instead of the tests, so a
// test can start cometlab as a process of its own and SIGKILL it: "1" as
// main() does, mainKept with every run of a series kept however disturbed
// (runKept's policy, for a test that shares the host with other tests).
const (
	mainEnv  = "COMETLAB_TEST_MAIN"
	mainKept = "kept"
)

// TestMain runs cometlab when mainEnv says so; otherwise the tests, with
// plots drawn at 200×100 (report.PlotSizeEnv) unless the environment sets
// a size: no test here checks a plot's pixels, and a full-size report
// costs seconds of CPU under -race; and with the history index
// (history.Env) in a temporary directory.
func TestMain(m *testing.M) {
	switch os.Getenv(mainEnv) {
	case "1":
		main()
		return
	case mainKept:
		os.Exit(runMain(-1))
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
