package qa

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cometlab/cometlab/internal/compare"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/qa/plan"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/series"
)

// Options configure a new QA: the two sides, their plan (plan.Make) and
// where it goes.
type Options struct {
	// Sides are the baseline's and the candidate's resolved manifests and
	// Labels their names, as ABSides returns them; Baseline and Candidate
	// the specs as the user wrote them (recorded).
	Sides               []manifest.Resolved
	Labels              []string
	Baseline, Candidate string
	Plan                results.QAPlan
	// Thresholds judge every compared test (DefaultPct is --threshold).
	Thresholds compare.Thresholds
	// Dir is the QA directory; "" means qa/<UTC time>.
	Dir     string
	Command string
	Env     series.Env
}

// Result is what a QA (or its resumption) produced.
type Result struct {
	Dir    string
	Record results.QARecord
	// Finished is set when the QA came to its end (complete or
	// interrupted) and its record and report were written.
	Finished bool
}

// DefaultDir is qa/<UTC time> under the current directory.
func DefaultDir(now time.Time) string {
	return filepath.Join("qa", now.UTC().Format("20060102-150405"))
}

// ErrRegression marks a QA one of whose tests found a regression (exit
// code 4).
var ErrRegression = exitcode.With(errors.New("a test found a regression"), exitcode.Regression)

// qaRun runs the steps of one QA.
type qaRun struct {
	dir   string
	rec   *results.QARecord
	sides []manifest.Resolved
	th    compare.Thresholds
	env   series.Env
	out   *experiment.Printer
	start time.Time
	// spareS is the budget's time the plan left over (BudgetS −
	// EstimateS) that more rounds of an undecided test may still spend.
	spareS float64
}

// Run runs the QA method's steps of opts.Plan in order, in DIR: each step's
// runs are ordinary run directories under DIR/tests/, made by the series
// runner (a saturation search and a sweep per side, an A/B experiment per
// compared test, one run for the rolling upgrade), with its disturbance
// policy and safety verdict. qa.json is rewritten before and after each
// step, the report (qa.md, qa.html) after each. A step that fails is
// recorded and the rest go on; an interrupt stops after recording the
// step it interrupted, which Resume runs again. The error carries the
// exit code: 130 interrupted, 5 a run broke safety, 4 a test found a
// regression, 3 a step failed.
func Run(ctx context.Context, opts Options) (Result, error) {
	q, err := newQA(opts)
	if err != nil {
		return Result{Dir: q.dir}, err
	}
	return q.do(ctx)
}

// newQA creates the QA directory: manifests/<label>.toml of both sides and
// the first qa.json.
func newQA(opts Options) (*qaRun, error) {
	dir := opts.Dir
	if dir == "" {
		dir = DefaultDir(time.Now())
	}
	q := &qaRun{dir: dir, sides: opts.Sides, th: opts.Thresholds, env: opts.Env, out: experiment.NewPrinter(opts.Env.Out)}
	if len(opts.Sides) != 2 || len(opts.Labels) != 2 || len(opts.Plan.Steps) == 0 {
		return q, fmt.Errorf("%w QA: want a baseline, a candidate and a plan", series.ErrInvalid)
	}
	if err := experiment.CheckFixedScale(opts.Sides...); err != nil {
		return q, err
	}
	if _, err := os.Stat(filepath.Join(dir, results.QAFile)); err == nil {
		return q, fmt.Errorf("%s already holds a QA; resume it with --resume %s or choose another --out", dir, dir)
	}
	if err := series.WriteSides(dir, opts.Sides, opts.Labels); err != nil {
		return q, err
	}
	rec := &results.QARecord{Kind: "qa", Status: results.StatusRunning, CometlabVersion: opts.Env.Version, Created: time.Now(),
		Command: opts.Command, Host: experiment.HostInfo(), Baseline: opts.Baseline, Candidate: opts.Candidate, Labels: opts.Labels,
		ThresholdPct: opts.Thresholds.DefaultPct, Alpha: opts.Thresholds.Alpha, Plan: opts.Plan}
	for _, m := range opts.Sides {
		rec.Testnets = append(rec.Testnets, series.TestnetInfo(m))
	}
	for _, ps := range opts.Plan.Steps {
		st := results.QAStep{ID: ps.ID, Status: results.QAPending}
		switch {
		case ps.NotBuilt:
			st.Status, st.Summary = results.QANotBuilt, ps.Skip
		case ps.Skip != "" && ps.ID != plan.LoadStep:
			st.Status, st.Summary = results.QASkipped, ps.Skip
		}
		rec.Steps = append(rec.Steps, st)
	}
	q.rec = rec
	return q, q.save()
}

// Resume continues the QA in dir: steps that finished (done, failed,
// skipped) are kept; the one that was running and those pending run, each
// resuming its own series (a search, a sweep or an A/B experiment keeps
// its finished runs; a run left unfinished is set aside as DIR.interrupted).
// The settings are qa.json's and the sides' manifests those in manifests/.
func Resume(ctx context.Context, dir string, env series.Env) (Result, error) {
	q, err := resumeQA(dir, env)
	if err != nil {
		return Result{Dir: dir}, err
	}
	return q.do(ctx)
}

func resumeQA(dir string, env series.Env) (*qaRun, error) {
	rec, err := results.ReadQA(dir)
	if err != nil {
		return nil, fmt.Errorf("resume %s: %w", dir, err)
	}
	if rec.Kind != "qa" || len(rec.Labels) != 2 {
		return nil, fmt.Errorf("resume %s: %s is not a QA's record", dir, results.QAFile)
	}
	q := &qaRun{dir: dir, rec: &rec, env: env, out: experiment.NewPrinter(env.Out),
		th: compare.Thresholds{DefaultPct: rec.ThresholdPct, Alpha: rec.Alpha}}
	if q.sides, err = series.ReadSides(dir, rec.Labels); err != nil {
		return nil, err
	}
	done := 0
	for i := range rec.Steps {
		st := &rec.Steps[i]
		switch st.Status {
		case results.QADone, results.StatusFailed, results.QASkipped, results.QANotBuilt:
			done++
		default:
			st.Status, st.Error = results.QAPending, ""
		}
	}
	rec.Status, rec.Verdict = results.StatusRunning, ""
	q.out.Phase("qa: resuming %s: %d of %d steps finished", dir, done, len(rec.Steps))
	return q, q.save()
}

// save rewrites qa.json atomically.
func (q *qaRun) save() error {
	q.rec.Updated = time.Now()
	return results.WriteJSON(filepath.Join(q.dir, results.QAFile), q.rec)
}

// do runs the steps left in order and finishes the QA.
func (q *qaRun) do(ctx context.Context) (Result, error) {
	q.start = time.Now().Add(-results.Seconds(q.rec.ElapsedS))
	if b := q.rec.Plan.BudgetS; b > 0 {
		q.spareS = b - q.rec.Plan.EstimateS // a resumed QA starts from the plan's again
	}
	res := Result{Dir: q.dir}
	n := len(q.rec.Plan.Steps)
	for i, ps := range q.rec.Plan.Steps {
		st := q.rec.Step(ps.ID)
		if st == nil || st.Status != results.QAPending {
			continue
		}
		if ctx.Err() != nil {
			break
		}
		q.out.Phase("qa: step %d/%d, %s: %s; ≈ %s left (%s so far)", i+1, n, plan.Title(ps.ID), stepLine(ps), plan.FormatSeconds(q.left(i)),
			time.Since(q.start).Round(time.Second))
		st.Status, st.Started, st.Error = results.StatusRunning, time.Now(), ""
		if err := q.save(); err != nil {
			return res, err
		}
		err := q.runStep(ctx, ps, st)
		st.Ended = time.Now()
		q.rec.ElapsedS = time.Since(q.start).Seconds()
		switch code, _ := exitcode.Of(err); {
		case ctx.Err() != nil || code == exitcode.Interrupted:
			st.Status = results.QAInterrupted
		case err != nil:
			st.Status, st.Error, st.Verdict = results.StatusFailed, err.Error(), results.QAVerdictFailed
			q.out.Phase("qa: %s failed: %v; the other steps go on", plan.Title(ps.ID), err)
		default:
			st.Status = results.QADone
			q.out.Phase("qa: %s: %s", plan.Title(ps.ID), stepOutcome(*st))
		}
		if err := q.save(); err != nil {
			return res, err
		}
		q.report()
		if st.Status == results.QAInterrupted {
			break
		}
	}
	return q.finish(ctx)
}

// left is the plan's estimate of steps i and after that have not run.
func (q *qaRun) left(i int) float64 {
	var s float64
	for _, ps := range q.rec.Plan.Steps[i:] {
		if st := q.rec.Step(ps.ID); st != nil && st.Status == results.QAPending {
			s += ps.EstimateS
		}
	}
	return s
}

// stepLine is a planned step in a few words: its runs and estimate.
func stepLine(ps results.QAPlanStep) string {
	runs := 0
	for _, r := range ps.Runs {
		runs += r.Count
	}
	if runs == 0 {
		return "no runs"
	}
	return fmt.Sprintf("≈ %d runs, ≈ %s", runs, plan.FormatSeconds(ps.EstimateS))
}

// stepOutcome is a finished step in a few words.
func stepOutcome(st results.QAStep) string {
	if st.Verdict == "" {
		return st.Summary
	}
	return st.Verdict + ": " + st.Summary
}

// finish sets the QA's status and verdict, writes qa.json and the report
// and returns the error of its end, with its exit code: 130 when it was
// interrupted, else 5 when a run broke safety, 4 when a test found a
// regression, 3 when a step failed.
func (q *qaRun) finish(ctx context.Context) (Result, error) {
	rec := q.rec
	err := q.verdict()
	if rec.Status == results.StatusInterrupted {
		err = exitcode.With(fmt.Errorf("the QA was interrupted: resume it with --resume %s", q.dir), exitcode.Interrupted)
		if ctx.Err() != nil {
			err = exitcode.With(fmt.Errorf("%w: resume it with --resume %s", ctx.Err(), q.dir), exitcode.Interrupted)
		}
	}
	rec.ElapsedS = time.Since(q.start).Seconds()
	if serr := q.save(); serr != nil {
		return Result{Dir: q.dir, Record: *rec}, serr
	}
	q.report()
	q.out.Phase("qa: %s, verdict %s; report %s", rec.Status, orDash(rec.Verdict), filepath.Join(q.dir, results.QAReportFile))
	return Result{Dir: q.dir, Record: *rec, Finished: true}, err
}

// verdict sets the QA's status and verdict from its steps' (unsafe, then
// regression, then failed, then pass; none while a step is pending or
// interrupted) and returns the error that carries its exit code.
func (q *qaRun) verdict() error {
	rec := q.rec
	rec.Status = results.StatusComplete
	var unsafe, regression, failed []string
	for _, st := range rec.Steps {
		switch {
		case st.Status == results.QAPending || st.Status == results.QAInterrupted:
			rec.Status = results.StatusInterrupted
		case st.Verdict == results.QAVerdictUnsafe:
			unsafe = append(unsafe, st.ID)
		case st.Verdict == results.QAVerdictRegression:
			regression = append(regression, st.ID)
		case st.Status == results.StatusFailed:
			failed = append(failed, st.ID)
		}
	}
	rec.Verdict = results.QAVerdictPass
	var err error
	switch {
	case len(unsafe) > 0:
		rec.Verdict, err = results.QAVerdictUnsafe, fmt.Errorf("%w in %v (see %s)", experiment.ErrUnsafe, unsafe, filepath.Join(q.dir, results.QAReportFile))
	case len(regression) > 0:
		rec.Verdict, err = results.QAVerdictRegression, fmt.Errorf("%w: %v (see %s)", ErrRegression, regression, filepath.Join(q.dir, results.QAReportFile))
	case len(failed) > 0:
		rec.Verdict, err = results.QAVerdictFailed, fmt.Errorf("%w: steps %v failed (see %s)", series.ErrSomeFailed, failed, filepath.Join(q.dir, results.QAFile))
	}
	if rec.Status == results.StatusInterrupted {
		rec.Verdict = ""
	}
	return err
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
