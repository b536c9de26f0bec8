package qa

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cometlab/cometlab/internal/compare"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/qa/plan"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/saturation"
	"github.com/cometlab/cometlab/internal/series"
)

// runStep runs one planned step and records what it found in st; the
// error is what made it fail (with exit code 130 when interrupted).
func (q *qaRun) runStep(ctx context.Context, ps results.QAPlanStep, st *results.QAStep) error {
	switch ps.ID {
	case plan.Saturation:
		return q.saturation(ctx, st)
	case plan.LoadStep:
		return q.chooseLoad(st)
	case plan.Long, plan.Rotation, plan.Partition, plan.AbsentStake:
		return q.compared(ctx, ps, st)
	case plan.Upgrade:
		return q.upgrade(ctx, ps, st)
	case plan.VoteExtensions:
		return q.voteExtensions(ctx, ps, st)
	case plan.Storage:
		return q.storage(ctx, ps, st)
	}
	return fmt.Errorf("step %s is not built yet", ps.ID)
}

// stepDir is the directory of step id's series (relative to the QA's).
func stepDir(id string, parts ...string) string {
	return filepath.ToSlash(filepath.Join(append([]string{results.QATestsDir, id}, parts...)...))
}

// seriesErr sorts the error a series ended with: an interrupt ends the
// step (exit code 130); a safety violation and failed runs are found
// again from the runs (the step goes on); anything else fails the step.
func seriesErr(ctx context.Context, err error) error {
	code, _ := exitcode.Of(err)
	switch {
	case err == nil, errors.Is(err, experiment.ErrUnsafe), errors.Is(err, series.ErrSomeFailed), errors.Is(err, series.ErrWorse):
		return nil
	case ctx.Err() != nil || code == exitcode.Interrupted || errors.Is(err, context.Canceled):
		return exitcode.With(err, exitcode.Interrupted)
	}
	return err
}

// saturation runs each side's saturation search (at c = 1, from the
// manifest's rate) and then its c × r grid around the knee the search
// found, resuming either where it stopped.
func (q *qaRun) saturation(ctx context.Context, st *results.QAStep) error {
	p := q.rec.Plan
	var parts []string
	for i, side := range q.sides {
		label := q.rec.Labels[i]
		searchDir, gridDir := stepDir(plan.Saturation, label, results.QASearchDir), stepDir(plan.Saturation, label, results.QAGridDir)
		for _, d := range []string{searchDir, gridDir} {
			if !slices.Contains(st.Dirs, d) {
				st.Dirs = append(st.Dirs, d)
			}
		}
		m, err := plan.WithChanges(side, []string{"load.connections=1"})
		if err != nil {
			return fmt.Errorf("%s: %w", label, err)
		}
		cfg, err := series.SearchFor(m, saturation.DefaultSearch(m.Load.Rate, m.Load.Duration.Seconds()), series.SearchGiven{})
		if err != nil {
			return fmt.Errorf("%s: %w", label, err)
		}
		if p.SearchRuns > 0 {
			cfg.MaxRuns = p.SearchRuns
		}
		if err := q.save(); err != nil {
			return err
		}
		search, err := q.search(ctx, filepath.Join(q.dir, searchDir), m, cfg)
		if err = seriesErr(ctx, err); err != nil {
			return fmt.Errorf("%s: search: %w", label, err)
		}
		knee, how := plan.Knee(search.Outcome, cfg.Start)
		rates := plan.GridRates(knee, p.Factors)
		q.out.Phase("qa: %s: knee %s tx/s (%s); grid c ∈ %v × r ∈ %v", label, plan.FormatRate(knee), how, p.Connections, rates)
		grid, err := q.grid(ctx, filepath.Join(q.dir, gridDir), side, p.Connections, rates)
		if err = seriesErr(ctx, err); err != nil {
			return fmt.Errorf("%s: grid: %w", label, err)
		}
		parts = append(parts, saturationPart(label, search, grid, cfg.Start))
	}
	st.Summary = strings.Join(parts, "; ")
	return q.safety(st)
}

// saturationPart is what the saturation step found of one side: its knee
// (how it was chosen from the search, which started at start) and the
// grid's saturation diagonal.
func saturationPart(label string, search saturation.SearchRecord, grid saturation.SweepRecord, start float64) string {
	knee, how := plan.Knee(search.Outcome, start)
	part := fmt.Sprintf("%s: knee %s tx/s (%s)", label, plan.FormatRate(knee), how)
	if ts := saturation.Tables(grid.GridCells()); len(ts) > 0 && ts[0].Diagonal > 0 {
		part += fmt.Sprintf(", saturation diagonal %s tx/s", plan.FormatRate(ts[0].Diagonal))
	}
	return part
}

// search runs (or resumes, or keeps) the saturation search in dir.
func (q *qaRun) search(ctx context.Context, dir string, m manifest.Resolved, cfg saturation.SearchConfig) (saturation.SearchRecord, error) {
	if rec, err := saturation.ReadSearch(dir); err == nil {
		if rec.Status == results.StatusComplete {
			return rec, nil
		}
		return series.ResumeSaturate(ctx, dir, q.env)
	}
	return series.Saturate(ctx, series.SaturateOptions{Manifest: m, Search: cfg, Criterion: saturation.DefaultCriterion(), Dir: dir, Env: q.env})
}

// grid runs (or resumes, or keeps) the c × r sweep in dir.
func (q *qaRun) grid(ctx context.Context, dir string, side manifest.Resolved, conns []int, rates []float64) (saturation.SweepRecord, error) {
	if rec, err := saturation.ReadSweep(dir); err == nil {
		if results.Finished(rec.Status) || rec.Status == results.StatusPartial {
			return rec, nil
		}
		return series.ResumeSweep(ctx, dir, false, q.env)
	}
	m, err := plan.ManifestOf(side.Name, side)
	if err != nil {
		return saturation.SweepRecord{}, err
	}
	return series.Sweep(ctx, series.SweepOptions{Manifest: m, Connections: conns, Rates: rates, Repeat: 1, Criterion: saturation.DefaultCriterion(),
		Dir: dir, Env: q.env})
}

// chooseLoad applies the method's rule (plan.ChooseLoad) to the candidate's
// grid and search, and records the QA load.
func (q *qaRun) chooseLoad(st *results.QAStep) error {
	var table *saturation.Table
	var outcome *saturation.Outcome
	if sat := q.rec.Step(plan.Saturation); sat != nil && sat.Status == results.QADone {
		label := q.rec.Labels[1]
		if rec, err := saturation.ReadSweep(filepath.Join(q.dir, stepDir(plan.Saturation, label, results.QAGridDir))); err == nil {
			if ts := saturation.Tables(rec.GridCells()); len(ts) > 0 {
				table = ts[0]
			}
		}
		if rec, err := saturation.ReadSearch(filepath.Join(q.dir, stepDir(plan.Saturation, label, results.QASearchDir))); err == nil {
			outcome = rec.Outcome
		}
	}
	l := plan.ChooseLoad(table, outcome, q.sides[1].Load)
	q.rec.Load = &l
	st.Summary = fmt.Sprintf("c = %d, r = %s tx/s: %s", l.Connections, plan.FormatRate(l.Rate), l.Rule)
	return nil
}

// loadChanges set the QA load (the manifest's when none was chosen).
func (q *qaRun) loadChanges() []string {
	l := q.rec.Load
	if l == nil {
		return nil
	}
	return []string{"load.connections=" + strconv.Itoa(l.Connections), "load.rate=" + plan.FormatRate(l.Rate)}
}

// compared runs a compared test as an A/B experiment in its directory —
// both sides at the QA load with the step's changes, counterbalanced, the
// plan's rounds — resuming it where it stopped, then judges every figure
// of its comparison by the QA rule (compare.QAJudge): while a figure
// beyond the 10 % rule is undecided and the step's budget of rounds
// (moreRounds) allows, the experiment gets another round and is judged
// again; a figure still undecided then says so ("undecided after N
// rounds").
func (q *qaRun) compared(ctx context.Context, ps results.QAPlanStep, st *results.QAStep) error {
	rel := stepDir(ps.ID)
	dir := filepath.Join(q.dir, rel)
	st.Dirs = []string{rel}
	rounds := max(1, q.rec.Plan.ScenarioRepeat)
	if ps.ID == plan.Long {
		rounds = max(1, q.rec.Plan.Repeat)
	}
	var err error
	if rec, rerr := series.ReadAB(dir); rerr == nil {
		if rec.Status != results.StatusComplete {
			_, err = series.ResumeAB(ctx, dir, q.env)
		}
	} else {
		var sides []manifest.Resolved
		sides, err = q.stepSides(ps)
		if err != nil {
			return err
		}
		if err := q.save(); err != nil {
			return err
		}
		_, err = series.AB(ctx, series.ABOptions{Sides: sides, Labels: q.rec.Labels, Base: q.rec.Baseline, Candidates: []string{q.rec.Candidate},
			Repeat: strconv.Itoa(rounds), Order: series.OrderCounterbalanced, Seed: 1, Thresholds: q.th, Stop: "all", Dir: dir,
			Command: q.rec.Command + " (step " + ps.ID + ")", Env: q.env})
	}
	budget := q.moreRounds(ps, rounds)
	st.RoundsBudget = budget
	for judged := 0; ; {
		if err = seriesErr(ctx, err); err != nil {
			return err
		}
		figs, look, jerr := judgeAB(dir, budget)
		if jerr != nil {
			return jerr
		}
		st.Figures = figs
		// More rounds only while they come: an experiment that ran no
		// round more (its runs failed, its host could not) is judged as
		// it is, and the budget bounds the rounds whatever the look says.
		if !look.More || look.Rounds <= judged || look.Rounds >= budget {
			st.Figures = compare.QAFinal(figs, look.Rounds)
			break
		}
		judged = look.Rounds
		q.out.Phase("qa: %s: %d figures beyond the %g %% rule undecided after %d rounds: one more round (at most %d)",
			plan.Title(ps.ID), undecided(figs), q.th.DefaultPct, look.Rounds, budget)
		if err := q.save(); err != nil {
			return err
		}
		q.spareS -= ps.EstimateS / float64(rounds)
		_, err = series.ExtendAB(ctx, dir, look.Rounds+1, q.env)
	}
	q.judged(st)
	return q.safety(st)
}

// judged sets a compared test's verdict and summary from its figures.
func (q *qaRun) judged(st *results.QAStep) {
	st.Verdict, st.Summary = results.QAVerdictPass, compare.QASummary(st.Figures, q.th.DefaultPct)
	if compare.QACount(st.Figures)[compare.QARegression] > 0 {
		st.Verdict = results.QAVerdictRegression
	}
}

// judgeAB judges the comparison of the A/B experiment in dir (its
// compare.json) by the QA rule within budget rounds (compare.QAJudge).
func judgeAB(dir string, budget int) ([]results.QAFigure, compare.QALook, error) {
	var c compare.Result
	if err := results.ReadJSON(filepath.Join(dir, results.CompareJSON), &c); err != nil {
		return nil, compare.QALook{}, fmt.Errorf("the comparison: %w", err)
	}
	figs, look, err := compare.QAJudge(c, budget)
	if err != nil {
		return figs, look, fmt.Errorf("the comparison: %w", err)
	}
	return figs, look, nil
}

// moreRounds is the most rounds compared test ps, planned with rounds, may
// run when figures stay undecided: twice its plan, at least 6 (the
// sequential rule spends its alpha over them), and, under --budget, no
// more than the budget's time the plan left over pays for (q.spareS, a
// round costing the step's estimate over its rounds).
func (q *qaRun) moreRounds(ps results.QAPlanStep, rounds int) int {
	n := max(6, 2*rounds)
	if q.rec.Plan.BudgetS > 0 && ps.EstimateS > 0 {
		perRound := ps.EstimateS / float64(rounds)
		n = min(n, rounds+int(max(0, q.spareS)/perRound))
	}
	return n
}

// undecided counts the figures beyond the 10 % rule but not decided.
func undecided(figs []results.QAFigure) int {
	n := 0
	for _, f := range figs {
		if compare.QAVerdict(f.Verdict) == compare.QABeyondNotSignificant {
			n++
		}
	}
	return n
}

// stepSides are both sides with the QA load and step ps's changes.
func (q *qaRun) stepSides(ps results.QAPlanStep) ([]manifest.Resolved, error) {
	var changes []string
	for _, r := range ps.Runs {
		changes = append(changes, r.Changes...)
	}
	var out []manifest.Resolved
	for i, side := range q.sides {
		m, err := plan.WithChanges(side, append(q.loadChanges(), changes...))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", q.rec.Labels[i], err)
		}
		out = append(out, m)
	}
	return out, nil
}

// upgrade runs the rolling upgrade: one run of the baseline at the QA
// load in which every node restarts on the candidate's release in turn,
// through the series runner (measured again once when its host was
// disturbed). It passes when the run is complete and safe.
func (q *qaRun) upgrade(ctx context.Context, ps results.QAPlanStep, st *results.QAStep) error {
	if len(ps.Runs) == 0 {
		return fmt.Errorf("no run planned")
	}
	rel := stepDir(ps.ID)
	dir := filepath.Join(q.dir, rel)
	m, err := plan.WithChanges(q.sides[0], append(q.loadChanges(), ps.Runs[0].Changes...))
	if err != nil {
		return err
	}
	st.Dirs = []string{rel}
	o, err := series.Once(ctx, q.env, m, dir, q.save, func(why string) {
		q.out.Phase("qa: the upgrade run was disturbed (%s): measuring it again", why)
	})
	if err != nil {
		return err
	}
	q.upgraded(st, o.Status, o.Message())
	return q.safety(st)
}

// upgraded sets the upgrade step's verdict from its run's status (and
// the message of what ended it).
func (q *qaRun) upgraded(st *results.QAStep, status, message string) {
	st.Verdict = results.QAVerdictPass
	st.Summary = fmt.Sprintf("the run is %s: every node restarted on %s in turn", status, q.sides[1].CometBFTVersion)
	if status != results.StatusComplete {
		st.Verdict = results.QAVerdictFailed
		st.Summary = fmt.Sprintf("the run is %s (%s)", status, message)
	}
}

// safety is the series' safety verdict over every run of the step: a run
// that broke safety makes the step's verdict unsafe.
func (q *qaRun) safety(st *results.QAStep) error {
	var dirs []string
	for _, d := range st.Dirs {
		for _, r := range runDirsUnder(filepath.Join(q.dir, d)) {
			if rel, err := filepath.Rel(q.dir, r); err == nil {
				r = rel // named from the QA directory, as the report's links are
			}
			dirs = append(dirs, r)
		}
	}
	if err := series.Safety(q.dir, dirs); err != nil {
		st.Verdict = results.QAVerdictUnsafe
		st.Summary = err.Error() + "; " + st.Summary
	}
	return nil
}

// runDirsUnder are the run directories under root (directories holding
// run.json, not descended into), but those set aside (DIR.interrupted,
// DIR.disturbed).
func runDirsUnder(root string) []string {
	var dirs []string
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if strings.HasSuffix(p, ".interrupted") || strings.HasSuffix(p, ".disturbed") {
			return filepath.SkipDir
		}
		if _, err := os.Stat(filepath.Join(p, results.RunFile)); err == nil {
			dirs = append(dirs, p)
			return filepath.SkipDir
		}
		return nil
	})
	return dirs
}
