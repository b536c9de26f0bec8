package analysis

import (
	"maps"
	"slices"
	"sort"

	"github.com/cometlab/cometlab/internal/results"
)

// sampleSlack widens a height's window at its end: a resources.csv or
// host.csv sample covers the second before its time, a scrape may come
// up to an interval after the commit.
const sampleSlack = int64(1e9)

// delta returns the change of a counter series between its last sample
// at or before lo and its first at or after hi; ok is false when either
// is missing.
func delta(s *Series, lo, hi int64) (float64, bool) {
	if s == nil || len(s.T) == 0 {
		return 0, false
	}
	i := sort.Search(len(s.T), func(k int) bool { return s.T[k] > lo }) - 1
	j := sort.Search(len(s.T), func(k int) bool { return s.T[k] >= hi })
	if i < 0 || j >= len(s.T) {
		return 0, false
	}
	return s.V[j] - s.V[i], true
}

// execIn returns each node's block processing time (ms per block) over
// the scrapes around [lo, hi], and the median over nodes of their whole
// run's mean (state_block_processing_time, a histogram in ms).
func (c *autopsyContext) execIn(lo, hi int64) (map[string]float64, float64) {
	out := map[string]float64{}
	var means []float64
	if c.in.Metrics == nil {
		return out, 0
	}
	for _, n := range c.in.Metrics.Nodes() {
		sum := c.in.Metrics.One(n, "state_block_processing_time_sum")
		cnt := c.in.Metrics.One(n, "state_block_processing_time_count")
		if sum == nil || cnt == nil || len(sum.V) < 2 || len(cnt.V) < 2 {
			continue
		}
		if dc := cnt.V[len(cnt.V)-1] - cnt.V[0]; dc > 0 {
			means = append(means, (sum.V[len(sum.V)-1]-sum.V[0])/dc)
		}
		ds, ok1 := delta(sum, lo, hi)
		dc, ok2 := delta(cnt, lo, hi)
		if ok1 && ok2 && dc > 0 {
			out[n] = ds / dc
		}
	}
	if len(means) == 0 {
		return out, 0
	}
	slices.Sort(means)
	return out, means[len(means)/2]
}

// cpuIn returns each node's highest CPU (% of one core) and the host's
// highest busy fraction in the samples of [lo, hi+sampleSlack].
func (c *autopsyContext) cpuIn(lo, hi int64) (map[string]float64, float64) {
	cpu := map[string]float64{}
	for _, r := range c.in.Resources {
		if r.Time >= lo && r.Time <= hi+sampleSlack {
			cpu[r.Node] = max(cpu[r.Node], r.CPU)
		}
	}
	var busy float64
	for _, h := range c.in.Host {
		if h.Time >= lo && h.Time <= hi+sampleSlack && h.Cores > 0 {
			busy = max(busy, h.Busy/float64(h.Cores))
		}
	}
	return cpu, busy
}

// gcIn returns each node's GC pauses (go_gc_duration_seconds_sum, scraped
// by default) over the scrapes around [lo, hi], in ms.
func (c *autopsyContext) gcIn(lo, hi int64) map[string]float64 {
	out := map[string]float64{}
	if c.in.Metrics == nil {
		return out
	}
	for _, n := range c.in.Metrics.Nodes() {
		if d, ok := delta(c.in.Metrics.One(n, "go_gc_duration_seconds_sum"), lo, hi); ok {
			out[n] = d * 1e3
		}
	}
	return out
}

// poolIn returns each node's largest mempool (transactions) over block
// b's window: the scrapes of mempool_size within [header time of b,
// header time of b+1], and mempool.csv's sample right after the node
// committed b. The scrapes see what the sample after the commit does not:
// a proposer's block takes most of a full mempool, which the load fills
// again before the next commit.
func (c *autopsyContext) poolIn(b *results.Block) map[string]int64 {
	out := maps.Clone(c.mempool[b.Height])
	if out == nil {
		out = map[string]int64{}
	}
	if b.CommitTime == 0 {
		return out
	}
	for n, s := range c.poolSize {
		for i := sort.Search(len(s.T), func(k int) bool { return s.T[k] >= b.Time }); i < len(s.T) && s.T[i] <= b.CommitTime; i++ {
			out[n] = max(out[n], int64(s.V[i]))
		}
	}
	return out
}

// fullest returns the node whose mempool in pool is fullest at or above
// mempoolFullPc of its capacity (CometBFT's default when unknown), its
// transactions and capacity; "" when none is.
func fullest(pool, capacity map[string]int64) (node string, txs, limit int64) {
	for _, n := range slices.Sorted(maps.Keys(pool)) {
		k := capacity[n]
		if k <= 0 {
			k = results.DefaultMempoolSize
		}
		if t := pool[n]; float64(t) >= mempoolFullPc*float64(k) && t > txs {
			node, txs, limit = n, t, k
		}
	}
	return node, txs, limit
}
