package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/compare"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// compareRealRuns compares two real runs of the default 4-validator
// testnet at 100 tx/s with `cometlab compare` — base, and slow, whose
// consensus.timeout_commit is 2 s instead of 1 s (TestABKnownEffect's
// first pair): the slower network's block latency must be noise unknown
// without a measured noise (exit 0) and worse against one (exit 4), the
// changed config key must head the differences, and with thresholds that
// tolerate the change the exit code must be 0.
func compareRealRuns(t *testing.T, base, slow string) {
	t.Helper()
	tmp := t.TempDir()
	// Without a measured noise a single-run change is "noise unknown".
	code, stdout, stderr := run(t, "compare", base, slow, "--out", filepath.Join(tmp, "cmp0"))
	if code != exitcode.OK || !strings.Contains(stdout, "noise unknown") {
		t.Fatalf("without --noise: exit %d, want 0 and noise unknown\n%s\n%s", code, stdout, stderr)
	}
	// Against a between-run noise of 5 % (what `ab --aa` measures for
	// central latencies on this kind of host), +60 % is worse.
	out := filepath.Join(tmp, "cmp")
	code, stdout, stderr = run(t, "compare", base, slow, "--out", out, "--noise", writeNoise(t, tmp, 5))
	t.Log(stdout)
	if code != exitcode.Regression {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, exitcode.Regression, stdout, stderr)
	}
	var c compare.Result
	b, err := os.ReadFile(filepath.Join(out, results.CompareJSON))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	worse := map[string]bool{}
	for _, r := range c.Metrics {
		if r.Candidates[0].Verdict == compare.Worse {
			worse[r.ID] = true
		}
	}
	for _, id := range []string{"block_latency_mean_ms", "block_latency_p50_ms"} {
		if !worse[id] {
			t.Errorf("%s not worse; worse: %v", id, worse)
		}
	}
	found := false
	for _, d := range c.Differences {
		if d.Key == "config.consensus.timeout_commit" {
			found = d.Values[0] == `"1s"` && d.Values[1] == `"2s"`
		}
		if strings.Contains(d.Key, "laddr") || strings.Contains(d.Key, "persistent_peers") {
			t.Errorf("a run-specific key is among the differences: %s", d.Key)
		}
	}
	if !found {
		t.Errorf("config.consensus.timeout_commit 1s → 2s not among the differences: %+v", c.Differences)
	}
	md, _ := os.ReadFile(filepath.Join(out, results.CompareMD))
	page, _ := os.ReadFile(filepath.Join(out, results.CompareHTML))
	if !strings.Contains(string(md), "![Block latency CDF](plots/compare_latency_cdf.png)") || !strings.Contains(string(page), "data:image/png;base64,") {
		t.Error("no latency CDF in the report, or the HTML does not inline it")
	}

	// Thresholds that tolerate the slower commit: exit 0.
	th := filepath.Join(tmp, "thresholds.toml")
	resultstest.WriteFile(t, th, []byte("threshold_pct = 1000\n[metric.tps_stddev]\nignore = true\n"))
	code, stdout, stderr = run(t, "compare", base, slow, "--out", filepath.Join(tmp, "cmp2"), "--thresholds", th)
	if code != exitcode.OK {
		t.Errorf("with a 1000 %% threshold: exit %d\n%s\n%s", code, stdout, stderr)
	}
}
