package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/qa/plan"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// TestQAPlan: qa --plan prints every run and its estimate and runs
// nothing; with no finished run under the working directory the overhead
// is the default, and says so.
func TestQAPlan(t *testing.T) {
	golden, err := filepath.Abs(filepath.Join("testdata", "qa", "plan.txt"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	v038, _ := cometbft.LineByPrefix("v0.38")
	code, out, stderr := run(t, "qa", "--baseline", v038.Proven, "--candidate", "v0.40.0", "--plan")
	if code != exitcode.OK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	resultstest.Golden(t, golden, []byte(out))
	code, out, _ = run(t, "qa", "--baseline", v038.Proven, "--candidate", "v0.40.0", "--plan", "--budget", "1h", "--skip", "rotation")
	if code != exitcode.OK || !strings.Contains(out, "Given up for the budget: ") || !strings.Contains(out, "skipped: --skip rotation") {
		t.Errorf("--budget 1h: exit %d\n%s", code, out)
	}
}

// TestQAUsage: what qa cannot take is refused before anything runs.
func TestQAUsage(t *testing.T) {
	onHosts, err := filepath.Abs(filepath.Join("..", "..", "testdata", "manifests", "hosts.good.toml"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"qa"}, "--candidate: give the candidate SPEC"},
		{[]string{"qa", "--candidate", "v0.40.0", "--skip", "sweep"}, `--skip "sweep": not a step`},
		{[]string{"qa", "--candidate", "v0.40.0", "--threshold", "ten"}, `--threshold "ten"`},
		{[]string{"qa", "--candidate", "v0.40.0", "--budget", "5m"}, "--budget 5m0s is too small"},
		{[]string{"qa", "--candidate", "nonsense=1"}, "nonsense"},
		{[]string{"qa", "--resume", "x", "--candidate", "v0.40.0"}, "drop [--candidate]"},
		{[]string{"qa", "--candidate", "v0.40.0", "--inventory", "none.ini", "--plan"}, "--inventory: open none.ini"},
		{[]string{"qa", "--candidate", "v0.40.0", "--manifest", onHosts, "--inventory", "none.ini", "--plan"}, "--inventory"},
	} {
		code, _, stderr := run(t, c.args...)
		if code != exitcode.Usage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want 2 and %q:\n%s", c.args, code, c.want, stderr)
		}
	}
	if code, _, stderr := run(t, "qa", "--resume", "none"); code == exitcode.OK || !strings.Contains(stderr, "qa.json") {
		t.Errorf("--resume of nothing: exit %d\n%s", code, stderr)
	}
}

// TestReportQA: report rewrites a QA directory's qa.json, qa.md and
// qa.html, naming the cometlab that did (its re-analysis of the steps'
// runs is internal/qa's TestQAReportReanalyses; this QA's one step was
// skipped).
func TestReportQA(t *testing.T) {
	dir := t.TempDir()
	rec := results.QARecord{Kind: "qa", Status: results.StatusComplete, Labels: []string{"base", "cand"}, ThresholdPct: 10, Alpha: 0.05,
		Verdict: results.QAVerdictPass, Steps: []results.QAStep{{ID: plan.Long, Status: results.QASkipped, Summary: "skipped: --skip"}}}
	if err := results.WriteJSON(filepath.Join(dir, results.QAFile), rec); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := run(t, "report", dir)
	if code != exitcode.OK || !strings.Contains(out, results.QAReportFile) {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	md, err := os.ReadFile(filepath.Join(dir, results.QAReportFile))
	if err != nil || !strings.Contains(string(md), "# QA: cand against base — PASS") || !strings.Contains(string(md), "derived again by cometlab "+builtFrom()) {
		t.Errorf("qa.md: %v\n%s", err, md)
	}
	if _, err := os.Stat(filepath.Join(dir, results.QAHTMLFile)); err != nil {
		t.Error(err)
	}
}

// TestQAPlanOnHosts: a QA on hosts — a manifest's [host.*] tables, or the
// default testnet put on an inventory's hosts — plans the steps hosts can
// run and skips the others with the reason.
func TestQAPlanOnHosts(t *testing.T) {
	onHosts, err := filepath.Abs(filepath.Join("..", "..", "testdata", "manifests", "hosts.good.toml"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	inv := "[validators]\n"
	for i := 1; i <= 4; i++ {
		inv += fmt.Sprintf("203.0.113.%d name=validator%02d internal_ip=10.10.0.%d\n", i, i, i)
	}
	inv += "[prometheus]\n203.0.113.20 name=testnet-prometheus internal_ip=10.10.0.20\n"
	if err := os.WriteFile("hosts.ini", []byte(inv), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"qa", "--candidate", "v0.40.0", "--manifest", onHosts, "--plan"},
		{"qa", "--candidate", "v0.40.0", "--inventory", "hosts.ini", "--ssh-user", "qa", "--plan"},
	} {
		code, out, stderr := run(t, args...)
		if code != exitcode.OK {
			t.Errorf("%v: exit %d\n%s", args, code, stderr)
			continue
		}
		for _, want := range []string{"Saturation point, ≈", "Long test at the QA load, ≈", "rotation is not supported on [host.*] testnets",
			"7. Absent stake: skipped", "walked on this machine"} {
			if !strings.Contains(out, want) {
				t.Errorf("%v: the plan lacks %q:\n%s", args, want, out)
			}
		}
		if args[3] == "--inventory" && !strings.Contains(stderr, "note: ") {
			t.Errorf("%v: no note for the inventory's prometheus group:\n%s", args, stderr)
		}
	}
}
