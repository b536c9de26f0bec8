package qa

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/compare"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/qa/plan"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/series"
)

// TestQASteps: every built step runs in the method's order through the
// series runner, each run an ordinary run directory; the QA load follows
// the rule; an A/A passes every test; qa.json and the report say so.
func TestQASteps(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "qa")
	f := &fakeQA{t: t, knee: 300}
	var out bytes.Buffer
	opts := qaTestOptions(t, dir, f)
	opts.Env.Out = &out
	res, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	rec, err := results.ReadQA(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{plan.Saturation: results.QADone, plan.LoadStep: results.QADone, plan.Long: results.QADone, plan.Rotation: results.QADone,
		plan.Partition: results.QADone, plan.AbsentStake: results.QADone, plan.Upgrade: results.QASkipped, plan.VoteExtensions: results.QADone,
		plan.Storage: results.QADone}
	for _, st := range rec.Steps {
		if st.Status != want[st.ID] {
			t.Errorf("%s: %s (%s), want %s", st.ID, st.Status, st.Error, want[st.ID])
		}
		if (st.ID == plan.Long || st.ID == plan.Partition) && (st.Verdict != results.QAVerdictPass || len(st.Figures) == 0) {
			t.Errorf("%s: verdict %q, %d figures", st.ID, st.Verdict, len(st.Figures))
		}
	}
	if ve := rec.Step(plan.VoteExtensions); ve.Verdict != results.QAVerdictNotJudged || !strings.Contains(ve.Summary, "32768 B: ") {
		t.Errorf("vote extensions: %s, %q", ve.Verdict, ve.Summary)
	}
	if m, err := manifest.Load(filepath.Join(dir, "tests/vote-extensions/manifests/c1-r"+plan.FormatRate(rec.Load.Rate)+"-app.vote_extension_size_2048.toml")); err != nil {
		t.Error(err)
	} else if r, err := m.Resolve(); err != nil || r.App != manifest.AppE2E || r.AppConfig["vote_extension_size"] != int64(2048) {
		t.Errorf("vote-extension cell: %v, app %s %v", err, r.App, r.AppConfig)
	}
	if !res.Finished || rec.Status != results.StatusComplete || rec.Verdict != results.QAVerdictPass {
		t.Errorf("finished %v, status %s, verdict %s", res.Finished, rec.Status, rec.Verdict)
	}
	if rec.Load == nil || rec.Load.Connections != 1 || rec.Load.Rate > 300 || !strings.Contains(rec.Load.Rule, "kept up") {
		t.Errorf("QA load %+v", rec.Load)
	}
	for _, p := range []string{"tests/saturation/base/search/saturate.json", "tests/saturation/cand/grid/sweep.json",
		"tests/long/ab.json", "tests/long/compare.json", "tests/long/runs/02-cand/run.json", "tests/partition/runs/01-base/run.json",
		"manifests/cand.toml", results.QAReportFile, results.QAHTMLFile} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Error(err)
		}
	}
	// the long test runs both sides at the QA load, counterbalanced
	if m, err := manifest.Load(filepath.Join(dir, "tests/long/manifests/cand.toml")); err != nil {
		t.Error(err)
	} else if r, err := m.Resolve(); err != nil || r.Load.Rate != rec.Load.Rate || r.Load.Connections != 1 {
		t.Errorf("long test's candidate: %v, load %+v", err, r.Load)
	}
	if m, err := manifest.Load(filepath.Join(dir, "tests/partition/manifests/base.toml")); err != nil {
		t.Error(err)
	} else if r, err := m.Resolve(); err != nil || r.Partition == nil || r.Partition.Split != "50/50" {
		t.Errorf("partition's baseline: %v, %+v", err, r.Partition)
	}
	md, err := os.ReadFile(filepath.Join(dir, results.QAReportFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"# QA: cand against base — PASS", "| Long test at the QA load | pass |", "## Setup", "### Plan",
		"## Saturation point", "| knee × ½ |", "## QA load", "**c = 1, r = ", "## Long test at the QA load", "| Block latency p50 |",
		"## Network partition", "## Absent stake", "## Rotating nodes", "## Vote-extension sizes", "| app.vote_extension_size | runs |",
		"[tests/vote-extensions/sweep.md]", "## Storage matrix", "| app.retain_blocks | runs | height |",
		"| 0 | 1 | 21 | 12.8 | 0.1 | 36.3 | extrapolated from 3s |", "| 10 | 1 | 21 | 12.7 | 0.0 | — | extrapolated from 3s |", // held flat: one size, no slope
		"[01-base](tests/long/runs/01-base/report.md)"} {
		if !strings.Contains(string(md), s) {
			t.Errorf("qa.md lacks %q", s)
		}
	}
	if os.Getenv("QA_MD") != "" {
		t.Logf("%s", md)
	}
	if !strings.Contains(out.String(), "qa: step 3/9, Long test at the QA load: ≈ 4 runs") || !strings.Contains(out.String(), "left (") {
		t.Errorf("progress:\n%s", out.String())
	}
}

// TestQAResume: a QA killed in its long test resumes there: the
// saturation step and the finished round are kept, the rest runs.
func TestQAResume(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "qa")
	f := &fakeQA{t: t, knee: 300}
	opts := qaTestOptions(t, dir, f)
	satRuns := 2 * (3 + 6) // per side: 3 search runs, 2 × 3 grid cells
	f.interruptAt = satRuns + 3
	_, err := Run(context.Background(), opts)
	if code, _ := exitcode.Of(err); code != exitcode.Interrupted {
		t.Fatalf("interrupted QA: %v (code %d)", err, code)
	}
	rec, err := results.ReadQA(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s := rec.Step(plan.Long); s.Status != results.QAInterrupted || rec.Step(plan.Saturation).Status != results.QADone || rec.Status != results.StatusInterrupted {
		t.Fatalf("after the kill: long %s, saturation %s, QA %s", s.Status, rec.Step(plan.Saturation).Status, rec.Status)
	}

	g := &fakeQA{t: t, knee: 300}
	res, err := Resume(context.Background(), dir, series.Env{Exec: g.run})
	if err != nil || !res.Finished || res.Record.Verdict != results.QAVerdictPass {
		t.Fatalf("resumed: %v, %+v", err, res.Record.Verdict)
	}
	for _, c := range g.calls {
		if strings.Contains(c, "saturation") || strings.HasSuffix(c, filepath.Join("long", "runs", "01-base")) || strings.HasSuffix(c, filepath.Join("long", "runs", "01-cand")) {
			t.Errorf("resumed QA ran %s again", c)
		}
	}
	if !strings.HasSuffix(g.calls[0], filepath.Join("long", "runs", "02-cand")) {
		t.Errorf("resumed at %s, want the second round", g.calls[0])
	}
	if _, err := os.Stat(filepath.Join(dir, "tests/long/runs/02-cand.interrupted")); err != nil {
		t.Errorf("the interrupted run was not set aside: %v", err)
	}
}

// TestQAStepFails: a step whose runs fail is recorded failed, the other
// steps go on, and the QA ends with exit code 3.
func TestQAStepFails(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "qa")
	f := &fakeQA{t: t, knee: 300, fail: "/partition/"}
	res, err := Run(context.Background(), qaTestOptions(t, dir, f))
	if code, _ := exitcode.Of(err); code != exitcode.Partial || !errors.Is(err, series.ErrSomeFailed) {
		t.Fatalf("error %v (code %d), want exit 3", err, code)
	}
	p, a := res.Record.Step(plan.Partition), res.Record.Step(plan.AbsentStake)
	if p.Status != results.StatusFailed || p.Verdict != results.QAVerdictFailed || !strings.Contains(p.Error, "the testnet did not start") {
		t.Errorf("partition %+v", p)
	}
	if a.Status != results.QADone || res.Record.Verdict != results.QAVerdictFailed {
		t.Errorf("absent stake %s, verdict %s", a.Status, res.Record.Verdict)
	}
}

// TestQARegression: a candidate whose blocks commit 400 ms later in every
// run is a regression of the long test (exit code 4), named in the
// report's table.
func TestQARegression(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "qa")
	f := &fakeQA{t: t, knee: 300, slowCand: 400e6}
	opts := qaTestOptions(t, dir, f)
	opts.Plan.Steps[3].Skip, opts.Plan.Steps[5].Skip, opts.Plan.Steps[6].Skip = "skipped: --skip", "skipped: --skip", "skipped: --skip"
	res, err := Run(context.Background(), opts)
	if code, _ := exitcode.Of(err); code != exitcode.Regression || !errors.Is(err, ErrRegression) {
		t.Fatalf("error %v (code %d), want exit 4", err, code)
	}
	long := res.Record.Step(plan.Long)
	got := map[string]string{}
	for _, fig := range long.Figures {
		got[fig.ID] = fig.Verdict
	}
	if long.Verdict != results.QAVerdictRegression || got["block_latency_p50_ms"] != string(compare.QARegression) {
		t.Errorf("long test %s: %v", long.Verdict, got)
	}
	md, err := os.ReadFile(filepath.Join(dir, results.QAReportFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "| Long test at the QA load | **REGRESSION** |") || !strings.Contains(string(md), "**regression**") {
		t.Errorf("qa.md:\n%s", md)
	}
}

// TestQAMoreRounds: a long test whose candidate is slower by over 10 %
// on average but swings round to round is undecided after its 2 planned
// rounds: it gets more rounds, one at a time, up to the budget of 6, and
// each of its figures ends decided or says "undecided after N rounds".
func TestQAMoreRounds(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "qa")
	f := &fakeQA{t: t, knee: 300, slowCand: 150e6, swing: 400e6}
	opts := qaTestOptions(t, dir, f)
	for i := range opts.Plan.Steps {
		if id := opts.Plan.Steps[i].ID; id != plan.Saturation && id != plan.LoadStep && id != plan.Long {
			opts.Plan.Steps[i].Skip = "skipped: --skip"
		}
	}
	res, err := Run(context.Background(), opts)
	if code, _ := exitcode.Of(err); code != exitcode.OK && code != exitcode.Regression {
		t.Fatalf("error %v (code %d)", err, code)
	}
	rec, err := series.ReadAB(filepath.Join(dir, "tests", plan.Long))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Pairs <= 2 || rec.Pairs > 6 {
		t.Fatalf("the long test ran %d rounds, want more than its 2, at most 6", rec.Pairs)
	}
	long := res.Record.Step(plan.Long)
	for _, fig := range long.Figures {
		if fig.ID != "block_latency_p50_ms" {
			continue
		}
		undecided := compare.QAVerdict(fig.Verdict) == compare.QABeyondNotSignificant
		if undecided && fig.UndecidedAfter != rec.Pairs {
			t.Errorf("%s undecided after %d rounds, the test ran %d", fig.ID, fig.UndecidedAfter, rec.Pairs)
		}
		if !undecided && rec.Pairs == 6 {
			t.Logf("%s decided %s after all 6 rounds", fig.ID, fig.Verdict)
		}
		t.Logf("%s: %s after %d rounds (undecided after %d)", fig.ID, fig.Verdict, rec.Pairs, fig.UndecidedAfter)
		if long.RoundsBudget != 6 {
			t.Errorf("the long test's budget of rounds recorded as %d, want 6", long.RoundsBudget)
		}
		// The report made again judges by the same horizon and the rounds
		// it has: the same verdict, and an undecided figure still says
		// after how many rounds.
		again, err := Report(dir, "test", func(string, ...any) {})
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range again.Step(plan.Long).Figures {
			if g.ID == fig.ID && (g.Verdict != fig.Verdict || g.UndecidedAfter != fig.UndecidedAfter) {
				t.Errorf("made again: %s undecided after %d, the run's %s after %d", g.Verdict, g.UndecidedAfter, fig.Verdict, fig.UndecidedAfter)
			}
		}
		return
	}
	t.Fatalf("no block_latency_p50_ms figure: %+v", long.Figures)
}

// TestQAUpgrade: the rolling upgrade is one run of the baseline through
// the series runner, its nodes restarted on the candidate's release in
// turn; it passes when the run is complete and safe.
func TestQAUpgrade(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "qa")
	f := &fakeQA{t: t, knee: 300}
	l, _ := cometbft.LineByPrefix("v0.38")
	v038 := l.Proven
	sides, labels := defaultOn(t, "v0.38.19"), []string{"v0.38.19", v038}
	sides = append(sides, defaultOn(t, v038)...)
	skip := []string{plan.Saturation, plan.Long, plan.Rotation, plan.VoteExtensions, plan.Partition, plan.AbsentStake, plan.Storage}
	pl, err := plan.Make(plan.Input{Sides: sides, Labels: labels, Skip: skip})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Options{Sides: sides, Labels: labels, Baseline: "v0.38.19", Candidate: v038, Plan: pl,
		Thresholds: compare.DefaultThresholds(), Dir: dir, Env: series.Env{Exec: f.run}})
	if err != nil {
		t.Fatal(err)
	}
	up := res.Record.Step(plan.Upgrade)
	if up.Status != results.QADone || up.Verdict != results.QAVerdictPass || !strings.Contains(up.Summary, "every node restarted on "+v038) ||
		len(f.calls) != 1 || f.calls[0] != filepath.Join(dir, "tests", "upgrade") {
		t.Errorf("upgrade %+v, runs %v", up, f.calls)
	}
	if ps := f.last.Perturbations; len(ps) != 4 || ps[0].Action != manifest.ActionUpgrade || ps[0].To != v038 || f.last.CometBFTVersion != "v0.38.19" {
		t.Errorf("the upgrade run's perturbations: %+v", ps)
	}
}

// TestQAReportReanalyses: cometlab report on a QA directory analyses its
// runs again and derives every verdict from them, so that a verdict an
// older analysis left in qa.json (here a stale "unsafe" on the long test
// and on the QA) is gone when today's analysis does not give it, and
// qa.json and the report name the cometlab that analysed them.
func TestQAReportReanalyses(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "qa")
	f := &fakeQA{t: t, knee: 300, safe: true}
	opts := qaTestOptions(t, dir, f)
	for i := range opts.Plan.Steps {
		if id := opts.Plan.Steps[i].ID; id != plan.Saturation && id != plan.LoadStep && id != plan.Long {
			opts.Plan.Steps[i].Skip = "skipped: --skip"
		}
	}
	res, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatalf("the QA: %v", err)
	}
	want := res.Record.Step(plan.Long).Verdict
	rec := res.Record
	st := rec.Step(plan.Long)
	st.Verdict, st.Summary, rec.Verdict = results.QAVerdictUnsafe, "safety violation in 1 run(s): an old analysis", results.QAVerdictUnsafe
	if err := results.WriteJSON(filepath.Join(dir, results.QAFile), rec); err != nil {
		t.Fatal(err)
	}
	var said []string
	got, err := Report(dir, "v9 (commit 0123456789ab)", func(format string, a ...any) { said = append(said, fmt.Sprintf(format, a...)) })
	if err != nil {
		t.Fatal(err)
	}
	if long := got.Step(plan.Long); long.Verdict != want || got.Verdict == results.QAVerdictUnsafe || got.AnalyzedBy != "v9 (commit 0123456789ab)" {
		t.Errorf("after report: long test %q (want %q), QA %q, analysed by %q", long.Verdict, want, got.Verdict, got.AnalyzedBy)
	}
	onDisk, err := results.ReadQA(dir)
	if err != nil || onDisk.Verdict != got.Verdict || onDisk.AnalyzedBy != got.AnalyzedBy {
		t.Errorf("qa.json: %v, verdict %q, analysed by %q", err, onDisk.Verdict, onDisk.AnalyzedBy)
	}
	md, err := os.ReadFile(filepath.Join(dir, results.QAReportFile))
	if err != nil || !strings.Contains(string(md), "derived again by cometlab v9 (commit 0123456789ab)") || strings.Contains(string(md), "UNSAFE") {
		t.Errorf("qa.md (%v) does not name the analysing cometlab, or still says UNSAFE:\n%.2000s", err, md)
	}
	if len(said) < 2 {
		t.Errorf("said %q, want a line per finished step", said)
	}
	// The provenance table counts every side's runs, from their run.json.
	for _, want := range []string{"### Provenance", "| runs analysed | ", "| load that ran | ", "| heights analysed | "} {
		if !strings.Contains(string(md), want) {
			t.Errorf("qa.md lacks %q", want)
		}
	}
	if os.Getenv("COMETLAB_SHOW_QA") != "" {
		t.Logf("%s", md)
	}
}
