package qa

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/cometlab/cometlab/internal/qa/plan"
	"github.com/cometlab/cometlab/internal/report"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/series"
)

// storage runs the storage matrix: the candidate at the QA load with the
// plan's storage knobs crossed, one run each, as a sweep in its
// directory, resumed where it stopped. Like the storage report's, it has
// no baseline to judge against: its verdict is not judged, and its
// summary says each cell's storage growth per hour, measured or
// extrapolated.
func (q *qaRun) storage(ctx context.Context, ps results.QAPlanStep, st *results.QAStep) error {
	rel := stepDir(ps.ID)
	dir := filepath.Join(q.dir, rel)
	st.Dirs = []string{rel}
	if len(q.rec.Plan.StorageParams) == 0 || len(ps.Runs) == 0 {
		return fmt.Errorf("no storage knob planned")
	}
	side, err := plan.WithChanges(q.sides[1], append(q.loadChanges(), ps.Runs[0].Changes...))
	if err != nil {
		return err
	}
	rec, err := q.sweepStep(ctx, dir, side, q.rec.Plan.StorageParams, 1, storageEnv(q.env))
	if err != nil {
		return err
	}
	st.Verdict, st.Summary = results.QAVerdictNotJudged, report.QAStorageSummary(report.QAStorageRows(dir, rec))
	return q.safety(st)
}

// storageEnv is env with the data directories walked every second: the
// adaptive default may walk a short run's directories once, and growth
// per hour needs at least two walks.
func storageEnv(env series.Env) series.Env {
	env.DataWalkInterval = time.Second
	return env
}
