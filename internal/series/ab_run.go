package series

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/cometlab/cometlab/internal/compare"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/saturation"
	"github.com/cometlab/cometlab/internal/sequential"
)

// ABOptions configure a new A/B experiment. The command checks the
// settings' syntax; AB runs what it is given.
type ABOptions struct {
	// Sides are the resolved manifests (base first) and Labels their names
	// (runs/NN-<label>), as ABSides returns them.
	Sides  []manifest.Resolved
	Labels []string
	// Base and Candidates are the specs as the user wrote them (recorded).
	Base       string
	Candidates []string
	// Repeat is the number of rounds, or "auto" (MaxPairs at most, and no
	// round started after MaxTime when it is not 0).
	Repeat   string
	MaxPairs int
	MaxTime  time.Duration
	// Order is OrderCounterbalanced, OrderInterleaved or OrderRandom
	// (seeded with Seed); "" means counterbalanced.
	Order      string
	Seed       uint64
	Thresholds compare.Thresholds
	// AA is an A/A calibration: noise.json is written.
	AA bool
	// Stop ("all" or "worse"), Judged and FamilyWise are auto's rule.
	Stop       string
	Judged     []string
	FamilyWise bool
	// AllowTimeScaleMismatch lets the sides run at different time scales
	// (the manifests' time_scale) and be compared; without it AB refuses
	// them before anything runs.
	AllowTimeScaleMismatch bool
	// Dir is the experiment directory; "" means ab/<UTC time>.
	Dir string
	// Command is the command line, shown in the report.
	Command string
	Env     Env
}

// ABResult is what an A/B experiment (or its resumption) produced.
type ABResult struct {
	Dir    string
	Record ABRecord
	// Finished is set when the experiment came to its end (complete,
	// interrupted or failed) and its record and report were written.
	Finished bool
	// Compare is the comparison of the runs, nil when some side has no
	// run; FalseAlarms an A/A calibration's false alarms.
	Compare     *compare.Result
	FalseAlarms *compare.FalseAlarms
}

// DefaultABDir is ab/<UTC time> under the current directory.
func DefaultABDir(now time.Time) string {
	return filepath.Join("ab", now.UTC().Format("20060102-150405"))
}

// abLoop runs the rounds of one experiment. run and look are the
// runner's run and abLook in production, fakes in tests.
type abLoop struct {
	dir   string
	rec   *ABRecord
	sides []manifest.Resolved
	th    compare.Thresholds
	out   io.Writer
	env   Env
	run   func(ctx context.Context, m manifest.Resolved, dir string) Outcome // nil: the series runner's (a fake in tests)
	s     *series
	look  func(dirs [][]string) ([]sequential.Decision, bool, error)
}

// AB runs an A/B experiment: the sides in rounds (ABOrder), each run on a
// fresh testnet in DIR/runs/NN-<label>, with --repeat auto a sequential
// look after each round; then it compares the runs and writes the report
// (compare.md and the rest), noise.json for an A/A calibration, and
// ab.json. ab.json is rewritten atomically before each run and after each
// round: a killed experiment leaves it readable, and ResumeAB continues.
// An interrupt (ctx) or a failed run ends the rounds; the finished runs
// are compared all the same, and the error carries exit code 130 or 1.
func AB(ctx context.Context, opts ABOptions) (ABResult, error) {
	l, err := newAB(opts)
	if err != nil {
		return ABResult{Dir: l.dir}, err
	}
	return l.do(ctx)
}

// newAB creates the experiment directory: manifests/<label>.toml of every
// side and the first ab.json.
func newAB(opts ABOptions) (*abLoop, error) {
	dir := opts.Dir
	if dir == "" {
		dir = DefaultABDir(time.Now())
	}
	l := &abLoop{dir: dir, sides: opts.Sides, th: opts.Thresholds, out: orDiscard(opts.Env.Out), env: opts.Env}
	if len(opts.Sides) < 2 || len(opts.Labels) != len(opts.Sides) {
		return l, fmt.Errorf("%w sides: want a base and a candidate, each with a label", ErrInvalid)
	}
	if _, err := os.Stat(filepath.Join(dir, ABFile)); err == nil {
		return l, fmt.Errorf("%s already holds an A/B experiment; resume it with --resume %s or choose another --out", dir, dir)
	}
	if err := experiment.CheckFixedScale(opts.Sides...); err != nil {
		return l, err
	}
	if err := experiment.CheckSideScales(opts.Sides, opts.Labels, opts.AllowTimeScaleMismatch); err != nil {
		return l, err
	}
	if err := WriteSides(dir, opts.Sides, opts.Labels); err != nil {
		return l, err
	}
	th := opts.Thresholds
	l.rec = &ABRecord{Base: opts.Base, Candidates: opts.Candidates, Repeat: opts.Repeat, MaxPairs: opts.MaxPairs, Order: opts.Order,
		Seed: opts.Seed, Method: ABMethod, AA: opts.AA, Alpha: th.Alpha, Status: results.StatusRunning, Labels: opts.Labels,
		Thresholds: &th, Command: opts.Command, AllowTimeScaleMismatch: opts.AllowTimeScaleMismatch}
	if l.rec.Auto() {
		l.rec.Stop, l.rec.Judged, l.rec.FamilyWise, l.rec.MaxTimeS = opts.Stop, opts.Judged, opts.FamilyWise, opts.MaxTime.Seconds()
	}
	if _, err := l.rec.PlannedRounds(); err != nil {
		return l, fmt.Errorf("%w %w", ErrInvalid, err)
	}
	return l, saveAB(dir, l.rec)
}

// ResumeAB continues the experiment in dir: the rounds recorded done are
// kept; the run directories of an unfinished round are set aside (moved
// to DIR.interrupted) and the rounds go on from there, with --repeat auto
// after a look at the rounds done. The settings are ab.json's and the
// sides' manifests those in manifests/. An experiment that came to its
// end is compared and reported again.
func ResumeAB(ctx context.Context, dir string, env Env) (ABResult, error) {
	l, err := resumeAB(dir, env)
	if err != nil {
		return ABResult{Dir: dir}, err
	}
	return l.do(ctx)
}

func resumeAB(dir string, env Env) (*abLoop, error) {
	rec, err := ReadAB(dir)
	if err != nil {
		return nil, fmt.Errorf("resume %s: %w", dir, err)
	}
	if len(rec.Labels) < 2 {
		return nil, fmt.Errorf("resume %s: %s was written by an older cometlab, without the sides' manifests: it cannot be resumed", dir, ABFile)
	}
	total, err := rec.PlannedRounds()
	if err != nil {
		return nil, fmt.Errorf("resume %s: %w", dir, err)
	}
	l := &abLoop{dir: dir, rec: &rec, out: orDiscard(env.Out), env: env}
	if l.sides, err = ReadSides(dir, rec.Labels); err != nil {
		return nil, err
	}
	l.th = compare.DefaultThresholds()
	if rec.Thresholds != nil {
		l.th = *rec.Thresholds
	}
	rec.Pairs = min(rec.Pairs, len(rec.Rounds))
	for round := range rec.Pairs {
		for k, d := range rec.Rounds[round] {
			rec.Rounds[round][k] = abRunDir(dir, round, abLabel(d))
		}
	}
	for round := rec.Pairs; round < max(total, len(rec.Rounds)); round++ {
		for _, label := range rec.Labels {
			if err := SetAside(abRunDir(dir, round, label)); err != nil {
				return nil, fmt.Errorf("resume: %w", err)
			}
		}
	}
	rec.Rounds = rec.Rounds[:rec.Pairs]
	rec.Status, rec.Partial, rec.Verdict, rec.Noise = results.StatusRunning, false, "", ""
	fmt.Fprintf(l.out, "ab: resuming %s: %d of %s rounds done\n", dir, rec.Pairs, rec.Repeat)
	return l, saveAB(dir, l.rec)
}

// do runs the rounds left and finishes the experiment.
func (l *abLoop) do(ctx context.Context) (ABResult, error) {
	planned, _ := l.rec.PlannedRounds() // checked when the record was made
	l.s = newSeries(l.env, l.dir, results.ModeFresh, 0, saturation.DefaultCriterion(), planned)
	defer l.s.runs.Close()
	if l.run != nil {
		l.s.exec = l.run
	}
	if l.look == nil {
		l.look = func(dirs [][]string) ([]sequential.Decision, bool, error) {
			return abLook(dirs, l.rec.Labels, l.th, *l.rec)
		}
	}
	dirs, runErr, err := l.rounds(ctx)
	if err != nil {
		l.rec.Status, l.rec.Partial = results.StatusFailed, true
		_ = saveAB(l.dir, l.rec)
		return ABResult{Dir: l.dir, Record: *l.rec}, err
	}
	return l.finish(dirs, runErr)
}

// rounds runs rounds from rec.Pairs on until they are all done, auto's
// look says stop, --max-time is spent, a run fails or ctx ends. It
// returns every side's run directories of the rounds done; runErr is the
// failed or interrupted run's error (with its exit code), err what
// stopped the experiment itself.
func (l *abLoop) rounds(ctx context.Context) (dirs [][]string, runErr, err error) {
	rec := l.rec
	total, err := rec.PlannedRounds()
	if err != nil {
		return nil, nil, err
	}
	if dirs, err = rec.sideDirs(l.dir); err != nil {
		return nil, nil, err
	}
	start := time.Now().Add(-results.Seconds(rec.ElapsedS))
	if rec.Auto() && rec.Pairs > 0 { // resumed: the last look decides whether to go on
		decs, stop, err := l.look(dirs)
		if err != nil {
			return dirs, nil, err
		}
		rec.Sequential, rec.Verdict = decs, SequentialVerdict(decs)
		if stop {
			return dirs, nil, nil
		}
	}
	for round := rec.Pairs; round < total; round++ {
		if maxTime := results.Seconds(rec.MaxTimeS); rec.Auto() && maxTime > 0 && time.Since(start) > maxTime {
			fmt.Fprintf(l.out, "ab: --max-time %v spent after %d rounds\n", maxTime, round)
			break
		}
		rec.Rounds = append(rec.Rounds[:round], nil)
		ran, outs, runErr, err := l.round(ctx, round, start)
		if runErr != nil || err != nil {
			return dirs, runErr, err
		}
		again := slices.ContainsFunc(rec.Disturbed, func(d ABDisturbance) bool { return d.Round == round+1 })
		if d := l.s.disturbed(outs, rec.Labels, again); d != nil {
			rec.Disturbed = append(rec.Disturbed, ABDisturbance{Round: round + 1, Disturbance: *d})
			fmt.Fprintf(l.out, "ab: round %d was disturbed (%s): %s\n", round+1, d.Why, d.Action)
			if d.Action == results.ActionRunAgain {
				for _, d := range ran {
					if err := setAsideAs(d, ".disturbed"); err != nil {
						return dirs, nil, err
					}
				}
				round-- // the same round again
				continue
			}
		}
		for i := range dirs {
			dirs[i] = append(dirs[i], ran[i])
		}
		rec.Pairs, rec.ElapsedS = round+1, time.Since(start).Seconds()
		stop := false
		if rec.Auto() {
			decs, s, err := l.look(dirs)
			if err != nil {
				return dirs, nil, err
			}
			rec.Sequential, rec.Verdict, stop = decs, SequentialVerdict(decs), s
			for ci, d := range decs {
				fmt.Fprintf(l.out, "ab: after %d pairs, %s: %s\n", rec.Pairs, rec.Labels[ci+1], decisionLine(d))
			}
		}
		if err := saveAB(l.dir, rec); err != nil {
			return dirs, nil, err
		}
		if stop {
			break
		}
	}
	return dirs, nil, nil
}

// round runs round (from 0) of the experiment, every side once in the
// round's order, each through the series' skeleton (ab.json saved before
// each run). It returns the sides' run directories and outcomes; runErr
// is the failed or interrupted run's error (with its exit code), err what
// stopped the experiment itself.
func (l *abLoop) round(ctx context.Context, round int, start time.Time) (ran []string, outs []Outcome, runErr, err error) {
	rec := l.rec
	ran, outs = make([]string, len(l.sides)), make([]Outcome, len(l.sides))
	for _, i := range ABOrder(round, len(l.sides), cmp.Or(rec.Order, OrderCounterbalanced), rec.Seed) {
		dir := abRunDir(l.dir, round, rec.Labels[i])
		mark := func() error {
			fmt.Fprintf(l.out, "ab: round %d, %s: %s\n", round+1, rec.Labels[i], dir)
			rec.Rounds[round] = append(rec.Rounds[round], dir)
			rec.ElapsedS = time.Since(start).Seconds()
			return saveAB(l.dir, rec)
		}
		record := func(Outcome) error { rec.ElapsedS = time.Since(start).Seconds(); return nil }
		o, err := l.s.step(ctx, l.sides[i], dir, mark, record, nil)
		if err != nil {
			return ran, outs, nil, err
		}
		if runErr = runError(ctx, o); runErr != nil {
			if _, err := os.Stat(dir); err != nil { // the run never began
				rec.Rounds[round] = rec.Rounds[round][:len(rec.Rounds[round])-1]
			}
			return ran, outs, runErr, nil
		}
		ran[i], outs[i] = dir, o
	}
	return ran, outs, nil, nil
}

// runError is the error that ends an experiment after run o: an
// interrupt (exit code 130) or a failed run (exit code 1); nil when the
// run finished (complete or partial).
func runError(ctx context.Context, o Outcome) error {
	err := o.Err
	switch {
	case ctx.Err() != nil || o.Status == results.StatusInterrupted:
		if err == nil {
			err = cmp.Or(ctx.Err(), context.Canceled)
		}
		return exitcode.With(err, exitcode.Interrupted)
	case err != nil || o.Status == results.StatusFailed:
		if err == nil {
			err = errors.New("the run failed")
		}
		return exitcode.With(err, exitcode.Failed)
	}
	return nil
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// ExtendAB runs more rounds of the A/B experiment in dir, whose rounds
// are fixed (not auto): up to rounds in all (its planned rounds raised
// when fewer), then compares and reports again, as a resumption does;
// nothing when it has rounds already. A mode that judges the experiment by a rule
// of its own (the QA's: more rounds for an undecided figure) asks for them
// one at a time.
func ExtendAB(ctx context.Context, dir string, rounds int, env Env) (ABResult, error) {
	rec, err := ReadAB(dir)
	if err != nil {
		return ABResult{Dir: dir}, fmt.Errorf("extend %s: %w", dir, err)
	}
	if rec.Auto() {
		return ABResult{Dir: dir}, fmt.Errorf("extend %s: its rounds are auto, decided by its own look", dir)
	}
	if rec.Pairs >= rounds {
		return ABResult{Dir: dir, Record: rec}, nil
	}
	if n, _ := rec.PlannedRounds(); rounds > n {
		rec.Repeat = strconv.Itoa(rounds)
	}
	if err := saveAB(dir, &rec); err != nil {
		return ABResult{Dir: dir}, err
	}
	return ResumeAB(ctx, dir, env)
}
