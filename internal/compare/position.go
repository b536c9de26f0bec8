package compare

import (
	"math"

	"github.com/cometlab/cometlab/internal/stats"
)

// PositionEffect is how much the second run of a pair differed from the
// first, over the pairs of an A/A experiment (both runs the same setup):
// a host that warms up, fills a cache or a disk between the two runs
// shows as a mean change that is not 0.
type PositionEffect struct {
	Metric string `json:"metric"`
	Pairs  int    `json:"pairs"`
	// MeanPct is the mean over the pairs of 100·(second − first)/first;
	// LoPct…HiPct its t interval at the experiment's confidence.
	MeanPct float64 `json:"mean_pct"`
	LoPct   float64 `json:"lo_pct"`
	HiPct   float64 `json:"hi_pct"`
}

// Excludes0 says whether the interval shows an effect.
func (p PositionEffect) Excludes0() bool { return p.LoPct > 0 || p.HiPct < 0 }

// PositionMetrics are the metrics whose position effect an A/A reports.
var PositionMetrics = []string{"block_latency_mean_ms", "block_latency_p99_ms", "committed_tps", "observed_latency_p50_ms"}

// PositionEffects measures the position effect of each metric id over the
// pairs (firsts[i], seconds[i]): the runs that ran first and second in
// each round. Pairs missing a metric or with a first value of 0 are left
// out of that metric; a metric with fewer than 2 pairs is left out. The
// interval is mean ± t(1 − (1 − conf)/2; n − 1)·s/√n.
func PositionEffects(firsts, seconds []Run, ids []string, conf float64) []PositionEffect {
	var out []PositionEffect
	for _, id := range ids {
		var d []float64
		for i := range min(len(firsts), len(seconds)) {
			a, okA := finite(firsts[i].Metrics, id)
			b, okB := finite(seconds[i].Metrics, id)
			if okA && okB && a != 0 {
				d = append(d, 100*(b-a)/math.Abs(a))
			}
		}
		if len(d) < 2 {
			continue
		}
		m := stats.Mean(d)
		half := stats.TQuantile(1-(1-conf)/2, float64(len(d)-1)) * stats.StdDev(d) / math.Sqrt(float64(len(d)))
		out = append(out, PositionEffect{Metric: id, Pairs: len(d), MeanPct: m, LoPct: m - half, HiPct: m + half})
	}
	return out
}
