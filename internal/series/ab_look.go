package series

import (
	"fmt"
	"math"
	"slices"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/compare"
	"github.com/cometlab/cometlab/internal/sequential"
)

// abLook reads the runs so far (dirs: per side, base first) and applies
// the stepping rule of rec (auto) to every candidate; stop is true when
// every candidate may stop, or with --stop worse when a metric is decided
// worse.
func abLook(dirs [][]string, labels []string, th compare.Thresholds, rec ABRecord) ([]sequential.Decision, bool, error) {
	runs := make([][]compare.Run, len(dirs))
	for i, ds := range dirs {
		for _, d := range ds {
			r, err := compare.LoadRun(d, compare.LoadOptions{})
			if err != nil {
				return nil, false, fmt.Errorf("%s: %w", labels[i], err)
			}
			runs[i] = append(runs[i], r)
		}
	}
	cfg := sequential.Config{Alpha: th.Alpha, MaxPairs: rec.MaxPairs, FamilyWise: rec.FamilyWise}
	stop := true
	var decs []sequential.Decision
	for ci := 1; ci < len(runs); ci++ {
		d, err := sequential.Step(cfg, seqMetrics(runs[0], runs[ci], th, rec.Judged))
		if err != nil {
			return nil, false, err
		}
		decs = append(decs, d)
		stop = stop && d.Stop
	}
	if rec.Stop == "worse" && anyOutcome(decs, sequential.Worse) {
		stop = true
	}
	return decs, stop, nil
}

// seqMetrics pairs the runs of two sides round by round, for every judged
// metric of the dictionary that every run has (only those in only, when
// it is not empty).
func seqMetrics(base, cand []compare.Run, th compare.Thresholds, only []string) []sequential.Metric {
	n := min(len(base), len(cand))
	var ms []sequential.Metric
	for _, dm := range analysis.Dictionary() {
		pct, minDelta, ignore := th.For(dm.ID)
		if ignore || dm.Better == analysis.Neutral || (len(only) > 0 && !slices.Contains(only, dm.ID)) {
			continue
		}
		m := sequential.Metric{ID: dm.ID, ThresholdPct: pct, MinDelta: minDelta, Better: sequential.LowerIsBetter}
		if dm.Better == analysis.HigherIsBetter {
			m.Better = sequential.HigherIsBetter
		}
		ok := true
		for i := range n {
			b, okB := base[i].Metrics[dm.ID]
			c, okC := cand[i].Metrics[dm.ID]
			if !okB || !okC || math.IsNaN(b) || math.IsNaN(c) {
				ok = false
				break
			}
			m.Base, m.Cand = append(m.Base, b), append(m.Cand, c)
		}
		if ok && n > 0 {
			ms = append(ms, m)
		}
	}
	return ms
}

// anyOutcome says whether some metric of some decision has outcome o.
func anyOutcome(decs []sequential.Decision, o sequential.Outcome) bool {
	for _, d := range decs {
		for _, r := range d.Metrics {
			if r.Outcome == o {
				return true
			}
		}
	}
	return false
}

// SequentialVerdict is the verdict of --repeat auto: worse when some
// metric of some candidate was decided worse, else better when some was
// decided better, else no change.
func SequentialVerdict(decs []sequential.Decision) compare.Verdict {
	switch {
	case anyOutcome(decs, sequential.Worse):
		return compare.Worse
	case anyOutcome(decs, sequential.Better):
		return compare.Better
	}
	return compare.NoChange
}

// decisionLine counts a decision's outcomes and names the metrics found
// worse or better.
func decisionLine(d sequential.Decision) string {
	count := map[sequential.Outcome]int{}
	var changed []string
	for _, r := range d.Metrics {
		count[r.Outcome]++
		if r.Outcome == sequential.Worse || r.Outcome == sequential.Better {
			changed = append(changed, fmt.Sprintf("%s %v (at %d pairs)", r.ID, r.Outcome, r.DecidedAt))
		}
	}
	s := fmt.Sprintf("%d worse, %d better, %d equivalent, %d undecided", count[sequential.Worse], count[sequential.Better],
		count[sequential.Equivalent], count[sequential.Undecided])
	if len(changed) > 0 {
		s += fmt.Sprintf(": %v", changed)
	}
	return s
}
