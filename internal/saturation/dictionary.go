package saturation

import "github.com/cometlab/cometlab/internal/analysis"

// Dictionary returns the figures that sweeps and saturation
// searches add to the metric dictionary: the per-run evidence of the
// saturation criterion (in sweep.json and saturate.json, per cell or
// step) and the results of a sweep or a search (their "figures" maps).
// Entries follow Dictionary's conventions (units, groups, directions); it
// returns a fresh slice on every call.
func Dictionary() []analysis.Metric {
	return []analysis.Metric{
		{ID: "latency_slope", Title: "Latency slope", Unit: analysis.UnitRatio, Better: analysis.LowerIsBetter, Group: analysis.GroupLatency,
			Definition: "Least-squares slope of per-block mean block latency (s) against mean send time (s since load start) over the steady window of the load (Criterion.SteadyFrom … SteadyTo of the duration), in s of latency per s of load; a queue growing because the offered rate λ exceeds the service rate μ gives (λ − μ)/μ. Reported with its 95 % confidence interval (Student's t, n − 2 degrees of freedom)."},
		{ID: "drain_s", Title: "Drain time", Unit: analysis.UnitS, Better: analysis.LowerIsBetter, Group: analysis.GroupLoad,
			Definition: "Time from the end of the load until every node's mempool is empty: from metrics.csv (cometbft_mempool_size of every node 0) when the run has it, else from polling every node's num_unconfirmed_txs during the run, else the commit of the last block holding a run transaction."},
		{ID: "late_round_share", Title: "Heights after round 0", Unit: analysis.UnitRatio, Better: analysis.LowerIsBetter, Group: analysis.GroupBlocks,
			Definition: "Share of the run's heights (blocks.csv, first_height … last_height) committed in a round above 0; a round-skipping storm shows as a large share."},
		{ID: "capacity_estimate_tps", Title: "Capacity estimate", Unit: analysis.UnitTPS, Better: analysis.HigherIsBetter, Group: analysis.GroupThroughput,
			Definition: "A failing run's estimate of the highest sustainable load, all connections: min(committed_tps, c·r / (1 + latency_slope)); the saturation search places its next run from it."},
		{ID: "saturation_tps", Title: "Saturation point", Unit: analysis.UnitTPS, Better: analysis.HigherIsBetter, Group: analysis.GroupThroughput,
			Definition: "Saturation search: the midpoint c·(L + H)/2 of the highest full-length passing rate L and the lowest failing rate H per connection, ± c·(H − L)/2."},
		{ID: "recommended_tps", Title: "Recommended QA load", Unit: analysis.UnitTPS, Better: analysis.Neutral, Group: analysis.GroupThroughput,
			Definition: "Saturation search: c·L, the highest full-length load that passed the criterion below the saturation point (\"slightly under the saturation point\", as CometBFT's QA chooses its load)."},
		{ID: "saturation_diagonal_tps", Title: "Saturation diagonal", Unit: analysis.UnitTPS, Better: analysis.HigherIsBetter, Group: analysis.GroupThroughput,
			Definition: "Sweep: the highest load c·r such that no cell with that load or less is saturated (at least half of its repeats fail the criterion); the cells with that load form the diagonal of the saturation table."},
		{ID: "saturated_tps", Title: "Throughput when saturated", Unit: analysis.UnitTPS, Better: analysis.HigherIsBetter, Group: analysis.GroupThroughput,
			Definition: "Sweep: the median committed_tps of the saturated cells, what the network delivers when overloaded."},
	}
}
