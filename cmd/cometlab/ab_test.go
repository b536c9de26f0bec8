package main

import (
	"context"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/exitcode"
)

// TestABJudgeFlag: --judge names the metrics to judge; --metrics with
// metric ids, its old name, still works (with a deprecation notice), and a
// usage error names the flag that was given; --metrics is otherwise the
// series kept, as on every command that runs a testnet.
func TestABJudgeFlag(t *testing.T) {
	for _, flag := range []string{"--judge", "--metrics"} {
		code, _, stderr := run(t, "ab", "--cand", "v0.40.0", flag, "block_latency_p50_ms,latency_p99")
		if code != exitcode.Usage || !strings.Contains(stderr, flag+`: "latency_p99" is not a metric id`) {
			t.Errorf("%s: exit %d\n%s", flag, code, stderr)
		}
		if deprecated := strings.Contains(stderr, "deprecated, use --judge"); deprecated != (flag == "--metrics") {
			t.Errorf("%s: deprecation notice %v:\n%s", flag, deprecated, stderr)
		}
	}
	_, help, _ := run(t, "ab", "--help")
	if !strings.Contains(help, "--judge strings") || !regexp.MustCompile(`--metrics strings +node series kept in metrics.csv`).MatchString(help) {
		t.Errorf("ab --help: want --judge, and --metrics for the series kept:\n%s", help)
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

// TestSeriesEnvMaxRemeasures: the state's maxRemeasures reaches every
// series' environment (runKept's tests keep their disturbed runs); the
// process's zero is the policy's budget.
func TestSeriesEnvMaxRemeasures(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	for _, want := range []int{0, -1} {
		st := &state{stdout: io.Discard, stderr: io.Discard, hard: context.Background(), maxRemeasures: want}
		env, err := st.cellEnv(&testnetFlags{}, &collectFlags{mf: metricsFlags{metrics: "default", interval: time.Second}, minFree: "1GiB"})
		if err != nil {
			t.Fatal(err)
		}
		if env.MaxRemeasures != want {
			t.Errorf("state maxRemeasures %d: the series' MaxRemeasures %d", want, env.MaxRemeasures)
		}
	}
}
