package collect

import (
	"regexp"
	"slices"
	"strings"
)

// DefaultNamespace is CometBFT's default instrumentation.namespace.
const DefaultNamespace = "cometbft"

// nodeFamilies are the CometBFT metric families kept by default, without
// the namespace: the series the QA reports plot and a few more, and the
// names older or newer release lines give some of them
// (cometbft.Line.MetricsAbsent).
var nodeFamilies = []string{
	"abci_connection_method_timing_seconds", // histogram, by method and type
	"blocksync_already_included_blocks",     // v0.39+: adaptive sync
	"blocksync_ingested_block_duration",     // v0.39+ histogram (s)
	"blocksync_ingested_blocks",             // v0.39+
	"blocksync_syncing",
	"consensus_block_interval_seconds", // histogram
	"consensus_block_size_bytes",
	"consensus_block_syncing",      // v0.37's blocksync_syncing
	"consensus_fast_syncing",       // v0.34's blocksync_syncing
	"consensus_full_prevote_delay", // by proposer_address: proposal time to the last prevote heard
	"consensus_height",
	"consensus_late_votes",         // v0.38+: votes that arrived for an earlier height or round, by vote type
	"consensus_missing_validators", // validators whose signature is missing from the last commit
	"consensus_num_txs",
	"consensus_proposal_timestamp_difference", // v1.0 histogram, by is_timely: a proposal's receive time − its timestamp (PBTS)
	"consensus_quorum_prevote_delay",          // by proposer_address: proposal time to +2/3 of prevotes
	"consensus_round_duration_seconds",        // histogram
	"consensus_rounds",
	"consensus_step_duration_seconds", // histogram, by step
	"consensus_total_txs",
	"mempool_evicted_txs",
	"mempool_failed_txs",
	"mempool_reaped_txs", // v0.39.2+: the app-side mempool's ReapTxs
	"mempool_rejected_txs",
	"mempool_lane_size", // v2.0: by lane
	"mempool_size",
	"mempool_size_bytes",
	"mempool_tx_life_span",            // v2.0 histogram, by lane: a transaction's time in the mempool
	"p2p_message_receive_bytes_total", // by message type (v1.0 has no per-peer byte counters)
	"p2p_message_send_bytes_total",
	"p2p_peer_receive_bytes_total", // by peer and channel
	"p2p_peer_send_bytes_total",
	"p2p_peers",
	"state_block_processing_time",               // histogram, in milliseconds despite its name
	"state_block_store_base_height",             // v1.0: the lowest height still stored (pruning)
	"state_store_access_duration_seconds",       // v1.0 histogram, by method
	"store_block_store_access_duration_seconds", // v1.0 histogram, by method
}

// processFamilies are the Go client's process and runtime families kept by
// default; they carry no namespace.
var processFamilies = []string{
	"go_gc_duration_seconds", // summary: the block autopsy's gc_pause reads its _sum
	"go_goroutines",
	"process_cpu_seconds_total",
	"process_resident_memory_bytes",
}

// sentinelFamilies are the families of cometlab's sentinel
// (internal/sentinel), scraped beside the nodes when a run puts one in
// front of its target; they carry no namespace.
var sentinelFamilies = []string{
	"sentinel_admitted_total",
	"sentinel_connections",
	"sentinel_forwarded_total",
	"sentinel_lost_total",
	"sentinel_node_errors_total",
	"sentinel_node_mempool_txs",
	"sentinel_pacing_rate",
	"sentinel_queue_wait_seconds", // histogram
	"sentinel_queued",
	"sentinel_reads_total",
	"sentinel_refused_total",
}

// Series selects which metric families of a node are kept.
type Series struct {
	all      bool
	families map[string]bool
	list     []string // sorted
	prefixes []string // families kept whole by the start of their name
}

// WithPrefixes returns s keeping, besides its families, every family whose
// name starts with one of prefixes (an app's own metrics on the node's
// endpoint, e.g. an SDK chain's telemetry, "sdkchain_"), histogram
// buckets left out as for the others.
func (s *Series) WithPrefixes(prefixes ...string) *Series {
	c := *s
	c.prefixes = append(slices.Clone(s.prefixes), prefixes...)
	return &c
}

// prefixed reports whether name starts with one of s's prefixes.
func (s *Series) prefixed(name string) bool {
	for _, p := range s.prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// NewSeries returns the default selection for a CometBFT namespace ("" means
// [DefaultNamespace]): the families of issue 3's list with the namespace
// substituted, plus go_gc_duration_seconds, go_goroutines,
// process_cpu_seconds_total and process_resident_memory_bytes, and the
// sentinel's families. With all
// set, every family is kept.
func NewSeries(namespace string, all bool) *Series {
	if namespace == "" {
		namespace = DefaultNamespace
	}
	s := &Series{all: all, families: map[string]bool{}}
	for _, f := range nodeFamilies {
		s.families[namespace+"_"+f] = true
	}
	for _, f := range slices.Concat(processFamilies, sentinelFamilies) {
		s.families[f] = true
	}
	for f := range s.families {
		s.list = append(s.list, f)
	}
	slices.Sort(s.list)
	return s
}

// All reports whether every family is kept.
func (s *Series) All() bool { return s.all }

// Families returns the default families (sorted), whether or not All is set.
func (s *Series) Families() []string { return slices.Clone(s.list) }

// Keeps reports whether the family is kept.
func (s *Series) Keeps(family string) bool { return s.all || s.families[family] || s.prefixed(family) }

// keepsSample reports whether a sample line named name belongs to a kept
// family: the family itself, or its _sum and _count series. _bucket series
// are kept only with All.
func (s *Series) keepsSample(name string) bool {
	if s.all || s.families[name] {
		return true
	}
	if s.prefixed(name) {
		return !strings.HasSuffix(name, "_bucket")
	}
	for _, suf := range [...]string{"_sum", "_count"} {
		if base, ok := strings.CutSuffix(name, suf); ok && s.families[base] {
			return true
		}
	}
	return false
}

// PromQLNameRegexp returns a regular expression for __name__ matching the
// stored series of the kept families: each family and its _sum and _count
// series (and _bucket with All; with All it matches every name).
func (s *Series) PromQLNameRegexp() string {
	if s.all {
		return ".+"
	}
	quoted := make([]string, len(s.list))
	for i, f := range s.list {
		quoted[i] = regexp.QuoteMeta(f)
	}
	re := "(" + strings.Join(quoted, "|") + ")(_sum|_count)?"
	for _, p := range s.prefixes {
		re += "|" + regexp.QuoteMeta(p) + ".*"
	}
	return re
}
