package analysis

import (
	"math"
	"slices"
)

// Better says which direction of a metric is an improvement, for
// comparisons and regression checks.
type Better int

// Directions of improvement. The zero value is deliberately not one of
// them, so a dictionary entry that forgets to say is caught by a test.
const (
	HigherIsBetter Better = iota + 1 // more is an improvement (throughput)
	LowerIsBetter                    // less is an improvement (latency, losses)
	Neutral                          // a description of the run, not a score
)

// String returns "higher", "lower" or "neutral".
func (b Better) String() string {
	switch b {
	case HigherIsBetter:
		return "higher"
	case LowerIsBetter:
		return "lower"
	case Neutral:
		return "neutral"
	}
	return "unknown"
}

// Metric groups, in the order reports show them.
const (
	GroupLoad       = "load and accounting"
	GroupThroughput = "throughput"
	GroupLatency    = "latency"
	GroupBlocks     = "blocks and consensus"
	GroupMempool    = "mempool"
	GroupResources  = "resources"
	GroupAdoption   = "block adoption"
	GroupEvents     = "perturbations and node events"
)

// Groups returns the metric groups in report order.
func Groups() []string {
	return []string{GroupLoad, GroupThroughput, GroupLatency, GroupBlocks, GroupMempool, GroupResources, GroupAdoption, GroupEvents}
}

// Units used by the dictionary.
const (
	UnitTxs    = "txs"
	UnitTPS    = "tx/s"
	UnitRatio  = "ratio"
	UnitMS     = "ms"
	UnitS      = "s"
	UnitBlocks = "blocks"
	UnitBPS    = "blocks/s"
	UnitRounds = "rounds"
	UnitBytes  = "B"
	UnitMiB    = "MiB" // 2^20 bytes
	UnitPct    = "%"   // of one CPU core: 200 = two cores busy
	UnitLoad   = "load"
	UnitPeers  = "peers"
	UnitNodes  = "nodes"
	UnitFiles  = "files"
	UnitGas    = "gas" // an SDK chain's gas units

	UnitTPSPerMin = "tx/s per min" // change of a rate per minute of the load
	UnitMSPerMin  = "ms per min"
	// UnitMiBPerHour is a size's growth per hour.
	UnitMiBPerHour = "MiB/h"
	UnitEvents     = "events"
	UnitLines      = "lines" // of a log
	// UnitMSPerHeight is a slope: milliseconds per chain height.
	UnitMSPerHeight = "ms/height"
)

// TimeScaleExponent is how a figure in unit turns from a time-scaled
// run's host time into the model's (docs/timescale.md): at time scale k
// the model's value is the host's × k^e. A time (ms, s, ms/height) is
// k times shorter in the model (e = −1), a rate (tx/s, blocks/s, MiB/h) k times
// higher (+1), the change of a rate per minute k² times (+2), the change
// of a latency per minute the same (−1 + 1). Counts, bytes, MiB, gas, ratios
// and rounds are the same (0). So is a share of CPU (%) and the load
// average: they describe the host, which is what time scaling relieves,
// and a model machine k times faster would be as busy.
func TimeScaleExponent(unit string) int {
	switch unit {
	case UnitMS, UnitS, UnitMSPerHeight:
		return -1
	case UnitTPS, UnitBPS, UnitMiBPerHour:
		return 1
	case UnitTPSPerMin:
		return 2
	}
	return 0
}

// ModelValue is v, a figure in unit of a run at time scale k (the host's
// time), in the model's time: v × k^TimeScaleExponent(unit); v itself at
// k = 1 (or 0).
func ModelValue(v float64, unit string, k float64) float64 {
	if k == 0 || k == 1 {
		return v
	}
	return v * math.Pow(k, float64(TimeScaleExponent(unit)))
}

// Units returns every unit the dictionary uses.
func Units() []string {
	return []string{UnitTxs, UnitTPS, UnitRatio, UnitMS, UnitS, UnitBlocks, UnitBPS, UnitRounds,
		UnitBytes, UnitMiB, UnitPct, UnitLoad, UnitPeers, UnitNodes, UnitFiles, UnitTPSPerMin, UnitMSPerMin, UnitEvents, UnitLines, UnitMSPerHeight,
		UnitMiBPerHour, UnitGas}
}

// Metric is one entry of the metric dictionary: a figure cometlab reports,
// keyed in summary.json by ID.
type Metric struct {
	ID         string // key in summary.json, snake_case with the unit as suffix where it helps
	Title      string // short human name for tables
	Unit       string // one of the Unit constants
	Definition string // what it is and how it is computed
	Better     Better
	Group      string // one of the Group constants
	Source     string // the run-directory files (and series) it is computed from
	// PerNode is set for figures also given for each node, in
	// summary.json's "nodes" (the run-wide value the definition gives is
	// in "metrics").
	PerNode bool
	// PerPerturbation is set for figures given for each perturbation, in
	// summary.json's "perturbations", and not in "metrics".
	PerPerturbation bool
	// Violation is set for counts of safety violations: any increase is
	// worse (compare, ab), with no threshold and no noise test.
	Violation bool
}

// Dictionary returns every metric cometlab reports, grouped and in report
// order. It returns a fresh slice on every call; callers may modify it.
func Dictionary() []Metric {
	lat := func(id, stat, def string) Metric {
		return Metric{ID: "block_latency_" + id + "_ms", Title: "Block latency " + stat, Unit: UnitMS, Better: LowerIsBetter, Group: GroupLatency, Source: "txs.csv",
			Definition: def + " of the block latency of the committed transactions (duplicates excluded): commit time of block H (the header time of block H+1, BFT time) − payload send time; what CometBFT's `loadtime report` computes."}
	}
	obs := func(id, stat string) Metric {
		return Metric{ID: "observed_latency_" + id + "_ms", Title: "Observed latency " + stat, Unit: UnitMS, Better: LowerIsBetter, Group: GroupLatency, Source: "txs.csv, adoption.csv",
			Definition: stat + " of the observed latency of the committed transactions (duplicates excluded): the time the target node committed the transaction's height (adoption.csv, cometlab host clock) − payload send time. Heights without an adoption row for the target are skipped."}
	}
	base := []Metric{
		// Load and accounting.
		{ID: "expected_txs", Source: "run.json", Title: "Expected", Unit: UnitTxs, Better: Neutral, Group: GroupLoad,
			Definition: "Transactions the load asked for: c × r × duration (connections × rate per connection × load duration in s), rounded down; for a shaped load (ramp, square, sine, trace) the number of sends its schedule holds, run.json load.expected_txs."},
		{ID: "sent_txs", Source: "sent.csv", Title: "Sent", Unit: UnitTxs, Better: Neutral, Group: GroupLoad,
			Definition: "Transactions handed to a connection: rows of sent.csv with an actual send time and no error."},
		{ID: "unsent_txs", Source: "sent.csv", Title: "Unsent", Unit: UnitTxs, Better: LowerIsBetter, Group: GroupLoad,
			Definition: "Scheduled sends that could not be made: rows of sent.csv with an error or without an actual send time."},
		{ID: "committed_txs", Source: "sent.csv, txs.csv", Title: "Committed", Unit: UnitTxs, Better: HigherIsBetter, Group: GroupLoad,
			Definition: "Sent transactions found on the chain: distinct (connection, sequence) pairs of sent.csv that appear in txs.csv."},
		{ID: "refused_txs", Source: "sent.csv, replies.csv, txs.csv", Title: "Refused", Unit: UnitTxs, Better: Neutral, Group: GroupLoad,
			Definition: "Sent transactions not committed that a gateway in front of the node (the sentinel) refused explicitly, one of its limits: a reply whose JSON-RPC code is in −32099…−32001 (reasons counted by message). Only for a run through a sentinel, or when there are some."},
		{ID: "rejected_txs", Source: "sent.csv, replies.csv, txs.csv", Title: "Rejected at broadcast", Unit: UnitTxs, Better: LowerIsBetter, Group: GroupLoad,
			Definition: "Sent transactions not committed whose broadcast reply was an error other than a refusal (reasons counted by message; messages that differ only in their numbers count as one): the load's own transactions, each counted once, at the node it was sent to — not the mempools' counter mempool_rejected_txs, which counts every node's refusals, gossip included."},
		{ID: "missing_txs", Source: "sent.csv, replies.csv, txs.csv", Title: "Missing", Unit: UnitTxs, Better: LowerIsBetter, Group: GroupLoad,
			Definition: "Sent transactions neither committed, refused nor rejected: dropped silently somewhere. committed + refused + rejected + missing = sent."},
		{ID: "duplicate_txs", Source: "txs.csv", Title: "Duplicates", Unit: UnitTxs, Better: LowerIsBetter, Group: GroupLoad,
			Definition: "Extra commits of a transaction already committed: rows of txs.csv flagged duplicate."},
		{ID: "unanswered_txs", Source: "sent.csv, replies.csv", Title: "Unanswered", Unit: UnitTxs, Better: LowerIsBetter, Group: GroupLoad,
			Definition: "Sent transactions without a broadcast reply in replies.csv (informational; they may still be committed)."},
		{ID: "late_sends", Source: "sent.csv, run.json", Title: "Late sends", Unit: UnitTxs, Better: LowerIsBetter, Group: GroupLoad,
			Definition: "Sent transactions whose actual send time is more than the late threshold (run.json load.late_threshold_s) after the scheduled time."},
		{ID: "send_lag_p99_ms", Source: "sent.csv", Title: "Send lag p99", Unit: UnitMS, Better: LowerIsBetter, Group: GroupLoad,
			Definition: "99th percentile of actual − scheduled send time over sent transactions: how far the open-loop generator fell behind its schedule."},

		// Throughput.
		{ID: "throughput_ratio", Source: "sent.csv, txs.csv, run.json", Title: "Throughput ratio", Unit: UnitRatio, Better: HigherIsBetter, Group: GroupThroughput,
			Definition: "committed_txs ÷ expected_txs; below 1 the network (or the generator) did not keep up with the load."},
		{ID: "committed_tps", Source: "sent.csv, txs.csv, run.json", Title: "Committed rate", Unit: UnitTPS, Better: HigherIsBetter, Group: GroupThroughput,
			Definition: "committed_txs ÷ span, span = max(load duration, last commit time of a run transaction − load start) in s."},
		{ID: "tps_mean", Source: "blocks.csv, run.json", Title: "Tx/s mean", Unit: UnitTPS, Better: HigherIsBetter, Group: GroupThroughput,
			Definition: "Mean over 1-second windows of the run transactions committed in the window (blocks placed by commit time), from load start to the commit of the last block holding a run transaction, at least the load duration; tm-bench's avg tx/s."},
		{ID: "tps_stddev", Source: "blocks.csv, run.json", Title: "Tx/s stddev", Unit: UnitTPS, Better: LowerIsBetter, Group: GroupThroughput,
			Definition: "Sample standard deviation of the per-second committed run transactions (windows as for tps_mean); tm-bench's stddev tx/s."},
		{ID: "tps_max", Source: "blocks.csv, run.json", Title: "Tx/s max", Unit: UnitTPS, Better: HigherIsBetter, Group: GroupThroughput,
			Definition: "Largest per-second count of committed run transactions (windows as for tps_mean); tm-bench's max tx/s."},
		{ID: "knee_tps", Source: "sent.csv, blocks.csv, txs.csv, run.json", Title: "Knee (ramp)", Unit: UnitTPS, Better: HigherIsBetter, Group: GroupThroughput,
			Definition: "Ramp runs only: a one-run estimate of the saturation point, the committed rate (all connections) at which it first fell below the offered rate and stayed below. " +
				"Both rates are counted in 5 s windows from the load start over the load's whole windows: committed = run transactions of the blocks committed in the window (commit time); " +
				"offered = scheduled sends of sent.csv counted by the second of their scheduled time, shifted by the lag (the median block latency of the transactions sent in the first 20 % of the load, in whole seconds). " +
				"The knee is the first window where committed < 0.9 × offered holds for it and the next 2 windows (every remaining window, at least 2, near the end); the mean committed rate over those windows is reported (on a rising ramp, the offered rate crossed it there). " +
				"Absent when the committed rate never stayed below; compare with saturate's saturation point."},

		// Latency.
		lat("min", "min", "Smallest"),
		lat("mean", "mean", "Mean"),
		lat("stddev", "stddev", "Sample standard deviation (n − 1)"),
		lat("p50", "p50", "Median (linear interpolation)"),
		lat("p90", "p90", "90th percentile (linear interpolation)"),
		lat("p95", "p95", "95th percentile (linear interpolation)"),
		lat("p99", "p99", "99th percentile (linear interpolation)"),
		lat("max", "max", "Largest"),
		obs("p50", "p50"),
		obs("p99", "p99"),
		obs("max", "max"),

		// Blocks and consensus.
		{ID: "blocks", Source: "blocks.csv", Title: "Blocks", Unit: UnitBlocks, Better: Neutral, Group: GroupBlocks,
			Definition: "Blocks in the run's height range (blocks.csv, first_height … last_height of run.json)."},
		{ID: "blocks_per_s_mean", Source: "blocks.csv, run.json", Title: "Blocks/s mean", Unit: UnitBPS, Better: Neutral, Group: GroupBlocks,
			Definition: "Mean over 1-second windows (as for tps_mean) of the blocks committed in the window; tm-bench's avg blocks/s."},
		{ID: "blocks_per_s_stddev", Source: "blocks.csv, run.json", Title: "Blocks/s stddev", Unit: UnitBPS, Better: Neutral, Group: GroupBlocks,
			Definition: "Sample standard deviation of the per-second block counts; tm-bench's stddev blocks/s."},
		{ID: "blocks_per_s_max", Source: "blocks.csv, run.json", Title: "Blocks/s max", Unit: UnitBPS, Better: Neutral, Group: GroupBlocks,
			Definition: "Largest per-second block count; tm-bench's max blocks/s."},
		{ID: "block_interval_mean_s", Source: "blocks.csv", Title: "Block interval mean", Unit: UnitS, Better: Neutral, Group: GroupBlocks,
			Definition: "Mean of header time(H+1) − header time(H) over consecutive heights of the run's blocks."},
		{ID: "rounds_max", Source: "blocks.csv", Title: "Rounds max", Unit: UnitRounds, Better: LowerIsBetter, Group: GroupBlocks,
			Definition: "Highest consensus round at which a block of the run was committed (0 = every block in the first round)."},
	}
	return slices.Concat(base, appDictionary(), appTimeDictionary(), trendDictionary(), blockDictionary(), autopsyDictionary(), stageDictionary(), safetyDictionary(), scenarioDictionary(), mempoolDictionary(), syncDictionary(), resourceDictionary(), msgBytesDictionary(), hostDictionary(), adoptionDictionary(), eventDictionary(), logDictionary())
}

// Lookup returns the dictionary entry for id.
func Lookup(id string) (Metric, bool) {
	for _, m := range Dictionary() {
		if m.ID == id {
			return m, true
		}
	}
	return Metric{}, false
}
