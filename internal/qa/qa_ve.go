package qa

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/qa/plan"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/saturation"
	"github.com/cometlab/cometlab/internal/series"
)

// qaVEKey is the setting the vote-extension sweep varies.
const qaVEKey = "app.vote_extension_size"

// voteExtensions runs the vote-extension sweep: the candidate with
// CometBFT's e2e app at the QA load, one cell per extension size (the
// plan's, ScenarioRepeat repeats each), as a sweep in its directory,
// resumed where it stopped. Like the published report's, it has no
// baseline to judge against: its verdict is not judged, and its summary
// says what each size did.
func (q *qaRun) voteExtensions(ctx context.Context, ps results.QAPlanStep, st *results.QAStep) error {
	rel := stepDir(ps.ID)
	dir := filepath.Join(q.dir, rel)
	st.Dirs = []string{rel}
	var changes []string
	for _, r := range ps.Runs {
		changes = append(changes, r.Changes...)
	}
	side, err := plan.WithChanges(q.sides[1], append(q.loadChanges(), changes...))
	if err != nil {
		return err
	}
	var sizes []string
	for _, n := range q.rec.Plan.VoteExtensionSizes {
		sizes = append(sizes, strconv.Itoa(n))
	}
	rec, err := q.sweepStep(ctx, dir, side, []results.SweepParam{{Key: qaVEKey, Values: sizes}}, max(1, q.rec.Plan.ScenarioRepeat), q.env)
	if err != nil {
		return err
	}
	st.Verdict, st.Summary = results.QAVerdictNotJudged, veSummary(rec)
	return q.safety(st)
}

// veSummary says what each extension size did: its committed rate and
// block latency (the mean over its repeats), and whether it kept up.
func veSummary(rec saturation.SweepRecord) string {
	var parts []string
	for _, t := range saturation.Tables(rec.GridCells()) {
		for _, c := range t.Cells {
			if c.Runs == 0 {
				continue
			}
			size := strings.TrimPrefix(t.Group, qaVEKey+"=")
			p := fmt.Sprintf("%s B: %.0f tx/s, latency mean %.0f ms", size, c.TPS.Mean, c.LatencyMeanMS.Mean)
			if c.Saturated {
				p += " (saturated)"
			}
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return "no size finished"
	}
	return "by extension size: " + strings.Join(parts, "; ")
}

// sweepStep runs a step's sweep of side over params in dir, or resumes
// the one a killed qa left there unfinished (a finished one is read
// back): qa.json is saved first, so that a kill during the sweep resumes
// into it.
func (q *qaRun) sweepStep(ctx context.Context, dir string, side manifest.Resolved, params []results.SweepParam, repeat int, env series.Env) (saturation.SweepRecord, error) {
	rec, err := saturation.ReadSweep(dir)
	switch {
	case err != nil:
		m, merr := plan.ManifestOf(side.Name, side)
		if merr != nil {
			return rec, merr
		}
		if serr := q.save(); serr != nil {
			return rec, serr
		}
		rec, err = series.Sweep(ctx, series.SweepOptions{Manifest: m, Params: params, Repeat: repeat,
			Criterion: saturation.DefaultCriterion(), Dir: dir, Env: env})
	case !results.Finished(rec.Status):
		rec, err = series.ResumeSweep(ctx, dir, false, env)
	}
	return rec, seriesErr(ctx, err)
}
