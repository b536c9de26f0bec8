package qa_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/compare"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/experiment/experimenttest"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/qa"
	"github.com/cometlab/cometlab/internal/qa/plan"
	"github.com/cometlab/cometlab/internal/report"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/saturation"
	"github.com/cometlab/cometlab/internal/series"
)

// A whole QA on real nodes, as small as it can be — the default testnet
// (4 validators, the default release) with 6 s runs, the candidate the
// same with consensus.timeout_commit doubled — in two tests that run beside
// each other (each Proves): TestQARealNodes the saturation search and grid,
// the QA load and the long test; TestQAScenariosRealNodes, at the
// manifest's load (the saturation step skipped), the partition, absent
// stake and the storage matrix. Together they are every step of the method
// that one release on both sides can run: the upgrade is skipped (both
// sides run one release), rotation too (6-s runs cannot rotate a node), and
// the vote-extension sweep, whose e2e app takes minutes to build on a fresh
// machine (TestQASteps runs it with fake runs, and the e2e app's tests run
// it for real).

// TestQARealNodes: each side's search of one run and a grid of one cell (c
// = 1, r = the knee), then the long test, one round. It completes, its
// sections are in the report, the QA load is the candidate's, and the
// candidate's slower blocks show in the long test's latency (single runs:
// beyond the threshold, not significant over repeats).
func TestQARealNodes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real testnets")
	}
	experimenttest.Proves(t)
	rec, dir, md := realQA(t, plan.VoteExtensions, plan.Rotation, plan.Partition, plan.AbsentStake, plan.Storage)
	if rec.Load == nil || rec.Load.Connections != 1 {
		t.Errorf("QA load %+v", rec.Load)
	}
	lat := map[string]string{}
	for _, fig := range rec.Step(plan.Long).Figures {
		if fig.ID == "block_latency_p50_ms" && fig.DeltaPct != nil {
			t.Logf("long test: block latency p50 %.0f → %.0f ms (%+.0f %%): %s", *fig.Baseline, *fig.Candidate, *fig.DeltaPct, fig.Verdict)
			lat[fig.ID] = fig.Verdict
			if *fig.DeltaPct < 10 {
				t.Errorf("timeout_commit doubled moved block latency p50 by %+.1f %% only", *fig.DeltaPct)
			}
		}
	}
	if lat["block_latency_p50_ms"] == string(compare.QAPass) || lat["block_latency_p50_ms"] == "" {
		t.Errorf("long test's block latency p50: %q", lat["block_latency_p50_ms"])
	}
	for _, s := range []string{"## Setup", "## Saturation point", "| knee × 1 |", "## QA load", "## Long test at the QA load",
		"## Steps not run", "/report.md)"} {
		if !strings.Contains(md, s) {
			t.Errorf("qa.md lacks %q", s)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, results.QAHTMLFile)); err != nil {
		t.Error(err)
	}
}

// TestQAScenariosRealNodes: the partition and absent stake, one round each,
// and the storage matrix (v0.40: pruning or not, one run each), at the
// manifest's load. It completes, neither scenario is unsafe, both data
// directories of the storage matrix grew (each run its own figure), and
// the sections are in the report.
func TestQAScenariosRealNodes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real testnets")
	}
	experimenttest.Proves(t)
	rec, dir, md := realQA(t, plan.Saturation, plan.Long, plan.VoteExtensions, plan.Rotation)
	if st := rec.Step(plan.Storage); st.Status != results.QADone || st.Verdict != results.QAVerdictNotJudged || !strings.Contains(st.Summary, "(extrapolated from 6s)") {
		t.Errorf("storage: %s, %s, %q (%s)", st.Status, st.Verdict, st.Summary, st.Error)
	}
	if sw, err := saturation.ReadSweep(filepath.Join(dir, "tests", "storage")); err != nil {
		t.Error(err)
	} else if rows := report.QAStorageRows(filepath.Join(dir, "tests", "storage"), sw); len(rows) != 2 {
		t.Errorf("storage rows %+v", rows)
	} else {
		for _, r := range rows {
			t.Logf("storage %v: height %.0f, data dir %.1f MiB, %.1f MiB/h (%s)", r.Settings, r.Heights, r.DataEndMiB, r.PerHourMiB, r.Basis())
			if !(r.PerHourMiB > 0) || !(r.DataEndMiB > 0) || r.Measured() {
				t.Errorf("storage %v: %+v", r.Settings, r)
			}
		}
	}
	for _, s := range []string{"## Setup", "## Network partition", "## Absent stake", "## Storage matrix", "| app.retain_blocks |",
		"## Steps not run", "/report.md)"} {
		if !strings.Contains(md, s) {
			t.Errorf("qa.md lacks %q", s)
		}
	}
}

// realQA runs the small QA of the default testnet against it with
// consensus.timeout_commit doubled, the steps skip skipped, and checks what
// every such QA must be: complete, each step it skipped or did not plan
// skipped, each other done and safe. It returns the record, the QA's
// directory and its report.
func realQA(t *testing.T, skip ...string) (results.QARecord, string, string) {
	t.Helper()
	f := experimenttest.Fetcher(t)
	d := 6 * time.Second
	src := manifest.Source{Overrides: manifest.Overrides{Duration: &d}}
	sides, labels, err := series.ABSides(src, "", []string{"consensus.timeout_commit=2s"}, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	pl := noMoreRounds(t, plan.Input{Sides: sides, Labels: labels, Repeat: 1, Connections: []int{1},
		Factors: []float64{1}, SearchRuns: 1, Skip: skip})
	dir := filepath.Join(t.TempDir(), "qa")
	var out bytes.Buffer
	ctx, progress, stop := watchQA(t, &out)
	start := time.Now()
	res, err := qa.Run(ctx, qa.Options{Sides: sides, Labels: labels, Candidate: "consensus.timeout_commit=2s",
		Plan: pl, Thresholds: compare.DefaultThresholds(), Dir: dir, Command: t.Name(),
		Env: series.Env{Env: experiment.Env{Fetcher: f, Out: progress, Version: "test"}, MaxRemeasures: -1}})
	wall := time.Since(start)
	stop()
	t.Logf("QA wall time %v, planned %v", wall.Round(time.Second), results.Seconds(pl.EstimateS))
	if code, _ := exitcode.Of(err); err != nil && code != exitcode.Regression {
		t.Fatalf("QA: %v (code %d)", err, code)
	}
	rec := res.Record
	if !res.Finished || rec.Status != results.StatusComplete {
		t.Fatalf("QA %s, finished %v", rec.Status, res.Finished)
	}
	runs := 0
	for _, st := range rec.Steps {
		t.Logf("%-16s %-10s %-12s %s", st.ID, st.Status, st.Verdict, st.Summary+st.Error)
		switch {
		case st.ID == plan.Upgrade || slices.Contains(skip, st.ID):
			if st.Status != results.QASkipped {
				t.Errorf("%s %s, want skipped", st.ID, st.Status)
			}
		case st.ID == plan.LoadStep && slices.Contains(skip, plan.Saturation): // the manifest's load
		default:
			if st.Status != results.QADone || st.Verdict == results.QAVerdictUnsafe {
				t.Errorf("%s: %s, %s (%s)", st.ID, st.Status, st.Verdict, st.Error)
			}
		}
		for _, d := range st.Dirs {
			runs += len(runDirs(t, filepath.Join(dir, d)))
		}
	}
	t.Logf("%d runs: %v per run on average", runs, (wall / time.Duration(max(runs, 1))).Round(time.Second))
	md, err := os.ReadFile(filepath.Join(dir, results.QAReportFile))
	if err != nil {
		t.Fatal(err)
	}
	return rec, dir, string(md)
}

// runDirs are the run directories under root.
func runDirs(t *testing.T, root string) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		if err != nil || !e.IsDir() {
			return err
		}
		if _, err := os.Stat(filepath.Join(p, results.RunFile)); err == nil {
			dirs = append(dirs, p)
			return filepath.SkipDir
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// qaDeadline bounds a real-node QA test: its QA is interrupted past it
// and the test fails, with where it was (watchQA), rather than hold the
// node lock until go test's own timeout. The QAs here take 1–5 minutes.
const qaDeadline = 12 * time.Minute

// watchQA is a context for a real-node QA test's qa.Run that ends at
// qaDeadline, and a writer for its progress that keeps it in buf and
// says each line in the test's log as it comes (so that a QA that hangs
// in CI shows its last step there). When the deadline passes, every
// goroutine's stack is taken at that moment (where the QA was, not where
// it ended after being interrupted); stop, called once qa.Run returns,
// fails the test with them.
func watchQA(t *testing.T, buf *bytes.Buffer) (ctx context.Context, out io.Writer, stop func()) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), qaDeadline)
	stacks := make(chan []byte, 1)
	context.AfterFunc(ctx, func() {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			b := make([]byte, 1<<20)
			stacks <- b[:runtime.Stack(b, true)]
		}
	})
	lw := &lineLog{t: t}
	return ctx, io.MultiWriter(buf, lw), func() {
		expired := errors.Is(ctx.Err(), context.DeadlineExceeded)
		cancel()
		lw.close()
		if expired {
			t.Errorf("the QA ran past %v; the goroutines then:\n%s", qaDeadline, <-stacks)
		}
	}
}

// lineLog says each whole line written to it in t's log, until closed.
type lineLog struct {
	mu      sync.Mutex
	t       *testing.T
	partial []byte
	closed  bool
}

func (l *lineLog) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return len(b), nil
	}
	l.partial = append(l.partial, b...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			break
		}
		l.t.Log("qa progress: " + string(l.partial[:i]))
		l.partial = l.partial[i+1:]
	}
	return len(b), nil
}

func (l *lineLog) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
}

// noMoreRounds is the plan of in under a budget that pays for it and no
// round more: an undecided figure stays undecided after the planned
// rounds (TestQAMoreRounds proves the more rounds on fake runs; here each
// would be minutes of testnets).
func noMoreRounds(t *testing.T, in plan.Input) results.QAPlan {
	t.Helper()
	pl, err := plan.Make(in)
	if err != nil {
		t.Fatal(err)
	}
	in.Budget = time.Duration(pl.EstimateS*float64(time.Second)) + time.Second
	if pl, err = plan.Make(in); err != nil {
		t.Fatal(err)
	}
	return pl
}
