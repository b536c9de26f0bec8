package saturation

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/stats"
)

// Evidence is what the saturation criterion looks at in one run: the load
// asked for, how the run ended, and the figures each check needs. Figures
// that could not be computed are nil.
type Evidence struct {
	Connections int     `json:"connections"`
	Rate        float64 `json:"rate"` // tx/s per connection
	DurationS   float64 `json:"duration_s"`
	Status      string  `json:"status"`
	Interrupted bool    `json:"interrupted,omitempty"`

	ExpectedTxs     float64  `json:"expected_txs"`
	CommittedTxs    float64  `json:"committed_txs"`
	ThroughputRatio *float64 `json:"throughput_ratio,omitempty"`
	CommittedTPS    *float64 `json:"committed_tps,omitempty"`
	LatencyMeanMS   *float64 `json:"block_latency_mean_ms,omitempty"`
	LatencyP99MS    *float64 `json:"block_latency_p99_ms,omitempty"`

	Trend  *Trend  `json:"latency_trend,omitempty"`
	Drain  *Drain  `json:"drain,omitempty"`
	Rounds *Rounds `json:"rounds,omitempty"`

	// HostBusyPct is how much of the host's CPU went to other work during
	// the load (host_other_cpu_mean_pct); nil for a run without host.csv.
	HostBusyPct *float64 `json:"host_busy_pct,omitempty"`
}

// Disturbed says whether other work on the host took more than
// analysis.DisturbedPct of its CPU during the run's load.
func (e Evidence) Disturbed() bool {
	return e.HostBusyPct != nil && *e.HostBusyPct > analysis.DisturbedPct
}

// Trend is a least-squares line through per-block mean block latency (s)
// against mean send time (s since load start) over the steady window.
type Trend struct {
	Slope  float64 `json:"slope"` // s of latency per s of send time
	Low    float64 `json:"low"`   // 95 % confidence interval of the slope; equal to Slope when Points < 3
	High   float64 `json:"high"`
	Points int     `json:"points"` // blocks with a transaction sent in the window
	FromS  float64 `json:"from_s"` // the window, s since load start
	ToS    float64 `json:"to_s"`
}

// Drain is how long after the end of the load every mempool was empty.
type Drain struct {
	Seconds float64 `json:"seconds"` // when Drained is false: how long it was watched
	Drained bool    `json:"drained"`
	Source  string  `json:"source"` // where the figure comes from (one of the DrainFrom constants)
}

// Sources of a Drain.
const (
	DrainFromMetrics = "metrics.csv cometbft_mempool_size"
	DrainFromRPC     = "rpc num_unconfirmed_txs"
	DrainFromChain   = "chain: last commit of a run transaction"
)

// Rounds counts the run's heights by commit round.
type Rounds struct {
	Heights  int   `json:"heights"`
	Late     int   `json:"late"` // heights committed in a round above 0
	MaxRound int32 `json:"max_round"`
	// Absent counts the late heights whose round-0 proposer was an absent
	// validator (absent_proposer_heights): the scenario's, not the load's,
	// so the criterion does not count them.
	Absent int `json:"absent,omitempty"`
}

// Estimate returns the run's estimate of the highest sustainable rate per
// connection (tx/s), for a run that failed the criterion:
//
//	min( committed_tps / c,  r / (1 + slope) )
//
// The first term is what the network committed while overloaded; the
// second inverts the queue-growth slope (λ − μ)/μ of a backlog. Terms that
// are not known (or a slope ≤ 0) are left out; 0 when neither is known.
func (ev Evidence) Estimate() float64 {
	est := math.Inf(1)
	if ev.CommittedTPS != nil && ev.Connections > 0 && *ev.CommittedTPS > 0 {
		est = *ev.CommittedTPS / float64(ev.Connections)
	}
	if t := ev.Trend; t != nil && t.Points >= 3 && t.Slope > 0 && ev.Rate > 0 {
		est = min(est, ev.Rate/(1+t.Slope))
	}
	if math.IsInf(est, 1) {
		return 0
	}
	return est
}

// TotalRate is the offered load c × r in tx/s.
func (ev Evidence) TotalRate() float64 { return float64(ev.Connections) * ev.Rate }

// EvidenceOf gathers the criterion's evidence from a run's records
// and summary. metrics are the rows of metrics.csv (nil when there is
// none); polled is a drain measured while the run went on (nil when not
// measured). A time-scaled run's evidence is in model time (toModel).
// The drain comes from metrics.csv when it shows the mempools
// empty after the load, else from polled, else from the chain (the last
// commit of a run transaction). A run whose run.json says the mempools did
// not drain is never counted as drained. It is pure.
func EvidenceOf(c Criterion, in analysis.Input, s analysis.Summary, metrics []results.Metric, polled *Drain) Evidence {
	l := in.Run.Load
	ev := Evidence{Connections: l.Connections, Rate: l.Rate, DurationS: l.DurationS, Status: in.Run.Status,
		ExpectedTxs: s.Metrics["expected_txs"], CommittedTxs: s.Metrics["committed_txs"]}
	for _, e := range in.Run.Errors {
		if e == "interrupted" {
			ev.Interrupted = true
		}
	}
	ptr := func(id string) *float64 {
		if v, ok := s.Metrics[id]; ok {
			return &v
		}
		return nil
	}
	ev.ThroughputRatio = ptr("throughput_ratio")
	ev.CommittedTPS = ptr("committed_tps")
	ev.LatencyMeanMS = ptr("block_latency_mean_ms")
	ev.LatencyP99MS = ptr("block_latency_p99_ms")
	ev.HostBusyPct = ptr("host_other_cpu_mean_pct")

	start := in.Run.LoadStart.UnixNano()
	if !in.Run.LoadStart.IsZero() && l.DurationS > 0 {
		t := LatencyTrend(in.Txs, start, c.SteadyFrom*l.DurationS, c.SteadyTo*l.DurationS)
		ev.Trend = &t
	}
	if r, ok := CountRounds(in.Blocks, in.Run.FirstHeight, in.Run.LastHeight); ok {
		if v := ptr("absent_proposer_heights"); v != nil {
			r.Absent = int(*v)
		}
		ev.Rounds = &r
	}

	// run.json's drain; a run recorded before it had one says so in its
	// errors.
	notDrained := in.Run.Drain != nil && !in.Run.Drain.Drained
	for _, e := range in.Run.Errors {
		if in.Run.Drain == nil && strings.HasPrefix(e, "mempools not empty") {
			notDrained = true
		}
	}
	if polled == nil && in.Run.Drain != nil {
		polled = &Drain{Seconds: in.Run.Drain.Seconds, Drained: in.Run.Drain.Drained, Source: DrainFromRPC}
	}
	if !in.Run.LoadEnd.IsZero() {
		end := in.Run.LoadEnd.UnixNano()
		var d *Drain
		if m, ok := DrainOfMetrics(metrics, end); ok && m.Drained {
			d = &m
		} else if polled != nil {
			d = polled
		} else if ch, ok := DrainOfChain(in.Blocks, end); ok {
			d = &ch
		}
		if d != nil && notDrained && d.Drained {
			d = &Drain{Seconds: d.Seconds, Drained: false, Source: d.Source + "; run.json: mempools not empty after the drain timeout"}
		}
		ev.Drain = d
	}
	ev.toModel(in.Run.Scale())
	return ev
}

// toModel turns evidence gathered in a time-scaled run's host time (the
// load of in.Run, the records) into the model's time by the one rule the
// summary's figures follow (analysis.ModelValue, by unit): the rate ×k,
// the duration, the trend's window and the drain ÷k; the latency slope,
// seconds per second, is the same.
func (ev *Evidence) toModel(k float64) {
	if k == 0 || k == 1 {
		return
	}
	ev.Rate = analysis.ModelValue(ev.Rate, analysis.UnitTPS, k)
	ev.DurationS = analysis.ModelValue(ev.DurationS, analysis.UnitS, k)
	if ev.Trend != nil {
		t := ev.Trend.InModel(k)
		ev.Trend = &t
	}
	if ev.Drain != nil {
		d := *ev.Drain
		d.Seconds = analysis.ModelValue(d.Seconds, analysis.UnitS, k)
		ev.Drain = &d
	}
}

// InModel is t, fitted in a time-scaled run's host time, in the model's:
// its window ÷k (analysis.ModelValue of seconds); the slope (seconds of
// latency per second) is the same. t itself at k = 1.
func (t Trend) InModel(k float64) Trend {
	t.FromS, t.ToS = analysis.ModelValue(t.FromS, analysis.UnitS, k), analysis.ModelValue(t.ToS, analysis.UnitS, k)
	return t
}

// LatencyTrend fits the latency trend over the send-time window
// [start + fromS, start + toS) (seconds after start, Unix ns). Each block
// holding a transaction sent in the window (duplicates and transactions
// without a commit time left out) gives one point: x = mean send time − start
// and y = mean block latency of those transactions, in s. The slope is
// ordinary least squares,
//
//	b = Σ(x − x̄)(y − ȳ) / Σ(x − x̄)²,  se = sqrt( Σ(y − ŷ)² / (n − 2) / Σ(x − x̄)² )
//
// with the 95 % interval b ± t(0.975, n − 2)·se. With fewer than 3 points
// (or all x equal) the slope is 0 and the interval is [0, 0].
func LatencyTrend(txs []results.Tx, start int64, fromS, toS float64) Trend {
	f := NewTrendFit(start, fromS, toS)
	for i := range txs {
		f.Add(&txs[i])
	}
	return f.Trend()
}

// TrendFit fits LatencyTrend one transaction at a time, so that a
// streamed txs.csv gives the trend in memory bounded by its blocks.
type TrendFit struct {
	start, lo, hi int64
	fromS, toS    float64
	byHeight      map[int64]*trendAcc
}

type trendAcc struct {
	sx, sy float64
	n      int
}

// NewTrendFit returns an empty fit over the send-time window
// [start + fromS, start + toS) (seconds after start, Unix ns).
func NewTrendFit(start int64, fromS, toS float64) *TrendFit {
	return &TrendFit{start: start, lo: start + int64(fromS*results.NsPerS), hi: start + int64(toS*results.NsPerS),
		fromS: fromS, toS: toS, byHeight: map[int64]*trendAcc{}}
}

// Add counts t when it was sent in the window, committed with a commit
// time and is not a duplicate.
func (f *TrendFit) Add(t *results.Tx) {
	if t.Duplicate || t.CommitTime == 0 || t.Sent < f.lo || t.Sent >= f.hi {
		return
	}
	a := f.byHeight[t.Height]
	if a == nil {
		a = &trendAcc{}
		f.byHeight[t.Height] = a
	}
	a.sx += float64(t.Sent-f.start) / results.NsPerS
	a.sy += float64(t.Latency()) / results.NsPerS
	a.n++
}

// Trend returns the fit of the transactions added so far.
func (f *TrendFit) Trend() Trend {
	tr := Trend{FromS: f.fromS, ToS: f.toS}
	heights := make([]int64, 0, len(f.byHeight))
	for h := range f.byHeight {
		heights = append(heights, h)
	}
	slices.Sort(heights)
	xs := make([]float64, len(heights))
	ys := make([]float64, len(heights))
	for i, h := range heights {
		a := f.byHeight[h]
		xs[i], ys[i] = a.sx/float64(a.n), a.sy/float64(a.n)
	}
	tr.Points = len(xs)
	l, ok := stats.FitLine(xs, ys)
	if !ok || l.N < 3 {
		return tr
	}
	b, h := l.Slope, l.SlopeCI95()
	tr.Slope, tr.Low, tr.High = b, b-h, b+h
	return tr
}

// CountRounds counts the heights first…last of blocks (all of them when
// first and last are 0) by commit round; ok is false when there is none.
func CountRounds(blocks []results.Block, first, last int64) (Rounds, bool) {
	var r Rounds
	for i := range blocks {
		k := &blocks[i]
		if (first != 0 && k.Height < first) || (last != 0 && k.Height > last) {
			continue
		}
		r.Heights++
		if k.Round > 0 {
			r.Late++
		}
		r.MaxRound = max(r.MaxRound, k.Round)
	}
	return r, r.Heights > 0
}

// MempoolMetric is the Prometheus gauge of a node's mempool size, after
// the namespace ("cometbft_mempool_size", "tendermint_mempool_size").
const MempoolMetric = "mempool_size"

// DrainOfMetrics finds, in metrics.csv rows, the first scrape at or after
// loadEnd (Unix ns) at which the latest MempoolMetric sample (any
// namespace; several series of a node at one time are summed) of every
// node is 0. ok is false when no node has a sample after loadEnd. When the
// mempools never show empty, Drained is false and Seconds is the time from
// loadEnd to the last sample.
func DrainOfMetrics(rows []results.Metric, loadEnd int64) (Drain, bool) {
	type sample struct {
		t    int64
		node string
		v    float64
	}
	var ss []sample
	nodes := map[string]bool{}
	for i := range rows {
		m := &rows[i]
		if m.Name != MempoolMetric && !strings.HasSuffix(m.Name, "_"+MempoolMetric) {
			continue
		}
		ss = append(ss, sample{m.Time, m.Node, m.Value})
		nodes[m.Node] = true
	}
	slices.SortStableFunc(ss, func(a, b sample) int { return cmp.Compare(a.t, b.t) })
	latest := map[string]float64{}
	seenAfter := map[string]bool{}
	var last int64
	for i, s := range ss {
		// A node's mempool may have several series (labels): sum them.
		if i == 0 || ss[i-1].t != s.t || ss[i-1].node != s.node {
			latest[s.node] = 0
		}
		latest[s.node] += s.v
		if s.t < loadEnd {
			continue
		}
		seenAfter[s.node] = true
		last = s.t
		if i+1 < len(ss) && ss[i+1].t == s.t {
			continue // finish this scrape instant first
		}
		if len(seenAfter) < len(nodes) {
			continue
		}
		empty := true
		for _, v := range latest {
			empty = empty && v == 0
		}
		if empty {
			return Drain{Seconds: float64(s.t-loadEnd) / results.NsPerS, Drained: true, Source: DrainFromMetrics}, true
		}
	}
	if len(seenAfter) == 0 {
		return Drain{}, false
	}
	return Drain{Seconds: float64(last-loadEnd) / results.NsPerS, Drained: false, Source: DrainFromMetrics}, true
}

// DrainOfChain is the chain's view of the drain: the commit time of the
// last block holding a run transaction − loadEnd (Unix ns), at least 0.
// ok is false when no block holds a run transaction.
func DrainOfChain(blocks []results.Block, loadEnd int64) (Drain, bool) {
	var last int64
	for i := range blocks {
		k := &blocks[i]
		if k.RunTxs == 0 {
			continue
		}
		t := k.CommitTime // the time of block H+1: when H was committed
		if t == 0 {
			t = k.Time
		}
		last = max(last, t)
	}
	if last == 0 {
		return Drain{}, false
	}
	return Drain{Seconds: max(0, float64(last-loadEnd)/results.NsPerS), Drained: true, Source: DrainFromChain}, true
}
