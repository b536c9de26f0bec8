package experiment

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/exitcode"
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
	exec   func(ctx context.Context, m manifest.Resolved, dir string) cellOutcome // one run: runner.run, a fake in tests
	budget int                                                                    // disturbed runs that may still be measured again
	made   int                                                                    // runs made by this call
}

// newSeries is the series of planned runs in root, in mode (fresh or
// reuse), judged with crit.
func newSeries(env CellEnv, root, mode string, coolDown time.Duration, crit saturation.Criterion, planned int) *series {
	rn := &runner{env: env, out: newPrinter(env.Out), reuse: mode == results.ModeReuse, coolDown: coolDown, crit: crit, root: root}
	s := &series{runner: rn, exec: rn.run, budget: max(2, planned/5)}
	if env.exec != nil {
		s.exec = env.exec
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
func (s *series) step(ctx context.Context, m manifest.Resolved, dir string, mark func() error, record func(cellOutcome) error, report func()) (cellOutcome, error) {
	if err := mark(); err != nil {
		return cellOutcome{}, err
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
func (s *series) disturbed(outs []cellOutcome, labels []string, again bool) *results.Disturbance {
	var parts []string
	for i, o := range outs {
		if o.evidence != nil && o.evidence.Disturbed() {
			p := fmt.Sprintf("%.0f %%", *o.evidence.HostBusyPct)
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

// writeSides writes the resolved manifest of each side of an experiment
// (an A/B's, a QA's) to dir/manifests/<label>.toml, which readSides reads
// back when it is resumed.
func writeSides(dir string, sides []manifest.Resolved, labels []string) error {
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

// readSides reads back the sides' manifests writeSides wrote in dir.
func readSides(dir string, labels []string) ([]manifest.Resolved, error) {
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

// ErrUnsafe marks a run or series one of whose runs' safety check found a
// violation (exit code 5).
var ErrUnsafe = exitcode.With(errors.New("safety violation"), exitcode.Unsafe)

// ErrPartial marks a run that ended partial (exit code 3).
var ErrPartial = exitcode.With(errors.New("the run is partial"), exitcode.Partial)

// Verdict is the error a finished run's end maps to, for its exit code:
// ErrUnsafe (5) when its safety check found a violation, before
// ErrPartial (3) when it ended partial; nil when it is complete and safe.
func (r Result) Verdict() error {
	if line, bad := report.SafetyLine(r.Summary); bad {
		return fmt.Errorf("%w: %s (see %s)", ErrUnsafe, line, filepath.Join(r.Dir, results.ReportFile))
	}
	if r.Run.Status == results.StatusPartial {
		return fmt.Errorf("%w: %v (see %s)", ErrPartial, r.Run.Errors, filepath.Join(r.Dir, results.RunFile))
	}
	return nil
}

// seriesSafety is the safety verdict of a series in root over its run
// directories dirs (relative to root; root "" for paths as they are):
// nil when no run's
// summary.json counts a violation, else ErrUnsafe naming each run. A run
// without a summary is not judged.
func seriesSafety(root string, dirs []string) error {
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
			bad = append(bad, relDir(root, p)+": "+line)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("%w in %d run(s): %s", ErrUnsafe, len(bad), strings.Join(bad, "; "))
}
