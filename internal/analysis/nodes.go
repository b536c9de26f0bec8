package analysis

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/stats"
)

// AppProcessSuffix ends the resources.csv name of a node's external ABCI
// app process ("validator01/app"): a process sampled beside its node,
// not a node.
const AppProcessSuffix = "/app"

// IsAppProcess reports whether a resources.csv name is a node's external
// app process.
func IsAppProcess(name string) bool { return strings.HasSuffix(name, AppProcessSuffix) }

// IsHarnessProcess reports whether a resources.csv name is cometlab's own
// process (results.HarnessProcess): sampled as a node is, not a node.
func IsHarnessProcess(name string) bool { return name == results.HarnessProcess }

// RunProcesses returns [RunNodes] followed by the external app processes
// sampled in resources.csv, sorted: the rows of resource tables.
func RunProcesses(in Input) []string {
	out := RunNodes(in)
	var apps []string
	for i := range in.Resources {
		if n := in.Resources[i].Node; IsAppProcess(n) && !slices.Contains(apps, n) {
			apps = append(apps, n)
		}
	}
	slices.Sort(apps)
	return append(out, apps...)
}

// RunNodes returns the run's node names: run.json's nodes in order, then
// any other node named in metrics.csv, resources.csv (but app processes,
// see [RunProcesses]) or adoption.csv, sorted. Reports give nodes their
// colours in this order.
func RunNodes(in Input) []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range in.Run.Nodes {
		if !seen[n.Name] {
			seen[n.Name] = true
			out = append(out, n.Name)
		}
	}
	var extra []string
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			extra = append(extra, n)
		}
	}
	if in.Metrics != nil {
		for _, n := range in.Metrics.Nodes() {
			add(n)
		}
	}
	for i := range in.Resources {
		if n := in.Resources[i].Node; !IsAppProcess(n) && !IsHarnessProcess(n) {
			add(n)
		}
	}
	for i := range in.Adoption {
		add(in.Adoption[i].Node)
	}
	slices.Sort(extra)
	return append(out, extra...)
}

// loadWindow returns the load's period [from, to] in Unix ns: from the
// load start to run.json's load end (start + duration when it has none);
// everything when the start is unknown (0).
func loadWindow(in Input, start int64) (from, to int64) {
	if start == 0 {
		return math.MinInt64, math.MaxInt64
	}
	if !in.Run.LoadEnd.IsZero() && in.Run.LoadEnd.UnixNano() > start {
		return start, in.Run.LoadEnd.UnixNano()
	}
	return start, start + int64(in.Run.Load.DurationS*results.NsPerS)
}

// relTime writes t as seconds since the load start, or as a UTC time when
// the start is unknown.
func relTime(t, start int64) string {
	if start == 0 {
		return time.Unix(0, t).UTC().Format("15:04:05.000")
	}
	return fmt.Sprintf("%.1f s", float64(t-start)/results.NsPerS)
}

// Align returns series on a common grid, from their earliest sample to
// their latest every step ns: values[i][k] is series i's last sample at or
// before grid[k] + step/2 (series sampled at slightly different phases
// land on the same grid time) if it is at most two steps older, else NaN
// (a nil series is all NaN). It returns nothing when no series has a sample or step ≤ 0.
func Align(series []*Series, step int64) (grid []int64, values [][]float64) {
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, s := range series {
		if s != nil && len(s.T) > 0 {
			lo, hi = min(lo, s.T[0]), max(hi, s.T[len(s.T)-1])
		}
	}
	if lo > hi || step <= 0 {
		return nil, nil
	}
	step = max(step, (hi-lo)/200_000) // bounded, whatever the sampling
	n := int((hi-lo)/step) + 1
	grid = make([]int64, n)
	for k := range grid {
		grid[k] = lo + int64(k)*step
	}
	values = make([][]float64, len(series))
	for i, s := range series {
		if s == nil {
			values[i] = Resample(nil, nil, lo, step, n, 0)
			continue
		}
		values[i] = Resample(s.T, s.V, lo+step/2, step, n, 2*step)
	}
	return grid, values
}

// maxOf returns the largest value that is not NaN; NaN when there is none.
func maxOf(v []float64) float64 {
	m := math.NaN()
	for _, x := range v {
		if !math.IsNaN(x) && !(x <= m) {
			m = x
		}
	}
	return m
}

// lastOf returns the last value that is not NaN; NaN when there is none.
func lastOf(v []float64) float64 {
	for i := len(v) - 1; i >= 0; i-- {
		if !math.IsNaN(v[i]) {
			return v[i]
		}
	}
	return math.NaN()
}

// metricFigures puts the mempool, peer and consensus figures of
// metrics.csv.
func metricFigures(in Input, b *builder, nodes []string, start, from, to int64) {
	set := in.Metrics
	if set == nil {
		return
	}
	if set.Kept == 0 {
		b.note("metrics.csv has %d rows but none of the series cometlab uses (such as <namespace>_mempool_size): mempool, peer and consensus-metric figures not computed", set.Rows)
		return
	}
	mempoolFigures(set, b, withMempool(in, b, nodes), start, to)
	syncFigures(in, set, b, nodes)
	counters := []string{"failed", "rejected", "evicted"}
	for _, c := range counters {
		id := "mempool_" + c + "_txs"
		if total, ok := sumCounter(set, b, nodes, id, id, "mempool_size"); ok {
			b.put(id, total, "")
		}
	}

	peersMin := math.NaN()
	for _, n := range nodes {
		if s := set.One(n, "p2p_peers"); s != nil {
			v := minIn(s.T, s.V, from, to)
			b.putNode(n, "peers_min", v)
			if !(v >= peersMin) {
				peersMin = v
			}
		}
	}
	b.put("peers_min", peersMin, "no sample of p2p_peers during the load")
	wholeBlockFigures(set, b, nodes, from, to)

	histMean := func(id, short string, scale float64) {
		var sum, count float64
		for _, n := range nodes {
			s, c := set.One(n, short+"_sum"), set.One(n, short+"_count")
			if s == nil || c == nil {
				continue
			}
			ds, dc := Increase(s.V), Increase(c.V)
			if dc > 0 {
				b.putNode(n, id, ds/dc*scale)
			}
			sum += ds
			count += dc
		}
		if count > 0 {
			b.put(id, sum/count*scale, "")
		}
	}
	histMean("block_processing_time_mean_ms", "state_block_processing_time", 1) // already ms
	histMean("round_duration_mean_ms", "consensus_round_duration_seconds", 1000)
	histMean("block_store_access_mean_ms", "store_block_store_access_duration_seconds", 1000)
	histMean("state_store_access_mean_ms", "state_store_access_duration_seconds", 1000)
	appTimeFigures(set, b, nodes)
	pruningFigures(in, set, b, nodes)
	proposalTimeFigures(set, b, nodes)
	msgBytesFigures(set, b, nodes, b.s.Metrics["committed_txs"])

	last := map[string]float64{}
	top := math.Inf(-1)
	for _, n := range nodes {
		if s := set.One(n, "consensus_height"); s != nil && len(s.V) > 0 {
			last[n] = s.V[len(s.V)-1]
			top = max(top, last[n])
		}
	}
	worst := math.NaN()
	for _, n := range nodes {
		h, ok := last[n]
		if !ok {
			continue
		}
		b.putNode(n, "height_behind_max", top-h)
		if !(top-h <= worst) {
			worst = top - h
		}
		if top-h >= 3 && !Ephemeral(in.Events, n) {
			b.anomalyOf(severeBehind, "%s's consensus height ended at %.0f, %.0f below the highest node (%.0f): it fell behind", n, h, top-h, top)
		}
	}
	b.put("height_behind_max", worst, "no sample of consensus_height")
}

// mempoolFigures puts the mempool size figures and the anomaly of a
// mempool not back to empty.
func mempoolFigures(set *SeriesSet, b *builder, nodes []string, start, loadEnd int64) {
	var series []*Series
	var means []float64
	maxAll, endSum, ended := math.NaN(), 0.0, 0
	for _, n := range nodes {
		s := set.One(n, "mempool_size")
		if s == nil || len(s.V) == 0 {
			continue
		}
		series = append(series, s)
		mx := maxOf(s.V)
		b.putNode(n, "mempool_size_max_txs", mx)
		if !(mx <= maxAll) {
			maxAll = mx
		}
		if start != 0 {
			if m, k := meanIn(s.T, s.V, start, loadEnd); k > 0 {
				b.putNode(n, "mempool_size_mean_txs", m)
				means = append(means, m)
			}
		} else {
			b.putNode(n, "mempool_size_mean_txs", stats.Mean(s.V))
			means = append(means, stats.Mean(s.V))
		}
		end, at := s.V[len(s.V)-1], s.T[len(s.T)-1]
		if start != 0 && at < loadEnd {
			b.note("the last mempool sample of %s is from %s after the load start, before the load ended: left out of mempool_size_end_txs", n, relTime(at, start))
			continue
		}
		b.putNode(n, "mempool_size_end_txs", end)
		endSum += end
		ended++
		if end > 0 {
			when := "at its last sample, " + relTime(at, start) + " after the load start"
			if start != 0 && at > loadEnd {
				when += fmt.Sprintf(" (%.1f s after the load ended)", float64(at-loadEnd)/results.NsPerS)
			}
			b.anomaly("the mempool of %s still held %.0f transactions %s: it did not return to empty", n, end, when)
		}
	}
	if len(series) == 0 {
		b.note("metrics.csv has no mempool_size series: mempool figures not computed")
		return
	}
	b.put("mempool_size_max_txs", maxAll, "")
	b.put("mempool_size_mean_txs", stats.Mean(means), "no mempool sample during the load")
	if ended > 0 {
		b.put("mempool_size_end_txs", endSum, "")
	}
	var ts [][]int64
	for _, s := range series {
		ts = append(ts, s.T)
	}
	_, vals := Align(series, MedianStep(ts...))
	total := math.NaN()
	if len(vals) > 0 {
		for k := range vals[0] {
			sum, any := 0.0, false
			for i := range vals {
				if v := vals[i][k]; !math.IsNaN(v) {
					sum += v
					any = true
				}
			}
			if any && !(sum <= total) {
				total = sum
			}
		}
	}
	b.put("mempool_total_max_txs", total, "fewer than two mempool samples")
}

// accountingAnomalies turns the accounting figures already put into
// anomaly sentences.
func accountingAnomalies(b *builder) {
	m := b.s.Metrics
	if v := m["rejected_txs"]; v > 0 {
		b.anomalyOf(severeTxs, "%s rejected: %s", count(v, "sent transaction was", "sent transactions were"), reasonsText(b.s.Rejected, 3))
	}
	if v := m["missing_txs"]; v > 0 {
		b.anomalyOf(severeTxs, "%s missing: neither committed nor rejected, dropped without an error", count(v, "sent transaction is", "sent transactions are"))
	}
	if v := m["refused_txs"]; v > 0 {
		// The sentinel doing its work: worth saying, not an anomaly.
		b.note("%s refused by the sentinel, each with an explicit error: %s", count(v, "sent transaction was", "sent transactions were"), reasonsText(b.s.Refused, 3))
	}
	if v := m["duplicate_txs"]; v > 0 {
		b.anomaly("%s committed more than once (extra copies flagged duplicate in txs.csv)", count(v, "transaction was", "transactions were"))
	}
	if v := m["unsent_txs"]; v > 0 {
		b.anomaly("%s not be made (see the error column of sent.csv)", count(v, "scheduled send could", "scheduled sends could"))
	}
}

// moreBlocks puts the block figures beyond tm-bench's; heights after
// round 0 in expected (an absent validator's turn) are no anomaly.
func moreBlocks(in Input, b *builder, noBlocks bool, expected map[int64]bool) {
	if noBlocks {
		return
	}
	ks := in.RunBlocks()
	if len(ks) == 0 {
		return
	}
	var txs, size []float64
	var multi []int64
	absent := 0
	gap := math.NaN()
	for i := range ks {
		k := &ks[i]
		txs = append(txs, float64(k.Txs))
		size = append(size, float64(k.Bytes))
		switch {
		case k.Round > 0 && expected[k.Height]:
			absent++
		case k.Round > 0:
			multi = append(multi, k.Height)
		}
		if i > 0 && ks[i-1].Height+1 == k.Height {
			if d := float64(k.Time-ks[i-1].Time) / results.NsPerS; !(d <= gap) {
				gap = d
			}
		}
	}
	b.put("block_interval_max_s", gap, "no two consecutive heights")
	b.put("blocks_multi_round", float64(len(multi)+absent), "")
	b.put("block_txs_mean", stats.Mean(txs), "")
	b.put("block_size_mean_bytes", stats.Mean(size), "")
	b.put("block_size_max_bytes", stats.Max(size), "")
	if len(multi) > 0 {
		b.anomaly("%s committed in a round above 0 (%s): the first proposal did not make it", count(float64(len(multi)), "block was", "blocks were"), heightRanges(multi, 6))
	}
	if absent > 0 {
		b.note("%s committed in a round above 0 because the round-0 proposer was an absent validator (absent_proposer_heights): expected, not an anomaly",
			count(float64(absent), "block was", "blocks were"))
	}
}

// count writes n followed by the singular or the plural words.
// JoinFew joins the first n parts with ", " and, when there are more,
// adds more (a format with one %d: how many were left out).
func JoinFew(parts []string, n int, more string) string {
	if len(parts) <= n {
		return strings.Join(parts, ", ")
	}
	return strings.Join(append(slices.Clone(parts[:n]), fmt.Sprintf(more, len(parts)-n)), ", ")
}

func count(n float64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%.0f %s", n, many)
}

// wholeBlockFigures puts the whole block size figures: the samples of
// consensus_block_size_bytes during the load, per node and over all.
func wholeBlockFigures(set *SeriesSet, b *builder, nodes []string, from, to int64) {
	var all []float64
	for _, n := range nodes {
		s := set.One(n, "consensus_block_size_bytes")
		if s == nil {
			continue
		}
		var vs []float64
		for i, t := range s.T {
			if t >= from && t <= to && !math.IsNaN(s.V[i]) {
				vs = append(vs, s.V[i])
			}
		}
		if len(vs) > 0 {
			b.putNode(n, "block_whole_size_mean_bytes", stats.Mean(vs))
			b.putNode(n, "block_whole_size_max_bytes", stats.Max(vs))
		}
		all = append(all, vs...)
	}
	const why = "no sample of consensus_block_size_bytes during the load"
	if len(all) == 0 {
		b.put("block_whole_size_mean_bytes", math.NaN(), why)
		b.put("block_whole_size_max_bytes", math.NaN(), why)
		return
	}
	b.put("block_whole_size_mean_bytes", stats.Mean(all), why)
	b.put("block_whole_size_max_bytes", stats.Max(all), why)
}
