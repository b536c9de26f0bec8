package series

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/compare"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/saturation"
	"github.com/cometlab/cometlab/internal/sequential"
)

// abFixtureRun is a recorded run, by its absolute path (the tests change
// their working directory).
var abFixtureRun, _ = filepath.Abs("../../testdata/runs/small")

// fakeRounds stands in for the runner: each run copies a recorded run
// into its directory (and a file naming the call). At call interruptAt it
// calls atInterrupt, leaves a half-written directory and reports the run
// interrupted, as a Ctrl-C does.
type fakeRounds struct {
	t           *testing.T
	calls       []string // the run directories, in order
	interruptAt int      // 1-based; 0 never
	atInterrupt func()
}

func (f *fakeRounds) run(_ context.Context, _ manifest.Resolved, dir string) Outcome {
	f.calls = append(f.calls, filepath.Base(dir))
	if len(f.calls) == f.interruptAt {
		if f.atInterrupt != nil {
			f.atInterrupt()
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			f.t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, results.SentFile), []byte("half\n"), 0o644); err != nil {
			f.t.Fatal(err)
		}
		return Outcome{Status: results.StatusInterrupted, Err: errors.New("interrupted")}
	}
	if err := os.CopyFS(dir, os.DirFS(abFixtureRun)); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "call"), []byte(strings.Join(f.calls, " ")), 0o644); err != nil {
		f.t.Fatal(err)
	}
	return Outcome{Status: results.StatusComplete}
}

func abTestOptions(t *testing.T, dir, repeat string) ABOptions {
	t.Helper()
	def := manifest.Default()
	m, err := def.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	return ABOptions{Sides: []manifest.Resolved{m, m}, Labels: []string{"base", "cand"}, Candidates: []string{"consensus.timeout_commit=2s"},
		Repeat: repeat, MaxPairs: 4, Order: "interleaved", Seed: 1, Thresholds: compare.DefaultThresholds(), Stop: "all",
		Dir: dir, Command: "cometlab ab --cand 'consensus.timeout_commit=2s'"}
}

// startAB is AB with fake rounds (and, when look is not nil, a fake look).
func startAB(t *testing.T, ctx context.Context, opts ABOptions, f *fakeRounds, look func([][]string) ([]sequential.Decision, bool, error)) (ABResult, error) {
	t.Helper()
	l, err := newAB(opts)
	if err != nil {
		t.Fatal(err)
	}
	l.run, l.look = f.run, look
	return l.do(ctx)
}

func resumeWith(t *testing.T, dir string, f *fakeRounds, look func([][]string) ([]sequential.Decision, bool, error)) (ABResult, error) {
	t.Helper()
	l, err := resumeAB(dir, Env{})
	if err != nil {
		t.Fatal(err)
	}
	l.run, l.look = f.run, look
	return l.do(context.Background())
}

// TestABRecordEveryRound: ab.json is readable before every run, lists the
// runs so far and counts the rounds done; at the end it is complete, with
// the sides' manifests beside it and the comparison written.
func TestABRecordEveryRound(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ab")
	var seen []string
	f := &fakeRounds{t: t}
	run := f.run
	check := func(ctx context.Context, m manifest.Resolved, d string) Outcome {
		rec, err := ReadAB(dir)
		if err != nil {
			t.Fatalf("before %s: %v", d, err)
		}
		seen = append(seen, strings.Join([]string{rec.Status, strconv.Itoa(rec.Pairs), strconv.Itoa(len(rec.Rounds)), filepath.Base(last(rec.Rounds))}, " "))
		return run(ctx, m, d)
	}
	l, err := newAB(abTestOptions(t, dir, "2"))
	if err != nil {
		t.Fatal(err)
	}
	l.run = check
	res, err := l.do(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(seen, []string{"running 0 1 01-base", "running 0 1 01-cand", "running 1 2 02-base", "running 1 2 02-cand"}) {
		t.Errorf("ab.json before each run: %q", seen)
	}
	rec, err := ReadAB(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Finished || rec.Status != results.StatusComplete || rec.Partial || rec.Pairs != 2 || rec.Verdict == "" || res.Compare == nil {
		t.Errorf("finished %v, record %+v", res.Finished, rec)
	}
	wantRounds := [][]string{{abRunDir(dir, 0, "base"), abRunDir(dir, 0, "cand")}, {abRunDir(dir, 1, "base"), abRunDir(dir, 1, "cand")}}
	if !slices.EqualFunc(rec.Rounds, wantRounds, slices.Equal) {
		t.Errorf("rounds %q, want %q", rec.Rounds, wantRounds)
	}
	for _, name := range []string{"manifests/base.toml", "manifests/cand.toml", results.CompareMD, results.CompareJSON} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
	if _, err := newAB(abTestOptions(t, dir, "2")); err == nil || !strings.Contains(err.Error(), "--resume") {
		t.Errorf("a second experiment in the same directory: %v", err)
	}
}

// TestABKilledResumes: an experiment killed during its second round
// leaves ab.json with the first round done; --resume keeps that round's
// runs, sets the killed run aside and runs the second round again, from
// another working directory than the one the experiment started in.
func TestABKilledResumes(t *testing.T) {
	root := t.TempDir()
	t.Chdir(root)
	var killed []byte
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := &fakeRounds{t: t, interruptAt: 3, atInterrupt: func() {
		var err error
		if killed, err = os.ReadFile(filepath.Join("ab", ABFile)); err != nil {
			t.Fatal(err)
		}
		cancel()
	}}
	res, err := startAB(t, ctx, abTestOptions(t, "ab", "2"), f, nil)
	if code, _ := exitcode.Of(err); code != exitcode.Interrupted {
		t.Fatalf("interrupted: %v (exit %d)", err, code)
	}
	if rec := res.Record; rec.Status != results.StatusInterrupted || !rec.Partial || rec.Pairs != 1 || len(rec.Rounds) != 2 || len(rec.Rounds[1]) != 1 {
		t.Errorf("after Ctrl-C: %+v", rec)
	}
	// A SIGKILL instead: ab.json as it was when the third run began.
	if err := os.WriteFile(filepath.Join("ab", ABFile), killed, 0o644); err != nil {
		t.Fatal(err)
	}
	rec, err := ReadAB("ab")
	if err != nil || rec.Status != results.StatusRunning || rec.Pairs != 1 {
		t.Fatalf("killed: %v %+v", err, rec)
	}
	first, _ := os.ReadFile(filepath.Join("ab", "runs", "01-cand", "call"))

	t.Chdir(t.TempDir())
	dir := filepath.Join(root, "ab")
	g := &fakeRounds{t: t}
	res, err = resumeWith(t, dir, g, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(g.calls, []string{"02-base", "02-cand"}) {
		t.Errorf("resume ran %v, want the second round", g.calls)
	}
	rec = res.Record
	wantRounds := [][]string{{abRunDir(dir, 0, "base"), abRunDir(dir, 0, "cand")}, {abRunDir(dir, 1, "base"), abRunDir(dir, 1, "cand")}}
	if rec.Status != results.StatusComplete || rec.Partial || rec.Pairs != 2 || !slices.EqualFunc(rec.Rounds, wantRounds, slices.Equal) {
		t.Errorf("after resume: %+v", rec)
	}
	if again, _ := os.ReadFile(filepath.Join(dir, "runs", "01-cand", "call")); string(again) != string(first) || len(first) == 0 {
		t.Errorf("the first round ran again: %q → %q", first, again)
	}
	if _, err := os.Stat(filepath.Join(dir, "runs", "02-base.interrupted", results.SentFile)); err != nil {
		t.Errorf("the killed run was not set aside: %v", err)
	}
	if rec.Command != "cometlab ab --cand 'consensus.timeout_commit=2s'" {
		t.Errorf("command %q: want the experiment's", rec.Command)
	}
}

// TestABAutoResume: with --repeat auto, the look after each round decides
// whether another runs; a resumed experiment looks at the rounds done
// first, and one that had decided runs nothing more.
func TestABAutoResume(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ab")
	looks := 0
	look := func(dirs [][]string) ([]sequential.Decision, bool, error) {
		looks++
		n := len(dirs[0])
		d := sequential.Decision{Metrics: []sequential.Result{{ID: "block_latency_p50_ms", Outcome: sequential.Undecided, Pairs: n}}}
		if n >= 3 {
			d.Metrics[0].Outcome, d.Metrics[0].DecidedAt, d.Stop = sequential.Worse, n, true
		}
		return []sequential.Decision{d}, d.Stop, nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := &fakeRounds{t: t, interruptAt: 5, atInterrupt: cancel}
	if _, err := startAB(t, ctx, abTestOptions(t, dir, "auto"), f, look); err == nil {
		t.Fatal("no error from an interrupted experiment")
	}
	if looks != 2 {
		t.Errorf("%d looks in 2 rounds", looks)
	}
	g := &fakeRounds{t: t}
	res, err := resumeWith(t, dir, g, look)
	if !errors.Is(err, ErrWorse) {
		t.Fatalf("error %v, want ErrWorse (the verdict is worse: exit 4)", err)
	}
	if !slices.Equal(g.calls, []string{"03-base", "03-cand"}) || looks != 4 {
		t.Errorf("resume ran %v after %d looks in all", g.calls, looks)
	}
	rec := res.Record
	if rec.Pairs != 3 || rec.Verdict != compare.Worse || rec.Status != results.StatusComplete || len(rec.Sequential) != 1 {
		t.Errorf("after resume: %+v", rec)
	}
	md, err := os.ReadFile(filepath.Join(dir, results.CompareMD))
	if err != nil || !strings.Contains(string(md), "## A/B verdict: WORSE after 3 pairs (sequential)") {
		t.Errorf("report: %v\n%.600s", err, md)
	}
	h := &fakeRounds{t: t}
	if res, err = resumeWith(t, dir, h, look); !errors.Is(err, ErrWorse) || len(h.calls) > 0 || res.Record.Pairs != 3 {
		t.Errorf("resuming a decided experiment ran %v (%v)", h.calls, err)
	}
}

// TestABOldRecord: an ab.json of an older cometlab (written once, at the
// end, without the sides) still reads, and --resume says why it cannot
// continue it.
func TestABOldRecord(t *testing.T) {
	dir := t.TempDir()
	old := `{"base": "", "candidates": ["v0.40.0"], "repeat": "3", "max_pairs": 10, "order": "interleaved", "seed": 1,
"method": "m", "alpha": 0.05, "pairs": 3, "rounds": [["ab/runs/01-base", "ab/runs/01-v0.40.0"]], "verdict": "no_change",
"stop": "worse", "metrics": ["committed_tps"]}`
	if err := os.WriteFile(filepath.Join(dir, ABFile), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	rec, err := ReadAB(dir)
	if err != nil || rec.Pairs != 3 || rec.Verdict != compare.NoChange || !slices.Equal(rec.Judged, []string{"committed_tps"}) || len(rec.Rounds) != 1 {
		t.Errorf("old ab.json: %v %+v", err, rec)
	}
	if _, err := ResumeAB(context.Background(), dir, Env{}); err == nil || !strings.Contains(err.Error(), "older cometlab") {
		t.Errorf("resume of an old ab.json: %v", err)
	}
	if _, err := ResumeAB(context.Background(), filepath.Join(dir, "none"), Env{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("resume of nothing: %v", err)
	}
}

func last(rounds [][]string) string {
	if len(rounds) == 0 || len(rounds[len(rounds)-1]) == 0 {
		return ""
	}
	r := rounds[len(rounds)-1]
	return r[len(r)-1]
}

// TestABCalibrationReport: an A/A's report opens with its calibration and
// the position effect, states the order, and has no verdict headline; the
// default order is counterbalanced (the candidate first in round 2).
func TestABCalibrationReport(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ab")
	opts := abTestOptions(t, dir, "2")
	opts.AA, opts.Order, opts.Candidates = true, "", []string{""}
	res, err := startAB(t, context.Background(), opts, &fakeRounds{t: t}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Record.Rounds; len(r) != 2 || filepath.Base(r[0][0]) != "01-base" || filepath.Base(r[1][0]) != "02-cand" {
		t.Errorf("rounds %q: want the base first in round 1, the candidate in round 2", r)
	}
	b, err := os.ReadFile(filepath.Join(dir, "compare.md"))
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	if !strings.HasPrefix(md, "# A/A calibration: cand vs base\n\n## A/A calibration: the between-run noise") {
		t.Errorf("compare.md does not open with the calibration:\n%.400s", md)
	}
	for _, want := range []string{"**Position effect**", "Order of the runs in each round: counterbalanced", "## The fixed-sample comparison of the pairs", "called **no metric changed**"} {
		if !strings.Contains(md, want) {
			t.Errorf("compare.md lacks %q", want)
		}
	}
	if strings.Contains(md, "**Verdict:") {
		t.Error("an A/A report has a verdict headline")
	}
	n, err := compare.ReadNoise(filepath.Join(dir, NoiseFile))
	if err != nil || len(n.Position) == 0 {
		t.Errorf("noise.json: position %+v, %v", n, err)
	}
}

// TestABDisturbedRound: a round whose host was busy with other work is run
// again once, its first runs kept aside and the rerun recorded; busy again,
// it is kept, and recorded so.
func TestABDisturbedRound(t *testing.T) {
	for _, tc := range []struct {
		name    string
		busy    map[int]bool // calls (1-based) whose host was busy
		calls   string
		actions []string
	}{
		{"busy once", map[int]bool{4: true}, "01-base 01-cand 02-cand 02-base 02-cand 02-base", []string{results.ActionRunAgain}},
		{"busy again", map[int]bool{3: true, 6: true}, "01-base 01-cand 02-cand 02-base 02-cand 02-base", []string{results.ActionRunAgain, results.ActionKept}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "ab")
			f := &fakeRounds{t: t}
			busy := 30.0
			run := func(ctx context.Context, m manifest.Resolved, d string) Outcome {
				o := f.run(ctx, m, d)
				if tc.busy[len(f.calls)] {
					o.Evidence = &saturation.Evidence{HostBusyPct: &busy}
				}
				return o
			}
			opts := abTestOptions(t, dir, "2")
			opts.Order = OrderCounterbalanced
			l, err := newAB(opts)
			if err != nil {
				t.Fatal(err)
			}
			l.run = run
			res, err := l.do(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(f.calls, " "); got != tc.calls {
				t.Errorf("calls %q, want %q", got, tc.calls)
			}
			var actions []string
			for _, d := range res.Record.Disturbed {
				actions = append(actions, d.Action)
				if d.Round != 2 || !strings.Contains(d.Why, "30 % of the host's CPU went to other work") {
					t.Errorf("disturbance %+v", d)
				}
			}
			if !slices.Equal(actions, tc.actions) {
				t.Errorf("actions %q, want %q", actions, tc.actions)
			}
			if _, err := os.Stat(filepath.Join(dir, "runs", "02-cand.disturbed")); err != nil {
				t.Errorf("the disturbed run was not kept aside: %v", err)
			}
			if res.Record.Pairs != 2 {
				t.Errorf("%d pairs, want 2", res.Record.Pairs)
			}
		})
	}
}
