package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/exitcode"
)

// TestABJudgeFlag: --judge names the metrics to judge; --metrics, its
// old name, still works (hidden; pflag prints its deprecation notice on
// the process's stderr), and a usage error names the flag that was given.
func TestABJudgeFlag(t *testing.T) {
	for _, flag := range []string{"--judge", "--metrics"} {
		code, _, stderr := run(t, "ab", "--cand", "v0.40.0", flag, "block_latency_p50_ms,latency_p99")
		if code != exitcode.Usage || !strings.Contains(stderr, flag+`: "latency_p99" is not a metric id`) {
			t.Errorf("%s: exit %d\n%s", flag, code, stderr)
		}
	}
	_, help, _ := run(t, "ab", "--help")
	if !strings.Contains(help, "--judge strings") || strings.Contains(help, "--metrics strings") {
		t.Errorf("ab --help: want --judge and not --metrics:\n%s", help)
	}
}

// TestABResumeUsage: --resume takes every setting from the directory, and
// a directory without ab.json is an error before anything runs.
func TestABResumeUsage(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := run(t, "ab", "--resume", dir, "--cand", "v0.40.0")
	if code != exitcode.Usage || !strings.Contains(stderr, "drop [--cand]") {
		t.Errorf("--resume with --cand: exit %d\n%s", code, stderr)
	}
	code, _, stderr = run(t, "ab", "--resume", filepath.Join(dir, "none"))
	if code == exitcode.OK || !strings.Contains(stderr, "ab.json") {
		t.Errorf("--resume of nothing: exit %d\n%s", code, stderr)
	}
}
