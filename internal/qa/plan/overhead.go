package plan

import (
	"slices"
	"time"

	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/stats"
)

// Overhead is the time a run takes besides its load, measured from
// what run.json records of finished runs: the median over the complete
// runs of (ended − started) − (load end − load start) — the testnet's
// start-up, the drain, the read-back and the stop. n is the runs it is
// measured from (0: none had all four times; the overhead is then 0).
func Overhead(runs []results.Run) (overhead time.Duration, n int) {
	var xs []float64
	for _, r := range runs {
		if r.Status != results.StatusComplete || r.Started.IsZero() || r.LoadStart.IsZero() || r.LoadEnd.IsZero() || r.Ended.IsZero() {
			continue
		}
		o := r.Ended.Sub(r.Started) - r.LoadEnd.Sub(r.LoadStart)
		if o > 0 {
			xs = append(xs, o.Seconds())
		}
	}
	if len(xs) == 0 {
		return 0, 0
	}
	slices.Sort(xs)
	return results.Seconds(stats.Percentile(xs, 50)).Round(time.Second), len(xs)
}
