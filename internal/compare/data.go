package compare

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
)

// Distributions a comparison tests, by name (Run.Samples).
const (
	DistBlockLatency    = "block_latency"    // ms per committed transaction, clustered by height
	DistObservedLatency = "observed_latency" // ms per committed transaction, clustered by height
	DistTPS             = "tps"              // run transactions committed per 1-second window
	DistBlocksPerS      = "blocks_per_s"     // blocks committed per 1-second window
	DistBlockInterval   = "block_interval"   // s between consecutive header times
	DistAdoption        = "adoption"         // ms a node committed a height after the first node, clustered by height
)

// DistInfo describes one distribution of a comparison.
type DistInfo struct {
	Name       string
	Title      string
	Unit       string
	Definition string
	Better     analysis.Better // for the mean and percentiles
	// Per names the units the bootstrap resamples and the rank test
	// ranks: "blocks" for values clustered by height.
	Per string
}

// Distributions returns the distributions a comparison tests, in report
// order.
func Distributions() []DistInfo {
	return []DistInfo{
		{DistBlockLatency, "Block latency", analysis.UnitMS, "per committed transaction (duplicates excluded): commit time of its block − send time; clusters are heights", analysis.LowerIsBetter, "blocks"},
		{DistObservedLatency, "Observed latency", analysis.UnitMS, "per committed transaction: when the target node committed its height (cometlab's clock) − send time; clusters are heights", analysis.LowerIsBetter, "blocks"},
		{DistTPS, "Committed tx/s", analysis.UnitTPS, "run transactions committed in each 1-second window from the load start (as tps_mean)", analysis.HigherIsBetter, "1-s windows"},
		{DistBlocksPerS, "Blocks/s", analysis.UnitBPS, "blocks committed in each 1-second window (as blocks_per_s_mean)", analysis.Neutral, "1-s windows"},
		{DistBlockInterval, "Block interval", analysis.UnitS, "header time(H+1) − header time(H) over consecutive heights of the run", analysis.Neutral, "intervals"},
		{DistAdoption, "Block adoption lag", analysis.UnitMS, "for each height and each node but the first to commit it: its local commit time − the first node's; clusters are heights", analysis.LowerIsBetter, "blocks"},
	}
}

// distOf returns the distribution description of name.
func distOf(name string) (DistInfo, bool) {
	for _, d := range Distributions() {
		if d.Name == name {
			return d, true
		}
	}
	return DistInfo{}, false
}

// evidence says which data decides whether a change of a metric is
// significant in a comparison of single runs: a distribution (and the
// statistic of it the metric is, "" when it is no simple statistic of it),
// or a count out of a denominator metric.
type evidence struct {
	dist  string
	stat  Stat
	count string // denominator metric id of a count metric
}

// evidenceOf maps a dictionary id to its evidence; the zero value means
// none (a single run gives no noise estimate for it).
func evidenceOf(id string) evidence {
	stat := func(rest string) Stat {
		for t := range strings.SplitSeq(rest, "_") {
			if s := Stat(t); s == StatMean || s == "stddev" || s == "min" || s == "max" {
				return s
			} else if _, ok := s.Percentile(); ok {
				return s
			}
		}
		return ""
	}
	switch {
	case analysis.IsTrendMetric(id):
		return evidence{} // a fit over one run's windows: no noise estimate from the samples
	case strings.HasPrefix(id, "block_latency_"):
		return evidence{dist: DistBlockLatency, stat: stat(strings.TrimPrefix(id, "block_latency_"))}
	case strings.HasPrefix(id, "observed_latency_"):
		return evidence{dist: DistObservedLatency, stat: stat(strings.TrimPrefix(id, "observed_latency_"))}
	case strings.HasPrefix(id, "tps_"):
		return evidence{dist: DistTPS, stat: stat(strings.TrimPrefix(id, "tps_"))}
	case id == "committed_tps" || id == "throughput_ratio":
		return evidence{dist: DistTPS}
	case strings.HasPrefix(id, "blocks_per_s_"):
		return evidence{dist: DistBlocksPerS, stat: stat(strings.TrimPrefix(id, "blocks_per_s_"))}
	case strings.HasPrefix(id, "block_interval_"):
		return evidence{dist: DistBlockInterval, stat: stat(strings.TrimPrefix(id, "block_interval_"))}
	case id == "committed_txs" || id == "rejected_txs" || id == "missing_txs":
		return evidence{count: "sent_txs"}
	case id == "duplicate_txs":
		return evidence{count: "committed_txs"}
	}
	// None for the rest, notably: the adoption figures (spreads over the
	// nodes of one host, whose run-to-run noise — see the README's
	// "Comparing runs" — a within-run test cannot see), and
	// the generator's own counts (late_sends, unsent_txs, unanswered_txs:
	// bursty, so a proportion test would call noise significant).
	return evidence{}
}

// Samples returns the distributions of a run that a comparison
// tests (see Distributions), computed as Summarize computes the
// corresponding figures; a distribution without data is left out. It is
// pure. A time-scaled run's are in model time, as its figures: times
// ÷k, and the per-second windows a second of the model (k s of the
// host).
func Samples(in analysis.Input) map[string]DistSample {
	out := map[string]DistSample{}
	k := in.Run.Scale()
	put := func(name string, s DistSample) {
		if s.Len() == 0 {
			return
		}
		if d, ok := distOf(name); ok && k != 1 && analysis.TimeScaleExponent(d.Unit) == -1 {
			vs := make([]float64, len(s.Values))
			for i, v := range s.Values {
				vs[i] = v / k
			}
			s.Values = vs
		}
		out[name] = s
	}

	// Block and observed latency, clustered by height.
	var lat, obs DistSample
	target := map[int64]int64{} // height → first commit at the target
	for i := range in.Adoption {
		if a := &in.Adoption[i]; a.Node == in.Run.Target {
			if t, ok := target[a.Height]; !ok || a.At < t {
				target[a.Height] = a.At
			}
		}
	}
	for i := range in.Txs {
		t := &in.Txs[i]
		if t.Duplicate {
			continue
		}
		if t.CommitTime != 0 {
			lat.Values = append(lat.Values, float64(t.Latency())/results.NsPerMs)
			lat.Cluster = append(lat.Cluster, int32(t.Height))
		}
		if at, ok := target[t.Height]; ok {
			obs.Values = append(obs.Values, float64(at-t.Sent)/results.NsPerMs)
			obs.Cluster = append(obs.Cluster, int32(t.Height))
		}
	}
	put(DistBlockLatency, lat)
	put(DistObservedLatency, obs)

	// Per-second windows and block intervals, as blocks() computes them.
	ks := in.RunBlocks()
	var iv DistSample
	for i := 1; i < len(ks); i++ {
		if ks[i-1].Height+1 == ks[i].Height {
			iv.Values = append(iv.Values, float64(ks[i].Time-ks[i-1].Time)/results.NsPerS)
		}
	}
	put(DistBlockInterval, iv)
	if start := in.LoadStart(); start != 0 && len(ks) > 0 {
		times := make([]int64, len(ks))
		txs := make([]float64, len(ks))
		var lastRun int64
		for i := range ks {
			times[i] = ks[i].Committed()
			txs[i] = float64(ks[i].RunTxs)
			if ks[i].RunTxs > 0 {
				lastRun = max(lastRun, times[i])
			}
		}
		sec := int64(results.NsPerS * k) // counts per second of the model
		n := int((int64(in.Run.Load.DurationS*results.NsPerS) + sec - 1) / sec)
		if lastRun >= start {
			n = max(n, int((lastRun-start)/sec)+1)
		}
		if n > 0 {
			put(DistTPS, DistSample{Values: analysis.WindowCounts(times, txs, start, sec, n)})
			put(DistBlocksPerS, DistSample{Values: analysis.WindowCounts(times, nil, start, sec, n)})
		}
	}

	put(DistAdoption, adoptionLagSample(in))
	return out
}

// adoptionLags returns, for each height of the run's range and each node
// but the first to commit it, how long after the first node it committed
// (ms), clustered by height.
func adoptionLagSample(in analysis.Input) DistSample {
	rows := make([]results.Adoption, 0, len(in.Adoption))
	for _, a := range in.Adoption {
		if (in.Run.FirstHeight != 0 && a.Height < in.Run.FirstHeight) || (in.Run.LastHeight != 0 && a.Height > in.Run.LastHeight) {
			continue
		}
		rows = append(rows, a)
	}
	slices.SortFunc(rows, func(a, b results.Adoption) int {
		return cmp.Or(cmp.Compare(a.Height, b.Height), cmp.Compare(a.At, b.At), strings.Compare(a.Node, b.Node))
	})
	var s DistSample
	for i := 0; i < len(rows); {
		j := i
		seen := map[string]bool{}
		for ; j < len(rows) && rows[j].Height == rows[i].Height; j++ {
			if seen[rows[j].Node] {
				continue
			}
			seen[rows[j].Node] = true
			if j > i {
				s.Values = append(s.Values, float64(rows[j].At-rows[i].At)/results.NsPerMs)
				s.Cluster = append(s.Cluster, int32(rows[i].Height))
			}
		}
		i = j
	}
	return s
}

// Traces a comparison plots, by name (Run.Traces).
const (
	TraceBlocksPerMin = "blocks_per_min" // blocks committed per minute, over the trailing 10 s of commits
	TraceTxsPerMin    = "txs_per_min"    // run transactions committed per minute, likewise
	TraceMempool      = "mempool_size"   // mean mempool size over the nodes (mempool.csv, or metrics.csv)
	TraceRSS          = "rss_mib"        // mean resident memory of the node processes, MiB (resources.csv)
	TraceCPU          = "cpu_pct"        // mean CPU of the node processes, % of one core (resources.csv)
	TraceLoad1        = "load1"          // the host's 1-minute load average (resources.csv)
	TracePeers        = "peers"          // mean number of peers over the nodes (metrics.csv <namespace>_p2p_peers)
	TraceRounds       = "rounds"         // the round each height committed in, at its commit (blocks.csv)
)

// Trace is a time series of one run: X in s since the load start (the
// middle of a window for windowed rates).
type Trace struct {
	X []float64 `json:"x"`
	Y []float64 `json:"y"`
}

// traceWindow is the trailing window of the per-minute traces.
const traceWindow = 10 * int64(results.NsPerS)

// Traces returns the time series of a run for the comparison's
// overlay plots (a time-scaled run's in model time: X ÷k, the rates ×k): blocks/min, txs/min and the round of each height from blocks.csv, the mean mempool
// size after each height from mempool.csv (or, for runs without it, from
// metrics: rows of metrics.csv, any series; only those named
// <namespace>_mempool_size are used), the mean peers (<namespace>_p2p_peers)
// and the RSS, CPU and host load1 when resources are given. A trace without data is left out. It is pure.
func Traces(in analysis.Input, metrics []results.Metric, resources []results.Resource) map[string]Trace {
	out := map[string]Trace{}
	start := in.LoadStart()
	ks := in.RunBlocks()
	if start != 0 && len(ks) > 0 {
		commitRates(ks, start, out)
	}
	if t := mempoolAfterCommits(in, start); len(t.X) > 0 {
		out[TraceMempool] = t
	} else if t := scrapedMempool(metrics, start); len(t.X) > 0 {
		out[TraceMempool] = t // runs without mempool.csv: scrapes that beat against the blocks
	}
	resourceTraces(resources, start, out)
	var peers []timedValue
	for i := range metrics {
		if m := &metrics[i]; IsPeers(m.Name) {
			peers = append(peers, timedValue{m.Time, m.Node + "\x00" + m.Labels, m.Value})
		}
	}
	if t := meanOverSeries(peers, start); len(t.X) > 0 {
		out[TracePeers] = t
	}
	if start != 0 && len(ks) > 0 {
		var t Trace
		for _, b := range ks {
			t.X, t.Y = append(t.X, float64(b.Committed()-start)/results.NsPerS), append(t.Y, float64(b.Round))
		}
		out[TraceRounds] = t
	}
	if k := in.Run.Scale(); k != 1 { // a time-scaled run's, in model time
		for name, t := range out {
			t.X = slices.Clone(t.X)
			for i := range t.X {
				t.X[i] /= k
			}
			if name == TraceBlocksPerMin || name == TraceTxsPerMin {
				t.Y = slices.Clone(t.Y)
				for i := range t.Y {
					t.Y[i] *= k
				}
			}
			out[name] = t
		}
	}
	return out
}

// resourceTraces puts the means over the node processes of their RSS and
// CPU, and the host's load1, each second since start (resources.csv).
func resourceTraces(resources []results.Resource, start int64, out map[string]Trace) {
	var rss, cpu, load []timedValue
	for i := range resources {
		r := &resources[i]
		rss = append(rss, timedValue{r.Time, r.Node, float64(r.RSS) / (1 << 20)})
		cpu = append(cpu, timedValue{r.Time, r.Node, r.CPU})
		load = append(load, timedValue{r.Time, "", r.Load1}) // the host's: one series
	}
	for name, vs := range map[string][]timedValue{TraceRSS: rss, TraceCPU: cpu, TraceLoad1: load} {
		if t := meanOverSeries(vs, start); len(t.X) > 0 {
			out[name] = t
		}
	}
}

// IsPeers reports whether a Prometheus metric name is CometBFT's number
// of peers: p2p_peers under any namespace (cometbft_p2p_peers).
func IsPeers(name string) bool {
	return name == "p2p_peers" || strings.HasSuffix(name, "_p2p_peers")
}

// IsMempoolSize reports whether a Prometheus metric name is CometBFT's
// mempool size in transactions: mempool_size under any namespace
// (cometbft_mempool_size), not mempool_size_bytes.
func IsMempoolSize(name string) bool {
	return name == "mempool_size" || strings.HasSuffix(name, "_mempool_size")
}

type timedValue struct {
	t   int64
	key string // series (node and labels)
	v   float64
}

// meanOverSeries averages series sampled at slightly different times: for
// each 1-second bucket from start, the mean over the series of each one's
// last sample in the bucket. Buckets without a sample are left out. start
// 0 means the first sample's time.
func meanOverSeries(vs []timedValue, start int64) Trace {
	if len(vs) == 0 {
		return Trace{}
	}
	if start == 0 {
		start = math.MaxInt64
		for _, v := range vs {
			start = min(start, v.t)
		}
	}
	const sec = int64(results.NsPerS)
	type bk struct {
		b   int64
		key string
	}
	last := map[bk]timedValue{}
	for _, v := range vs {
		d := v.t - start
		b := d / sec
		if d < 0 && d%sec != 0 {
			b-- // floor, not truncation, before the start
		}
		k := bk{b, v.key}
		if old, ok := last[k]; !ok || v.t >= old.t {
			last[k] = v
		}
	}
	sum := map[int64]float64{}
	n := map[int64]int{}
	for k, v := range last {
		sum[k.b] += v.v
		n[k.b]++
	}
	buckets := make([]int64, 0, len(sum))
	for b := range sum {
		buckets = append(buckets, b)
	}
	slices.Sort(buckets)
	var t Trace
	for _, b := range buckets {
		t.X = append(t.X, float64(b))
		t.Y = append(t.Y, sum[b]/float64(n[b]))
	}
	return t
}

// commitRates puts into out the blocks and run transactions committed per
// minute, at each block's commit: the count over the trailing traceWindow
// divided by the time between the first and last commit in it, so that
// the window starts and ends on commits and the line does not beat
// against the block interval as fixed windows do (a 5-s window holds 4 or
// 5 blocks of 1.2 s); within a halt, every second, falling to 0
// (analysis.EventRates).
func commitRates(ks []results.Block, start int64, out map[string]Trace) {
	ks = slices.Clone(ks)
	slices.SortFunc(ks, func(a, b results.Block) int { return cmp.Compare(a.Committed(), b.Committed()) })
	times := make([]int64, len(ks))
	blocks, txs := make([]float64, len(ks)), make([]float64, len(ks))
	for i := range ks {
		times[i] = ks[i].Committed()
		blocks[i] = float64(i + 1)
		txs[i] = float64(ks[i].RunTxs)
		if i > 0 {
			txs[i] += txs[i-1]
		}
	}
	for _, tr := range []struct {
		name string
		cum  []float64
	}{{TraceBlocksPerMin, blocks}, {TraceTxsPerMin, txs}} {
		var t Trace
		at, rates := analysis.EventRates(times, tr.cum, traceWindow) // a halt falls to 0
		for i, r := range rates {
			if !math.IsNaN(r) {
				t.X = append(t.X, float64(at[i]-start)/results.NsPerS)
				t.Y = append(t.Y, r*60)
			}
		}
		if len(t.X) > 0 {
			out[tr.name] = t
		}
	}
}

// scrapedMempool is the mean over the nodes of their scraped mempool sizes
// each second since start.
func scrapedMempool(metrics []results.Metric, start int64) Trace {
	var mp []timedValue
	for i := range metrics {
		m := &metrics[i]
		if IsMempoolSize(m.Name) {
			mp = append(mp, timedValue{m.Time, m.Node + "\x00" + m.Labels, m.Value})
		}
	}
	return meanOverSeries(mp, start)
}

// mempoolAfterCommits is the mean over the nodes of their mempools right
// after each height (mempool.csv), at the height's first sample, in s
// since start; empty for a run without mempool.csv.
func mempoolAfterCommits(in analysis.Input, start int64) Trace {
	var nodes []string
	for _, r := range in.Mempool {
		if !slices.Contains(nodes, r.Node) {
			nodes = append(nodes, r.Node)
		}
	}
	_, at, vals := analysis.MempoolByHeight(in.Mempool, nodes)
	if start == 0 && len(at) > 0 {
		start = at[0]
	}
	var t Trace
	for k := range at {
		sum, n := 0.0, 0
		for i := range vals {
			if v := vals[i][k]; !math.IsNaN(v) {
				sum, n = sum+v, n+1
			}
		}
		if n > 0 {
			t.X = append(t.X, float64(at[k]-start)/results.NsPerS)
			t.Y = append(t.Y, sum/float64(n))
		}
	}
	return t
}
