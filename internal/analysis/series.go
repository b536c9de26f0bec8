package analysis

import (
	"cmp"
	"slices"
	"strings"

	"github.com/cometlab/cometlab/internal/results"
)

// Series is the samples of one Prometheus series of one node (one row of
// metrics.csv per sample), in time order.
type Series struct {
	Node   string
	Name   string // as exposed, namespace included: cometbft_mempool_size
	Short  string // without the namespace: mempool_size (process_* and go_* as exposed)
	Labels string // as in metrics.csv: k=v pairs sorted by key, joined with ';'
	T      []int64
	V      []float64
}

// Label returns the value of the label k, "" when the series has none.
func (s *Series) Label(k string) string {
	for l := range strings.SplitSeq(s.Labels, ";") {
		if name, v, ok := strings.Cut(l, "="); ok && name == k {
			return v
		}
	}
	return ""
}

// keptSeries lists, without the namespace, the series of metrics.csv that
// the figures and plots use; the others are dropped while reading, so the
// memory taken stays bounded whatever the scraper kept (--metrics all adds
// histogram buckets and per-peer series by the hundred).
func keptSeries() []string {
	return []string{
		"mempool_size", "mempool_size_bytes", "mempool_failed_txs", "mempool_rejected_txs", "mempool_evicted_txs",
		"p2p_peers", "p2p_message_send_bytes_total", "p2p_peer_send_bytes_total", "consensus_height", "consensus_rounds", "consensus_total_txs", "consensus_block_size_bytes",
		"consensus_step_duration_seconds_sum", "consensus_step_duration_seconds_count",
		"consensus_round_duration_seconds_sum", "consensus_round_duration_seconds_count",
		"state_block_processing_time_sum", "state_block_processing_time_count",
		"abci_connection_method_timing_seconds_sum", "abci_connection_method_timing_seconds_count",
		"state_block_store_base_height",
		"state_store_access_duration_seconds_sum", "state_store_access_duration_seconds_count",
		"store_block_store_access_duration_seconds_sum", "store_block_store_access_duration_seconds_count",
		"blocksync_syncing",
		"mempool_reaped_txs", "blocksync_ingested_blocks", "blocksync_already_included_blocks",
		"blocksync_ingested_block_duration_sum", "blocksync_ingested_block_duration_count",
		"consensus_proposal_timestamp_difference_sum", "consensus_proposal_timestamp_difference_count",
		"process_resident_memory_bytes", "process_cpu_seconds_total", "go_gc_duration_seconds_sum",
	}
}

// SeriesSet is the node series of a run, indexed by node, name (without
// the namespace) and labels. Build one with a SeriesBuilder or
// NewSeriesSet; ReadSeries reads it from a run directory.
type SeriesSet struct {
	// Namespace is the metrics namespace the nodes used (CometBFT's
	// instrumentation.namespace, "cometbft" by default); "" when no
	// namespaced series was seen.
	Namespace string
	// Rows counts the rows read, Kept those of a series kept.
	Rows, Kept int
	series     []Series // sorted by node, short name, labels
}

// Nodes returns the nodes with at least one sample, sorted.
func (s *SeriesSet) Nodes() []string {
	var out []string
	for i := range s.series {
		if n := s.series[i].Node; len(out) == 0 || out[len(out)-1] != n {
			out = append(out, n)
		}
	}
	return out
}

// All returns every series, sorted by node, name and labels. The caller
// must not modify them.
func (s *SeriesSet) All() []Series { return s.series }

// Find returns the series of node named short (without the namespace),
// one per label set, in label order.
func (s *SeriesSet) Find(node, short string) []*Series {
	if s == nil {
		return nil
	}
	i, _ := slices.BinarySearchFunc(s.series, [2]string{node, short}, func(e Series, k [2]string) int {
		return cmp.Or(cmp.Compare(e.Node, k[0]), cmp.Compare(e.Short, k[1]))
	})
	var out []*Series
	for ; i < len(s.series) && s.series[i].Node == node && s.series[i].Short == short; i++ {
		out = append(out, &s.series[i])
	}
	return out
}

// Samples returns the samples of every series named short (without the
// namespace), of every node, as metrics.csv rows: series by series in the
// set's order (node, name, labels), each in time order.
func (s *SeriesSet) Samples(short string) []results.Metric {
	if s == nil {
		return nil
	}
	var out []results.Metric
	for i := range s.series {
		x := &s.series[i]
		if x.Short != short {
			continue
		}
		for j, t := range x.T {
			out = append(out, results.Metric{Time: t, Node: x.Node, Name: x.Name, Labels: x.Labels, Value: x.V[j]})
		}
	}
	return out
}

// One returns the series of node named short when there is exactly one
// label set (the usual case: CometBFT labels each series with chain_id),
// else the sum over its label sets (see Sum); nil when there is none.
func (s *SeriesSet) One(node, short string) *Series {
	ss := s.Find(node, short)
	switch len(ss) {
	case 0:
		return nil
	case 1:
		return ss[0]
	}
	return sumSeries(ss)
}

// Sum returns the sum over the label sets of the series of node named
// short, sample by sample (samples of one scrape share their time; a time
// missing from a label set adds nothing); nil when there is none.
func (s *SeriesSet) Sum(node, short string) *Series {
	ss := s.Find(node, short)
	if len(ss) == 0 {
		return nil
	}
	return sumSeries(ss)
}

func sumSeries(ss []*Series) *Series {
	out := &Series{Node: ss[0].Node, Name: ss[0].Name, Short: ss[0].Short}
	n := 0
	for _, x := range ss {
		n += len(x.T)
	}
	type tv struct {
		t int64
		v float64
	}
	all := make([]tv, 0, n)
	for _, x := range ss {
		for i, t := range x.T {
			all = append(all, tv{t, x.V[i]})
		}
	}
	slices.SortStableFunc(all, func(a, b tv) int { return cmp.Compare(a.t, b.t) })
	for _, p := range all {
		if k := len(out.T); k > 0 && out.T[k-1] == p.t {
			out.V[k-1] += p.v
			continue
		}
		out.T = append(out.T, p.t)
		out.V = append(out.V, p.v)
	}
	return out
}

// SeriesBuilder gathers metrics.csv rows into a SeriesSet, keeping only
// the series the figures use. The zero value is ready to use.
type SeriesBuilder struct {
	index  map[seriesKey]int
	names  map[string]nameInfo // exposed name → what it is
	series []Series
	rows   int
	kept   int
	ns     map[string]int // namespace → series seen with it
}

type seriesKey struct{ node, name, labels string }

type nameInfo struct {
	short, ns string
	keep      bool
}

// classify tells whether the exposed name is kept, and its short name and
// namespace.
func classify(name string) nameInfo {
	for _, short := range keptSeries() {
		if strings.HasPrefix(short, "process_") || strings.HasPrefix(short, "go_") {
			if name == short { // the Go client's series carry no namespace
				return nameInfo{short: short, keep: true}
			}
			continue
		}
		if strings.HasSuffix(name, "_"+short) && len(name) > len(short)+1 {
			return nameInfo{short: short, ns: name[:len(name)-len(short)-1], keep: true}
		}
	}
	return nameInfo{}
}

// Add adds one row.
func (b *SeriesBuilder) Add(m *results.Metric) {
	b.rows++
	if b.names == nil {
		b.names = map[string]nameInfo{}
		b.index = map[seriesKey]int{}
		b.ns = map[string]int{}
	}
	info, ok := b.names[m.Name]
	if !ok {
		info = classify(m.Name)
		b.names[strings.Clone(m.Name)] = info
	}
	if !info.keep {
		return
	}
	b.kept++
	k := seriesKey{m.Node, m.Name, m.Labels}
	i, ok := b.index[k]
	if !ok {
		k = seriesKey{strings.Clone(m.Node), strings.Clone(m.Name), strings.Clone(m.Labels)}
		i = len(b.series)
		b.index[k] = i
		b.series = append(b.series, Series{Node: k.node, Name: k.name, Short: info.short, Labels: k.labels})
		if info.ns != "" {
			b.ns[info.ns]++
		}
	}
	s := &b.series[i]
	s.T = append(s.T, m.Time)
	s.V = append(s.V, m.Value)
}

// Build returns the set. Samples out of time order are sorted (stably),
// and samples of the same time after the first are dropped.
func (b *SeriesBuilder) Build() *SeriesSet {
	set := &SeriesSet{Rows: b.rows, Kept: b.kept, series: b.series}
	best := 0
	for ns, n := range b.ns {
		if n > best || (n == best && ns < set.Namespace) {
			set.Namespace, best = ns, n
		}
	}
	for i := range set.series {
		s := &set.series[i]
		if !slices.IsSorted(s.T) {
			idx := make([]int, len(s.T))
			for j := range idx {
				idx[j] = j
			}
			slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(s.T[a], s.T[b]) })
			t, v := make([]int64, len(idx)), make([]float64, len(idx))
			for j, k := range idx {
				t[j], v[j] = s.T[k], s.V[k]
			}
			s.T, s.V = t, v
		}
		j := 0
		for k := range s.T {
			if k > 0 && s.T[k] == s.T[j-1] {
				continue
			}
			s.T[j], s.V[j] = s.T[k], s.V[k]
			j++
		}
		s.T, s.V = slices.Clip(s.T[:j]), slices.Clip(s.V[:j])
	}
	slices.SortFunc(set.series, func(a, b Series) int {
		return cmp.Or(cmp.Compare(a.Node, b.Node), cmp.Compare(a.Short, b.Short), cmp.Compare(a.Labels, b.Labels), cmp.Compare(a.Name, b.Name))
	})
	*b = SeriesBuilder{}
	return set
}

// NewSeriesSet builds a SeriesSet from rows of metrics.csv.
func NewSeriesSet(rows []results.Metric) *SeriesSet {
	var b SeriesBuilder
	for i := range rows {
		b.Add(&rows[i])
	}
	return b.Build()
}

// ReadSeries reads dir/metrics.csv (or .gz) in one pass into a SeriesSet.
func ReadSeries(dir string) (*SeriesSet, error) {
	var b SeriesBuilder
	if err := results.ScanMetrics(dir, func(m *results.Metric) error {
		b.Add(m)
		return nil
	}); err != nil {
		return nil, err
	}
	return b.Build(), nil
}
