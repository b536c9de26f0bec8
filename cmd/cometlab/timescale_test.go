package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/results"
)

// TestTimeScaleRefused: --time-scale is refused with its reason before
// anything runs (a bad k, "auto" where runs must share one k, a testnet
// kept up), on every command of the testnet flag group.
func TestTimeScaleRefused(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--time-scale", "0.5"}, "--time-scale: must be a number >= 1 (1 runs in real time), got 0.5"},
		{[]string{"run", "--time-scale", "fast"}, `--time-scale: want a number >= 1 (or "auto"), got "fast"`},
		{[]string{"sweep", "--time-scale", "auto", "--rates", "100"}, `time_scale = "auto" chooses k for one run from a probe of the host, and the runs of a sweep`},
		{[]string{"saturate", "--time-scale", "auto"}, `time_scale = "auto" chooses k for one run`},
		{[]string{"ab", "--time-scale", "auto", "--cand", "v0.40.0"}, `time_scale = "auto" chooses k for one run`},
		{[]string{"qa", "--baseline", "v0.39.0", "--candidate", "v0.40.0", "--time-scale", "auto", "--out", "DIR"}, `time_scale = "auto" chooses k for one run`},
		{[]string{"testnet", "up", "--time-scale", "auto", "--dir", "DIR"}, "time_scale: `testnet up` runs no load"},
		{[]string{"ab", "--time-scale", "200", "--cand", "v0.40.0"}, "--time-scale: must be <= 100"},
		{[]string{"testnet", "up", "--time-scale", "4", "--dir", "DIR"}, "time_scale: `testnet up` runs no load"},
	} {
		args := c.args
		for i, a := range args {
			if a == "DIR" {
				args[i] = filepath.Join(t.TempDir(), "tn")
			}
		}
		code, _, stderr := run(t, args...)
		if code != exitcode.Usage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want %d with %q:\n%s", args, code, exitcode.Usage, c.want, stderr)
		}
	}
}

// TestCompareTimeScales: compare refuses runs made at different time
// scales (exit 2, naming both and the flag) and compares them with
// --allow-time-scale-mismatch, warning.
func TestCompareTimeScales(t *testing.T) {
	base := fakeRun{version: "v0.40.0", interval: time.Second, seed: 1}.write(t, filepath.Join(t.TempDir(), "base"))
	cand := fakeRun{version: "v0.40.0", interval: time.Second, seed: 2}.write(t, filepath.Join(t.TempDir(), "cand"))
	r, err := results.ReadRun(cand)
	if err != nil {
		t.Fatal(err)
	}
	r.TimeScale = 4 // what a run at k = 4 of the same model records (its records would be 4 times slower)
	if err := results.WriteJSON(filepath.Join(cand, results.RunFile), r); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "cmp")
	code, _, stderr := run(t, "compare", "--out", out, base, cand)
	if code != exitcode.Usage || !strings.Contains(stderr, "different time scales") || !strings.Contains(stderr, "--allow-time-scale-mismatch") {
		t.Errorf("compare of k = 1 and k = 4: exit %d\n%s", code, stderr)
	}
	code, _, stderr = run(t, "compare", "--allow-time-scale-mismatch", "--out", out, base, cand)
	if code == exitcode.Usage {
		t.Fatalf("allowed: exit %d\n%s", code, stderr)
	}
	var res struct{ Warnings []string }
	if err := results.ReadJSON(filepath.Join(out, "compare.json"), &res); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(res.Warnings, "\n"), "different time scales") {
		t.Errorf("no time-scale warning in compare.json: %q", res.Warnings)
	}
}
