package series

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/report"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/saturation"
)

// series runs the runs of one series — a sweep's cells, a search's steps,
// an A/B experiment's rounds — one after another, on fresh testnets or a
// shared one (runner), each through one skeleton (step): mark the run in
// the series' record and save it, run, record the outcome and save, rewrite
// the report. What is decided across the runs is decided here too:
//
//   - The disturbance policy, one for every series: a run whose host was
//     busy with other work during its load (its evidence Disturbed: more
//     than analysis.DisturbedPct of the CPU went to other work) is measured
//     again, once, while the series' budget of re-measures lasts (a fifth
//     of its planned runs, at least 2); the disturbed measurement is kept as
//     evidence (its directory set aside as DIR.disturbed, or a search's step
//     marked remeasured) and recorded with the reason. A run disturbed
//     again, or past the budget, is kept and recorded as such. An A/B round
//     is measured again as a whole, so that its sides stay paired.
//   - The safety verdict (seriesSafety): a series one of whose runs broke
//     safety ends with an error carrying exit code 5, whatever else it
//     found.
type series struct {
	*runner
	exec   func(ctx context.Context, m manifest.Resolved, dir string) Outcome // one run: runner.run, a fake in tests
	budget int                                                                // disturbed runs that may still be measured again
	made   int                                                                // runs made by this call
}

// newSeries is the series of planned runs in root, in mode (fresh or
// reuse), judged with crit.
func newSeries(env Env, root, mode string, coolDown time.Duration, crit saturation.Criterion, planned int) *series {
	out := experiment.NewPrinter(env.Out)
	runs := &experiment.Runs{Env: env.Env, Collect: env.Collect, Out: out, Reuse: mode == results.ModeReuse, CoolDown: coolDown, Root: root}
	rn := &runner{env: env, out: out, runs: runs, crit: crit}
	s := &series{runner: rn, exec: rn.run, budget: max(2, planned/5)}
	if env.Exec != nil {
		s.exec = env.Exec
	}
	switch {
	case env.MaxRemeasures < 0:
		s.budget = 0
	case env.MaxRemeasures > 0:
		s.budget = env.MaxRemeasures
	}
	return s
}

// step runs m in dir as the series' next run: mark records it as running
// and saves the record, record records its outcome and saves again, then
// the report is rewritten (report may be nil) and env.AfterRun told.
func (s *series) step(ctx context.Context, m manifest.Resolved, dir string, mark func() error, record func(Outcome) error, report func()) (Outcome, error) {
	if err := mark(); err != nil {
		return Outcome{}, err
	}
	o := s.exec(ctx, m, dir)
	if err := record(o); err != nil {
		return o, err
	}
	if report != nil {
		report()
	}
	s.made++
	if s.env.AfterRun != nil {
		s.env.AfterRun(s.made)
	}
	return o, nil
}

// disturbed applies the policy to a finished run (or round, outs its
// runs, labels their names for the reason): nil when no run was
// disturbed; otherwise what to do, ActionRunAgain consuming the budget.
// again says whether these runs are already a re-measure.
func (s *series) disturbed(outs []Outcome, labels []string, again bool) *results.Disturbance {
	var parts []string
	for i, o := range outs {
		if o.Evidence != nil && o.Evidence.Disturbed() {
			p := fmt.Sprintf("%.0f %%", *o.Evidence.HostBusyPct)
			if len(labels) > i && labels[i] != "" {
				p = labels[i] + ": " + p
			}
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return nil
	}
	d := &results.Disturbance{Why: strings.Join(parts, ", ") + " of the host's CPU went to other work", Action: results.ActionRunAgain}
	switch {
	case again:
		d.Action = results.ActionKept
	case s.budget <= 0:
		d.Action = results.ActionKeptOver
	default:
		s.budget--
	}
	return d
}

// WriteSides writes the resolved manifest of each side of an experiment
// (an A/B's, a QA's) to dir/manifests/<label>.toml, which ReadSides reads
// back when it is resumed.
func WriteSides(dir string, sides []manifest.Resolved, labels []string) error {
	if err := os.MkdirAll(filepath.Join(dir, results.ManifestsDir), 0o755); err != nil {
		return err
	}
	for i, m := range sides {
		text, err := manifest.Encode(m)
		if err != nil {
			return err
		}
		if err := results.WriteFileAtomic(filepath.Join(dir, results.ManifestsDir, labels[i]+".toml"), text); err != nil {
			return err
		}
	}
	return nil
}

// ReadSides reads back the sides' manifests WriteSides wrote in dir.
func ReadSides(dir string, labels []string) ([]manifest.Resolved, error) {
	var sides []manifest.Resolved
	for _, label := range labels {
		mf, err := manifest.Load(filepath.Join(dir, results.ManifestsDir, label+".toml"))
		if err != nil {
			return nil, fmt.Errorf("resume %s: %w", dir, err)
		}
		m, err := mf.Resolve()
		if err != nil {
			return nil, fmt.Errorf("resume %s: side %s: %w", dir, label, err)
		}
		sides = append(sides, m)
	}
	return sides, nil
}

// Safety is the safety verdict of a series in root over its run
// directories dirs (relative to root; root "" for paths as they are):
// nil when no run's
// summary.json counts a violation, else experiment.ErrUnsafe naming each run. A run
// without a summary is not judged.
func Safety(root string, dirs []string) error {
	var bad []string
	for _, d := range dirs {
		if d == "" {
			continue
		}
		p := filepath.Join(root, d)
		var sum analysis.Summary
		if results.ReadJSON(filepath.Join(p, results.SummaryFile), &sum) != nil {
			continue
		}
		if line, v := report.SafetyLine(sum); v {
			bad = append(bad, results.RelDir(root, p)+": "+line)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("%w in %d run(s): %s", experiment.ErrUnsafe, len(bad), strings.Join(bad, "; "))
}

// Once runs m in dir as a series of one run (its root dir's parent), with
// the series' disturbance policy: a run left in dir by an interrupted
// series is set aside first (dir.interrupted), and a run whose host was
// disturbed is measured again, once, the disturbed one kept as
// dir.disturbed (say is told why). save is called before each run. The
// error ends the caller's work: an interrupt (exit code 130) or a failed
// run (exit code 1); a finished run, complete or partial, is the outcome.
func Once(ctx context.Context, env Env, m manifest.Resolved, dir string, save func() error, say func(why string)) (Outcome, error) {
	if err := SetAside(dir); err != nil {
		return Outcome{}, err
	}
	s := newSeries(env, filepath.Dir(dir), results.ModeFresh, 0, saturation.DefaultCriterion(), 1)
	defer s.runs.Close()
	for again := false; ; again = true {
		o, err := s.step(ctx, m, dir, save, func(Outcome) error { return nil }, nil)
		if err != nil {
			return o, err
		}
		if err := runError(ctx, o); err != nil {
			return o, err
		}
		d := s.disturbed([]Outcome{o}, nil, again)
		if d == nil || d.Action != results.ActionRunAgain {
			return o, nil
		}
		say(d.Why)
		if err := setAsideAs(dir, ".disturbed"); err != nil {
			return o, err
		}
	}
}
