package analysis

import (
	"math"

	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/stats"
)

// TrendMinDuration is the shortest load (s) whose decline over time is
// fitted: 5 minutes.
const TrendMinDuration = 300

// TrendEdge is the fraction of the windows at each end whose mean gives a
// trend's First and Last figures: the first and last 10 %.
const TrendEdge = 0.10

// TrendThreshold is the smallest relative change between the first and
// the last 10 % that TrendVerdict calls a decline or a rise (when the
// slope's 95 % interval also excludes 0).
const TrendThreshold = 0.05

// Trend is a least-squares line y = a + b·x through per-window values,
// x = window middle in s since the load start.
type Trend struct {
	X, Y []float64 // the windows with a value
	// Slope b per minute, and the half width of its 95 % confidence
	// interval (Student's t with n − 2 degrees of freedom, the windows
	// taken as independent: noise that lasts longer than a window makes
	// the true interval wider). NaN with fewer than 3 windows.
	Slope, CI95 float64
	Intercept   float64
	// First and Last are the means of the values of the first and the
	// last TrendEdge of the windows (at least one window each).
	First, Last float64
}

// FitTrend fits the trend of the values ys at the times xs (s); NaN
// values are left out.
func FitTrend(xs, ys []float64) Trend {
	t := Trend{Slope: math.NaN(), CI95: math.NaN(), Intercept: math.NaN(), First: math.NaN(), Last: math.NaN()}
	for i, y := range ys {
		if !math.IsNaN(y) {
			t.X, t.Y = append(t.X, xs[i]), append(t.Y, y)
		}
	}
	n := len(t.X)
	if n == 0 {
		return t
	}
	k := max(1, int(math.Round(float64(n)*TrendEdge)))
	t.First, t.Last = stats.Mean(t.Y[:k]), stats.Mean(t.Y[n-k:])
	if n < 3 {
		return t
	}
	l, ok := stats.FitLine(t.X, t.Y)
	if !ok {
		return t
	}
	t.Slope, t.CI95, t.Intercept = l.Slope*60, l.SlopeCI95()*60, l.Intercept
	return t
}

// Change returns Last ÷ First: the ratio between the end and the start
// of the run.
func (t Trend) Change() float64 { return t.Last / t.First }

// Significant tells whether the slope's 95 % interval excludes 0 and the
// first and last 10 % differ by at least TrendThreshold: a real rise
// (> 0) or fall (< 0). It returns 0 otherwise.
func (t Trend) Significant() int {
	if math.IsNaN(t.Slope) || math.Abs(t.Slope) <= t.CI95 || math.IsNaN(t.Change()) || math.Abs(t.Change()-1) < TrendThreshold {
		return 0
	}
	if t.Slope > 0 {
		return 1
	}
	return -1
}

// TrendWindows returns the number and width (ns) of the windows over a
// load of dur s: 10 s windows, at least 30 and at most 120 of them.
func TrendWindows(dur float64) (n int, width int64) {
	n = min(120, max(30, int(dur/10)))
	return n, int64(dur * results.NsPerS / float64(n))
}

// Trends returns the committed tx/s and the mean block latency (ms) of
// the load's windows (TrendWindows, from the load start; a gives the
// latencies, in.Aggregates()), each block
// counted at its commit time with its run transactions and their block
// latencies, and their fitted trends. ok is false when the load is
// shorter than TrendMinDuration or its start is not known. The fit is on
// windows over the whole load, not over the last blocks (tm-bench's
// figure over its last 20 blocks made a steady network look declining).
func Trends(in Input, a *TxAggregates) (tps, latency Trend, ok bool) {
	start, dur := in.LoadStart(), in.Run.Load.DurationS
	if !in.Run.LoadStart.IsZero() && !in.Run.LoadEnd.IsZero() && in.Run.LoadEnd.After(in.Run.LoadStart) {
		dur = in.Run.LoadEnd.Sub(in.Run.LoadStart).Seconds()
	}
	if start == 0 || dur < TrendMinDuration {
		return tps, latency, false
	}
	n, width := TrendWindows(dur)
	txs := make([]float64, n)
	lsum := make([]float64, n)
	lcount := make([]float64, n)
	heights := a.Heights
	for _, k := range in.RunBlocks() {
		t := k.Committed()
		if t < start {
			continue
		}
		w := (t - start) / width
		if w >= int64(n) {
			continue
		}
		txs[w] += float64(k.RunTxs)
		if h := heights[k.Height]; h != nil {
			lsum[w] += h.Sum
			lcount[w] += float64(h.N)
		}
	}
	xs, rate, lat := make([]float64, n), make([]float64, n), make([]float64, n)
	for w := range n {
		xs[w] = (float64(w) + 0.5) * float64(width) / results.NsPerS
		rate[w] = txs[w] / (float64(width) / results.NsPerS)
		lat[w] = math.NaN()
		if lcount[w] > 0 {
			lat[w] = lsum[w] / lcount[w] / results.NsPerMs
		}
	}
	return FitTrend(xs, rate), FitTrend(xs, lat), true
}

// trendFigures puts the decline-over-time figures of loads of at least
// TrendMinDuration.
func trendFigures(in Input, a *TxAggregates, b *builder) {
	tps, lat, ok := Trends(in, a)
	if !ok {
		return
	}
	const few = "fewer than 3 windows with a committed transaction"
	b.put("tps_slope_per_min", tps.Slope, few)
	b.put("tps_slope_ci95_per_min", tps.CI95, few)
	b.put("tps_first10", tps.First, "no window")
	b.put("tps_last10", tps.Last, "no window")
	b.put("tps_change_ratio", tps.Change(), "no committed transaction in the first 10 % of the load")
	b.put("block_latency_slope_ms_per_min", lat.Slope, few)
	b.put("block_latency_slope_ci95_ms_per_min", lat.CI95, few)
	b.put("block_latency_first10_ms", lat.First, "no window with a committed transaction")
	b.put("block_latency_last10_ms", lat.Last, "no window with a committed transaction")
	b.put("block_latency_change_ratio", lat.Change(), "no window with a committed transaction")
}

// trendDictionary returns the decline-over-time entries.
func trendDictionary() []Metric {
	const win = " Windows: the load cut into 30 to 120 equal windows (10 s each, wider past 20 minutes), from the load start; each block counted at its commit time. Only for loads of at least 5 minutes."
	const fit = " Least-squares line through the windows' values against the window's middle (the whole load, not its last blocks)"
	return []Metric{
		{ID: "tps_slope_per_min", Title: "Tx/s trend", Unit: UnitTPSPerMin, Better: HigherIsBetter, Group: GroupThroughput, Source: "blocks.csv, run.json",
			Definition: "Slope of the committed tx/s over the load, per minute." + fit + " of each window's run transactions ÷ its width." + win},
		{ID: "tps_slope_ci95_per_min", Title: "Tx/s trend ±95 %", Unit: UnitTPSPerMin, Better: Neutral, Group: GroupThroughput, Source: "blocks.csv, run.json",
			Definition: "Half width of the 95 % confidence interval of tps_slope_per_min (Student's t, n − 2 degrees of freedom, windows taken as independent)." + win},
		{ID: "tps_first10", Title: "Tx/s, first 10 %", Unit: UnitTPS, Better: Neutral, Group: GroupThroughput, Source: "blocks.csv, run.json",
			Definition: "Mean committed tx/s of the first 10 % of the windows." + win},
		{ID: "tps_last10", Title: "Tx/s, last 10 %", Unit: UnitTPS, Better: HigherIsBetter, Group: GroupThroughput, Source: "blocks.csv, run.json",
			Definition: "Mean committed tx/s of the last 10 % of the windows." + win},
		{ID: "tps_change_ratio", Title: "Tx/s last ÷ first", Unit: UnitRatio, Better: HigherIsBetter, Group: GroupThroughput, Source: "blocks.csv, run.json",
			Definition: "tps_last10 ÷ tps_first10: below 1 the committed rate fell during the load. The report calls it a decline when it is below 0.95 and the slope's 95 % interval is below 0." + win},
		{ID: "block_latency_slope_ms_per_min", Title: "Block latency trend", Unit: UnitMSPerMin, Better: LowerIsBetter, Group: GroupLatency, Source: "txs.csv, blocks.csv, run.json",
			Definition: "Slope of the mean block latency over the load, per minute." + fit + " of each window's mean block latency (over the run transactions of the blocks committed in it, duplicates excluded)." + win},
		{ID: "block_latency_slope_ci95_ms_per_min", Title: "Block latency trend ±95 %", Unit: UnitMSPerMin, Better: Neutral, Group: GroupLatency, Source: "txs.csv, blocks.csv, run.json",
			Definition: "Half width of the 95 % confidence interval of block_latency_slope_ms_per_min (as for tps_slope_ci95_per_min)." + win},
		{ID: "block_latency_first10_ms", Title: "Block latency, first 10 %", Unit: UnitMS, Better: Neutral, Group: GroupLatency, Source: "txs.csv, blocks.csv, run.json",
			Definition: "Mean of the windows' mean block latency over the first 10 % of the windows with a committed transaction." + win},
		{ID: "block_latency_last10_ms", Title: "Block latency, last 10 %", Unit: UnitMS, Better: LowerIsBetter, Group: GroupLatency, Source: "txs.csv, blocks.csv, run.json",
			Definition: "Mean of the windows' mean block latency over the last 10 % of the windows with a committed transaction." + win},
		{ID: "block_latency_change_ratio", Title: "Block latency last ÷ first", Unit: UnitRatio, Better: LowerIsBetter, Group: GroupLatency, Source: "txs.csv, blocks.csv, run.json",
			Definition: "block_latency_last10_ms ÷ block_latency_first10_ms: above 1 latency rose during the load. The report calls it a rise when it is above 1.05 and the slope's 95 % interval is above 0." + win},
	}
}

// Growth is what a quantity of the nodes was in the first and in the
// last TrendEdge of the load: what may have grown while throughput fell
// or latency rose.
type Growth struct {
	What, Unit, Source string
	First, Last        float64 // NaN when there is no sample
}

// TrendGrowth returns, over the first and the last TrendEdge of the load
// (run.json's load start and end): the mean data-directory size and RSS
// over every node's samples of resources.csv (MiB), and the mean block
// processing time (ms: Σ over nodes of the increase of
// state_block_processing_time_sum ÷ Σ of _count's) from metrics.csv.
// Quantities without any sample are left out.
func TrendGrowth(in Input) []Growth {
	if in.Run.LoadStart.IsZero() || !in.Run.LoadEnd.After(in.Run.LoadStart) {
		return nil
	}
	start, end := in.Run.LoadStart.UnixNano(), in.Run.LoadEnd.UnixNano()
	edge := int64(float64(end-start) * TrendEdge)
	spans := [2][2]int64{{start, start + edge}, {end - edge, end}}
	var out []Growth
	res := func(what string, get func(*results.Resource) float64) {
		g := Growth{What: what, Unit: UnitMiB, Source: results.ResourceFile}
		for k, sp := range spans {
			var sum float64
			n := 0
			for i := range in.Resources {
				if r := &in.Resources[i]; r.Time >= sp[0] && r.Time <= sp[1] {
					sum += get(r)
					n++
				}
			}
			v := math.NaN()
			if n > 0 {
				v = sum / float64(n)
			}
			if k == 0 {
				g.First = v
			} else {
				g.Last = v
			}
		}
		if !math.IsNaN(g.First) || !math.IsNaN(g.Last) {
			out = append(out, g)
		}
	}
	res("data-directory size", func(r *results.Resource) float64 { return float64(r.DataBytes) / (1 << 20) })
	res("resident memory (RSS)", func(r *results.Resource) float64 { return float64(r.RSS) / (1 << 20) })

	if in.Metrics == nil {
		return out
	}
	const short = "state_block_processing_time"
	g := Growth{What: "block processing time", Unit: UnitMS, Source: results.MetricsFile + ": " + short + "_sum, _count"}
	for k, sp := range spans {
		var sum, count float64
		for _, n := range in.Metrics.Nodes() {
			s, c := in.Metrics.One(n, short+"_sum"), in.Metrics.One(n, short+"_count")
			if s == nil || c == nil {
				continue
			}
			sum += Increase(valuesIn(s, sp[0], sp[1]))
			count += Increase(valuesIn(c, sp[0], sp[1]))
		}
		v := math.NaN()
		if count > 0 {
			v = sum / count
		}
		if k == 0 {
			g.First = v
		} else {
			g.Last = v
		}
	}
	if !math.IsNaN(g.First) || !math.IsNaN(g.Last) {
		out = append(out, g)
	}
	return out
}

// valuesIn returns the values of s sampled in [from, to].
func valuesIn(s *Series, from, to int64) []float64 {
	var out []float64
	for i, t := range s.T {
		if t >= from && t <= to {
			out = append(out, s.V[i])
		}
	}
	return out
}

// IsTrendMetric tells whether id is one of the decline-over-time figures
// (computed for loads of at least TrendMinDuration only; fits over the
// load, not statistics of the latency or tx/s distributions).
func IsTrendMetric(id string) bool {
	for _, m := range trendDictionary() {
		if m.ID == id {
			return true
		}
	}
	return false
}
