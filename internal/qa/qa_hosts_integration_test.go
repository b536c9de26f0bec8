package qa_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/compare"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/experiment/experimenttest"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/qa"
	"github.com/cometlab/cometlab/internal/qa/plan"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/series"
	"github.com/cometlab/cometlab/internal/testnet/nshoststest"
)

// TestQAOnHosts runs a QA on two network-namespace hosts through the real
// ansible-playbook over real sshd: 3 validators, the candidate the same
// with consensus.timeout_commit at 2 s, the long test one round (each of
// its two runs deploys its own testnet, loads it, stops it and fetches
// the hosts' logs and homes back), the saturation step and the
// vote-extension sweep skipped for time (they run through the same
// Run). The steps hosts cannot run are skipped with their reason, both
// runs commit all they sent, and nothing is left running on the hosts.
func TestQAOnHosts(t *testing.T) {
	if testing.Short() {
		t.Skip("deploys real testnets to namespace hosts")
	}
	experimenttest.Proves(t)
	nshoststest.Require(t)
	f := experimenttest.Fetcher(t) // the node lock
	n := nshoststest.New(t, 2)
	var text strings.Builder
	text.WriteString("name = \"qa-hosts\"\nlinks = \"direct\"\n[load]\nconnections = 1\nrate = 50\nduration = \"6s\"\ndrain_timeout = \"30s\"\n")
	for i, h := range n.Hosts {
		fmt.Fprintf(&text, "[host.h%d]\naddress = %q\nssh_user = %q\nssh_key = %q\nworkdir = %q\n", i+1, h.Address, n.User, n.Key, h.Workdir)
	}
	for i, host := range []string{"h1", "h1", "h2", "h2"} {
		fmt.Fprintf(&text, "[node.validator%02d]\nhost = %q\n", i+1, host)
	}
	path := filepath.Join(t.TempDir(), "qa-hosts.toml")
	if err := os.WriteFile(path, []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	const cand = "consensus.timeout_commit=2s"
	sides, labels, err := series.ABSides(manifest.Source{Path: path}, "", []string{cand}, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	pl := noMoreRounds(t, plan.Input{Sides: sides, Labels: labels, Repeat: 1, Skip: []string{plan.Saturation, plan.VoteExtensions}})
	dir := filepath.Join(t.TempDir(), "qa")
	var out bytes.Buffer
	ctx, progress, stop := watchQA(t, &out)
	start := time.Now()
	res, err := qa.Run(ctx, qa.Options{Sides: sides, Labels: labels, Candidate: cand,
		Plan: pl, Thresholds: compare.DefaultThresholds(), Dir: dir, Command: "TestQAOnHosts",
		Env: series.Env{Env: experiment.Env{Fetcher: f, Out: progress, Version: "test", StartTimeout: 60 * time.Second, SSHArgs: n.SSHArgs},
			MaxRemeasures: -1}})
	stop()
	t.Logf("QA on hosts: %v", time.Since(start).Round(time.Second))
	if code, _ := exitcode.Of(err); err != nil && code != exitcode.Regression {
		t.Fatalf("QA: %v (code %d)\n%s", err, code, out.String())
	}
	rec := res.Record
	if !res.Finished || rec.Status != results.StatusComplete {
		t.Fatalf("QA %s, finished %v\n%s", rec.Status, res.Finished, out.String())
	}
	for _, st := range rec.Steps {
		t.Logf("%-16s %-10s %-12s %s", st.ID, st.Status, st.Verdict, st.Summary+st.Error)
		switch st.ID {
		case plan.Long:
			if st.Status != results.QADone {
				t.Errorf("%s: %s (%s)", st.ID, st.Status, st.Error)
			}
		case plan.Rotation, plan.Partition, plan.AbsentStake, plan.Storage:
			if st.Status != results.QASkipped || !strings.Contains(st.Summary+st.Error, "[host.*]") {
				t.Errorf("%s on hosts: %s %q, want it skipped for the hosts", st.ID, st.Status, st.Summary+st.Error)
			}
		}
	}
	var runs []string
	for _, d := range rec.Step(plan.Long).Dirs {
		runs = append(runs, runDirs(t, filepath.Join(dir, d))...)
	}
	if len(runs) != 2 {
		t.Fatalf("long test: %d run directories, want 2: %v", len(runs), runs)
	}
	for _, rd := range runs {
		r, err := results.ReadRun(rd)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != results.StatusComplete || len(r.Nodes) != 4 {
			t.Errorf("%s: status %s, %d nodes", rd, r.Status, len(r.Nodes))
		}
		for _, host := range []string{"h1", "h2"} {
			if _, err := os.Stat(filepath.Join(rd, "collected", host, "logs")); err != nil {
				t.Errorf("%s: the hosts' logs were not fetched back: %v", rd, err)
			}
		}
		var sum analysis.Summary
		if err := results.ReadJSON(filepath.Join(rd, results.SummaryFile), &sum); err != nil {
			t.Error(err)
		} else if sent, committed := sum.Metrics["sent_txs"], sum.Metrics["committed_txs"]; sent != 300 || committed != sent {
			t.Errorf("%s: %v sent, %v committed, want 300 and all of them", rd, sent, committed)
		}
		if _, err := os.Stat(filepath.Join(rd, experiment.TestnetFile)); err == nil {
			t.Errorf("%s: testnet.json still says the deployment runs", rd)
		}
	}
	for _, p := range n.Processes() {
		if !strings.Contains(p, "sshd") {
			t.Errorf("left running after the QA: %s", p)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, results.QAReportFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"## Long test at the QA load", "## Steps not run", "rotation is not supported on [host.*] testnets"} {
		if !strings.Contains(string(md), s) {
			t.Errorf("qa.md lacks %q", s)
		}
	}
}
