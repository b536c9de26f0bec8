package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/history"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
	"github.com/cometlab/cometlab/internal/series"
)

// histRun writes a run directory of the default synthetic testnet created
// on day i, its release and committed_tps as given (no summary.json when
// tps < 0).
func histRun(t *testing.T, dir string, i int, release string, tps float64) {
	t.Helper()
	s := resultstest.Spec{Start: time.Date(2026, 11, 1+i, 10, 0, 0, 0, time.UTC)}
	run := results.Run{ID: fmt.Sprintf("run-%02d", i), Status: results.StatusComplete, CometBFTVersion: release, App: "kvstore",
		Host:    results.Host{Hostname: "qa-01", OS: "linux", Arch: "amd64", CPUs: 8, CPUModel: "AMD EPYC 7763", MemBytes: 16 << 30},
		Load:    results.Load{Connections: 1, Rate: 20, Size: 1024, DurationS: 60, Pacing: "even"},
		Nodes:   []results.Node{{Name: "validator00", Mode: "validator"}, {Name: "validator01", Mode: "validator"}},
		Started: s.Start, Ended: s.Start.Add(80 * time.Second)}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteJSON(filepath.Join(dir, results.RunFile), run); err != nil {
		t.Fatal(err)
	}
	resultstest.WriteFile(t, filepath.Join(dir, results.ManifestFile), []byte(s.Manifest()))
	if tps >= 0 {
		sum := map[string]any{"run_id": run.ID, "status": run.Status, "metrics": map[string]float64{"committed_tps": tps, "block_latency_p50_ms": 900 + float64(i%3)}}
		if err := results.WriteJSON(filepath.Join(dir, results.SummaryFile), sum); err != nil {
			t.Fatal(err)
		}
	}
}

// histRoot writes runs r00 … of the tps given, one a day, under a new
// directory, and a half-written one.
func histRoot(t *testing.T, tps ...float64) string {
	root := t.TempDir()
	for i, v := range tps {
		release := "v0.38.26"
		if i%2 == 1 {
			release = "v0.40.0"
		}
		histRun(t, filepath.Join(root, fmt.Sprintf("r%02d", i)), i, release, v)
	}
	resultstest.WriteFile(t, filepath.Join(root, "half", results.RunFile), []byte(`{"id": "x", "sta`))
	return root
}

func TestHistoryCLI(t *testing.T) {
	root := histRoot(t, 200, 201, 199, 202)
	index := filepath.Join(t.TempDir(), "h.db")
	code, out, errs := run(t, "history", "rebuild", "--index", index, "--root", root, "--root", filepath.Join(root, "nothing"))
	if code != exitcode.OK || !strings.Contains(out, "history: 4 runs indexed, 1 skipped") ||
		!strings.Contains(errs, "skipped "+filepath.Join(root, "half")+": run.json unreadable (half-written?)") ||
		!strings.Contains(errs, filepath.Join(root, "nothing")+": no such directory") {
		t.Fatalf("rebuild: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, _ = run(t, "history", "--index", index)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != exitcode.OK || len(lines) != 5 || !strings.HasPrefix(lines[0], "time (UTC)") ||
		!strings.Contains(lines[1], "2026-11-04 10:00  run   complete  v0.40.0   ") || !strings.Contains(lines[1], "1×20/s 1024 B 1m0s  202.0   900.0  "+filepath.Join(root, "r03")) {
		t.Errorf("history: exit %d\n%s", code, out)
	}
	code, out, _ = run(t, "history", "--index", index, "--release", "v0.38", "--since", "2026-11-02", "--json")
	var listed struct {
		Runs []history.Run `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &listed); code != exitcode.OK || err != nil || len(listed.Runs) != 1 || listed.Runs[0].ID != "run-02" || len(listed.Runs[0].Figures) != 2 {
		t.Errorf("history --json: exit %d, %v\n%s", code, err, out)
	}
	code, out, _ = run(t, "history", "trend", "committed_tps", "--index", index, "--by", "release")
	if code != exitcode.OK || !strings.Contains(out, "committed_tps — Committed rate, tx/s, higher is better; 4 runs by release") ||
		!strings.Contains(out, "change points: none") || strings.Index(out, "r02") > strings.Index(out, "r01") {
		t.Errorf("trend: exit %d\n%s", code, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"history", "--index", index, "--since", "yesterday"}, "--since: time \"yesterday\""},
		{[]string{"history", "--index", index, "--kind", "cell"}, "--kind: \"cell\": want one of run, sweep, saturate, ab, qa"},
		{[]string{"history", "--index", index, "--limit", "-1"}, "--limit -1"},
		{[]string{"history", "trend", "tps", "--index", index}, `"tps" is not a figure`},
		{[]string{"history", "trend", "committed_tps", "--index", index, "--by", "size"}, "--by \"size\""},
		{[]string{"history", "add", "--index", index, root}, "not a run, sweep, search, A/B or QA directory"},
		{[]string{"history", "rebuild", "--index", index, "--root", filepath.Join(root, "nothing")}, "none of " + filepath.Join(root, "nothing") + " is here"},
	} {
		code, _, errs := run(t, c.args...)
		if code != exitcode.Usage || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %s", c.args, code, errs)
		}
	}
	if code, out, errs := run(t, "history", "add", "--index", index, filepath.Join(root, "r00")); code != exitcode.OK || !strings.Contains(out, "1 runs indexed") {
		t.Errorf("add: exit %d\n%s%s", code, out, errs)
	}
}

// TestHistoryTrendByCommit: runs of a branch's commits (run.json's
// sources), run out of their commits' order, come out by commit time with
// a commit column; the gate finds their series.
func TestHistoryTrendByCommit(t *testing.T) {
	root := t.TempDir()
	for i, c := range []struct {
		commit string
		hour   int
		tps    float64
	}{{"cccccccccccccccc", 3, 203}, {"aaaaaaaaaaaaaaaa", 1, 201}, {"bbbbbbbbbbbbbbbb", 2, 202}} {
		dir := filepath.Join(root, fmt.Sprintf("r%02d", i))
		histRun(t, dir, i, "v0.40.0", c.tps)
		var run results.Run
		if err := results.ReadJSON(filepath.Join(dir, results.RunFile), &run); err != nil {
			t.Fatal(err)
		}
		run.Sources = []results.Source{{Nodes: []string{"validator00", "validator01"}, Path: "/src/cometbft", Line: "v0.40", Version: "v0.40.0",
			Commit: c.commit, CommitTime: time.Date(2026, 10, 1, c.hour, 0, 0, 0, time.UTC), Key: c.commit}}
		if err := results.WriteJSON(filepath.Join(dir, results.RunFile), run); err != nil {
			t.Fatal(err)
		}
	}
	index := filepath.Join(t.TempDir(), "h.db")
	if code, out, errs := run(t, "history", "rebuild", "--index", index, "--root", root); code != exitcode.OK {
		t.Fatalf("rebuild: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs := run(t, "history", "trend", "committed_tps", "--index", index, "--by", "commit")
	a, b, c := strings.Index(out, "aaaaaaaaaaaa "), strings.Index(out, "bbbbbbbbbbbb "), strings.Index(out, "cccccccccccc ")
	if code != exitcode.OK || !strings.Contains(out, "3 runs by commit") || !strings.Contains(out, "release  commit ") ||
		a < 0 || !(a < b && b < c) {
		t.Errorf("trend --by commit: exit %d, commits at %d %d %d\n%s%s", code, a, b, c, out, errs)
	}
	code, out, errs = run(t, "gate", "--index", index, "--min-runs", "2", "--judge", "committed_tps", filepath.Join(root, "r02"))
	if code != exitcode.OK || !strings.Contains(out, "committed_tps") {
		t.Errorf("gate of the newest run of the branch: exit %d\n%s%s", code, out, errs)
	}
}

// TestGateCLI: the gate's exit codes from synthetic histories.
func TestGateCLI(t *testing.T) {
	for _, c := range []struct {
		name    string
		history []float64
		new     float64
		args    []string
		code    int
		want    string
	}{
		{"pass", []float64{200, 201, 199, 200, 202, 198}, 199, nil, exitcode.OK, "gate: pass"},
		{"regression", []float64{200, 201, 199, 200, 202, 198}, 170, nil, exitcode.Regression, "gate: regression: committed_tps worse"},
		{"within a wider threshold", []float64{200, 201, 199, 200, 202, 198}, 170, []string{"--threshold", "20"}, exitcode.OK, "gate: pass"},
		{"too few", []float64{200, 201}, 170, nil, exitcode.Insufficient, "too few runs to judge: 2 earlier runs"},
		{"no history", nil, 170, nil, exitcode.Insufficient, "too few runs to judge: 0 earlier runs"},
		{"the new run has no figures", []float64{200, 201, 199}, -1, nil, exitcode.Failed, "with no figures: nothing to judge"},
		{"bad --p", nil, 170, []string{"--p", "2"}, exitcode.Usage, "--p 2"},
		{"bad --judge", nil, 170, []string{"--judge", "blocks"}, exitcode.Usage, `--judge: "blocks" is not a figure`},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := histRoot(t, append(c.history, c.new)...)
			index := filepath.Join(t.TempDir(), "h.db")
			summary := filepath.Join(t.TempDir(), "summary.md")
			if code, out, errs := run(t, "history", "rebuild", "--index", index, "--root", root); code != exitcode.OK {
				t.Fatalf("rebuild: exit %d\n%s%s", code, out, errs)
			}
			newest := filepath.Join(root, fmt.Sprintf("r%02d", len(c.history)))
			for _, args := range [][]string{{"gate", "--index", index, "--summary", summary}, {"gate", "--index", index, newest}} {
				code, out, errs := run(t, append(args, c.args...)...)
				if code != c.code || !strings.Contains(out+errs, c.want) {
					t.Errorf("%v: exit %d, want %d with %q\n%s%s", args, code, c.code, c.want, out, errs)
				}
			}
			b, _ := os.ReadFile(summary)
			if c.code == exitcode.OK || c.code == exitcode.Regression {
				if !strings.Contains(string(b), "## cometlab gate: ") || !strings.Contains(string(b), "| Committed rate (tx/s) | ") {
					t.Errorf("summary:\n%s", b)
				}
			}
		})
	}
}

// TestGateAB judges an A/B experiment's candidate side against the
// history of its series; the base's runs of the same experiment are no
// history.
func TestGateAB(t *testing.T) {
	root := histRoot(t, 200, 201, 199, 200, 202)
	ab := filepath.Join(t.TempDir(), "ab", "x")
	histRun(t, filepath.Join(ab, "runs", "01-base"), 10, "v0.38.26", 200)
	histRun(t, filepath.Join(ab, "runs", "01-cand"), 10, "v1.0.0", 160)
	histRun(t, filepath.Join(ab, "runs", "02-cand"), 11, "v1.0.0", 162)
	histRun(t, filepath.Join(ab, "runs", "02-base"), 11, "v0.38.26", 200)
	resultstest.WriteFile(t, filepath.Join(ab, history.ABFile), []byte(`{"labels": ["base", "cand"], "status": "complete", "pairs": 2}`))
	index := filepath.Join(t.TempDir(), "h.db")
	run(t, "history", "rebuild", "--index", index, "--root", root, "--root", filepath.Dir(ab))
	code, out, errs := run(t, "gate", "--index", index, ab, "--json")
	var res []history.GateResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != exitcode.Regression || len(res) != 1 || res[0].History != 5 ||
		res[0].Judged[0].M != 2 || res[0].Judged[0].New != 161 {
		t.Errorf("exit %d, %v\n%s%s", code, err, out, errs)
	}
	if code, out, errs := run(t, "gate", "--index", index); code != exitcode.Regression || !strings.Contains(out, "new: "+filepath.Join(ab, "runs", "01-cand")+", "+filepath.Join(ab, "runs", "02-cand")+" against 5 earlier runs") {
		t.Errorf("the newest run, of an A/B experiment: exit %d\n%s%s", code, out, errs)
	}
	if history.ABFile != series.ABFile {
		t.Errorf("history reads %s, experiment writes %s", history.ABFile, series.ABFile)
	}
}

// TestRemember: a run that ends adds itself to the index $COMETLAB_HISTORY
// names; off leaves it out; a broken index is a warning, not a failure.
func TestRemember(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r")
	histRun(t, dir, 0, "v0.38.26", 200)
	index := filepath.Join(t.TempDir(), "h.db")
	var errs strings.Builder
	st := &state{stdout: io.Discard, stderr: &errs}
	t.Setenv(history.Env, "off")
	remember(st, dir)
	if _, err := os.Stat(index); err == nil || errs.Len() > 0 {
		t.Errorf("off: %v, %s", err, errs.String())
	}
	t.Setenv(history.Env, index)
	remember(st, dir)
	remember(st, filepath.Join(t.TempDir(), "never-made"))
	if code, out, _ := run(t, "history", "--index", index, "--json"); code != exitcode.OK || !strings.Contains(out, `"id": "run-00"`) || errs.Len() > 0 {
		t.Errorf("remembered: exit %d\n%s\n%s", code, out, errs.String())
	}
	notDir := filepath.Join(t.TempDir(), "file")
	resultstest.WriteFile(t, notDir, []byte("x"))
	t.Setenv(history.Env, filepath.Join(notDir, "h.db"))
	remember(st, dir)
	if !strings.Contains(errs.String(), "cometlab: warning: "+dir+" not added to the history: ") {
		t.Errorf("warning %q", errs.String())
	}
}
