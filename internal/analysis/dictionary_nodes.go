package analysis

import "fmt"

// The dictionary entries of the figures taken from what every node did
// while the load ran (metrics.csv, resources.csv, adoption.csv) and the
// block figures added with them. Series names are given with CometBFT's
// default namespace, cometbft; the testnet's own namespace is used when it
// set another. Figures "during the load" take the samples from load start
// to load end (run.json) inclusive.

// blockDictionary returns the block and consensus entries beyond the
// tm-bench ones.
func blockDictionary() []Metric {
	return []Metric{
		{ID: "block_interval_max_s", Title: "Block interval max", Unit: UnitS, Better: LowerIsBetter, Group: GroupBlocks, Source: "blocks.csv",
			Definition: "Largest header time(H+1) − header time(H) over consecutive heights of the run's blocks."},
		{ID: "blocks_multi_round", Title: "Blocks after round 0", Unit: UnitBlocks, Better: LowerIsBetter, Group: GroupBlocks, Source: "blocks.csv",
			Definition: "Blocks of the run committed in a round above 0 (round of block H's commit, from block H+1's last commit): heights where the first proposal did not make it."},
		{ID: "block_txs_mean", Title: "Transactions per block", Unit: UnitTxs, Better: Neutral, Group: GroupBlocks, Source: "blocks.csv",
			Definition: "Mean number of transactions (all, not only the run's) per block of the run."},
		{ID: "block_size_mean_bytes", Title: "Block size mean", Unit: UnitBytes, Better: Neutral, Group: GroupBlocks, Source: "blocks.csv",
			Definition: "Mean over the run's blocks of the summed size of their transactions, in bytes (headers and commits not counted)."},
		{ID: "block_size_max_bytes", Title: "Block size max", Unit: UnitBytes, Better: Neutral, Group: GroupBlocks, Source: "blocks.csv",
			Definition: "Largest summed size of the transactions of one block of the run, in bytes."},
		{ID: "block_whole_size_mean_bytes", Title: "Whole block size mean", Unit: UnitBytes, Better: Neutral, Group: GroupBlocks, PerNode: true,
			Source: "metrics.csv: cometbft_consensus_block_size_bytes",
			Definition: "Mean of the size of the node's last committed block as CometBFT measures it (the whole block's protobuf: header, transactions, the last commit's signatures, evidence) over the scrapes during the load, a sample of the blocks " +
				"(one a scrape). Run-wide: over every node's samples. Less the transactions (block_size_mean_bytes), what remains is mostly the last commit, which grows with the validators and their signature size (key_type)."},
		{ID: "block_whole_size_max_bytes", Title: "Whole block size max", Unit: UnitBytes, Better: Neutral, Group: GroupBlocks, PerNode: true,
			Source:     "metrics.csv: cometbft_consensus_block_size_bytes",
			Definition: "Largest sample of cometbft_consensus_block_size_bytes (the whole block's protobuf) during the load; run-wide over every node."},
		{ID: "block_processing_time_mean_ms", Title: "Block processing time", Unit: UnitMS, Better: LowerIsBetter, Group: GroupBlocks, PerNode: true,
			Source:     "metrics.csv: cometbft_state_block_processing_time_sum, _count",
			Definition: "Mean time to execute a block (FinalizeBlock, as the storage report measures it): increase of the histogram's _sum ÷ increase of its _count over the whole scrape; the series is in milliseconds despite its name. Run-wide: Σ over nodes of the _sum increases ÷ Σ of the _count increases."},
		{ID: "block_store_access_mean_ms", Title: "Block store access", Unit: UnitMS, Better: LowerIsBetter, Group: GroupBlocks, PerNode: true,
			Source:     "metrics.csv: cometbft_store_block_store_access_duration_seconds_sum, _count (v1.0)",
			Definition: "Mean duration of an access to the block store, over every method: increase of _sum ÷ increase of _count over the whole scrape, × 1000. Run-wide: Σ _sum increases ÷ Σ _count increases. Releases before v1.0 do not expose it."},
		{ID: "state_store_access_mean_ms", Title: "State store access", Unit: UnitMS, Better: LowerIsBetter, Group: GroupBlocks, PerNode: true,
			Source:     "metrics.csv: cometbft_state_store_access_duration_seconds_sum, _count (v1.0)",
			Definition: "Mean duration of an access to the state store, over every method: increase of _sum ÷ increase of _count over the whole scrape, × 1000. Run-wide: Σ _sum increases ÷ Σ _count increases. Releases before v1.0 do not expose it."},
		{ID: "block_store_base_height", Title: "Block store base", Unit: UnitBlocks, Better: Neutral, Group: GroupBlocks, PerNode: true,
			Source:     "metrics.csv: cometbft_state_block_store_base_height (v1.0)",
			Definition: "The lowest height a node's block store still holds, its largest sample: above 1, blocks were pruned (the app's retain height, e.g. the e2e app's retain_blocks, and storage.pruning). Run-wide: the largest over nodes. A run whose app set retain_blocks and that passed that many heights by 10, with no node above 1, is an anomaly."},
		{ID: "proposal_timestamp_diff_mean_ms", Title: "Proposal timestamp difference", Unit: UnitMS, Better: LowerIsBetter, Group: GroupBlocks, PerNode: true,
			Source:     "metrics.csv: cometbft_consensus_proposal_timestamp_difference_sum, _count (v1.0)",
			Definition: "Mean over the proposals a node received of their receive time − their timestamp (the proposer's clock), over both is_timely labels: increase of _sum ÷ increase of _count over the whole scrape, × 1000. v1.0 nodes record it for every proposal, PBTS enabled or not; a skewed clock shows here. Run-wide: Σ _sum increases ÷ Σ _count increases. Releases before v1.0 do not expose it."},
		{ID: "untimely_proposals", Title: "Untimely proposals", Unit: UnitEvents, Better: LowerIsBetter, Group: GroupBlocks, PerNode: true,
			Source:     "metrics.csv: cometbft_consensus_proposal_timestamp_difference_count{is_timely=\"false\"} (v1.0)",
			Definition: "Proposals a node received whose timestamp was not timely by the chain's synchrony parameters (precision, message delay): the increase of the histogram's count labelled is_timely=false. With PBTS enabled a validator prevotes nil on an untimely proposal. Run-wide: the sum over nodes. Releases before v1.0 do not expose it."},
		{ID: "round_duration_mean_ms", Title: "Round timer mean (round_duration)", Unit: UnitMS, Better: LowerIsBetter, Group: GroupBlocks, PerNode: true,
			Source: "metrics.csv: cometbft_consensus_round_duration_seconds_sum, _count",
			Definition: "Mean of what CometBFT's round_duration histogram observes — not the length of a round: as a height enters round 0 and as it moves to a later round, the time since the height's start (its commit plus timeout_commit; consensus/metrics.go MarkRound, called from updateRoundStep). " +
				"Entering round 0 observes a few ms; moving on from round r observes the time rounds 0 … r took. So a run whose heights all commit in round 0 reads a few ms and one with some later rounds about a second: one quantity in one unit, dominated by how many heights needed a later round. " +
				"Increase of _sum ÷ increase of _count over the whole scrape, × 1000. Run-wide: Σ _sum increases ÷ Σ _count increases."},
		{ID: "peers_min", Title: "Peers min", Unit: UnitPeers, Better: HigherIsBetter, Group: GroupBlocks, PerNode: true, Source: "metrics.csv: cometbft_p2p_peers",
			Definition: "Fewest peers a node had during the load (smallest sample of cometbft_p2p_peers). Run-wide: the fewest over nodes."},
		{ID: "height_behind_max", Title: "Height behind max", Unit: UnitBlocks, Better: LowerIsBetter, Group: GroupBlocks, PerNode: true, Source: "metrics.csv: cometbft_consensus_height",
			Definition: "How many heights a node's last sample of cometbft_consensus_height was below the highest last sample of any node. Run-wide: the largest over nodes."},
	}
}

// mempoolDictionary returns the mempool entries.
func mempoolDictionary() []Metric {
	const src = "metrics.csv: cometbft_mempool_size"
	counter := func(name, what string) Metric {
		return Metric{ID: "mempool_" + name + "_txs", Title: "Mempool " + name + " (nodes' counter)", Unit: UnitTxs, Better: LowerIsBetter, Group: GroupMempool, PerNode: true,
			Source:     "metrics.csv: cometbft_mempool_" + name + "_txs",
			Definition: fmt.Sprintf("Transactions %s, at any node, from a client or from a peer's gossip (one transaction refused by four nodes counts four times; not the load's own rejected_txs): increase of the counter cometbft_mempool_%s_txs over the whole scrape (a fall is a restart and counts from 0; CometBFT exposes the counter only once it is first incremented, so a node whose mempool_size was scraped without it counts 0). Run-wide: the sum over nodes.", what, name)}
	}
	return []Metric{
		{ID: "mempool_size_max_txs", Title: "Mempool size max", Unit: UnitTxs, Better: LowerIsBetter, Group: GroupMempool, PerNode: true, Source: src,
			Definition: "Largest sample of a node's mempool size (transactions in the mempool). Run-wide: the largest over nodes."},
		{ID: "mempool_size_mean_txs", Title: "Mempool size mean (scraped)", Unit: UnitTxs, Better: LowerIsBetter, Group: GroupMempool, PerNode: true, Source: src + ", each scrape (1 s)",
			Definition: "Mean of a node's mempool size samples (cometbft_mempool_size, scraped every second, at any point of a height) during the load. Run-wide: the mean over nodes of their means (the seeds' average mempool size). " +
				"Not the comparison's \"Mempool size\" plot, which draws mempool.csv: each node's mempool right after it committed a height, when the block's transactions have just left it — the lowest point of each height, so that plot reads below this mean."},
		{ID: "mempool_total_max_txs", Title: "Mempool total max", Unit: UnitTxs, Better: LowerIsBetter, Group: GroupMempool, Source: src,
			Definition: "Peak of the mempool sizes summed over all nodes (the top of the seeds' cumulative mempool plot): each node's series is taken on a common grid at the scrape interval (its last sample at most two intervals old), summed, and the largest sum kept."},
		{ID: "mempool_size_end_txs", Title: "Mempool at end", Unit: UnitTxs, Better: LowerIsBetter, Group: GroupMempool, PerNode: true, Source: src,
			Definition: "A node's last mempool size sample, after the load and the drain. Run-wide: the sum over nodes. Above 0 the mempool did not return to empty: an anomaly."},
		counter("failed", "that failed to enter the mempool because CheckTx deemed them invalid"),
		counter("rejected", "that failed to enter the mempool for lack of resources (mempool full)"),
		counter("evicted", "that entered the mempool and were evicted later (invalid on recheck)"),
	}
}

// resourceDictionary returns the process and host resource entries.
func resourceDictionary() []Metric {
	const src = "resources.csv (or metrics.csv: process_resident_memory_bytes, process_cpu_seconds_total)"
	return []Metric{
		{ID: "rss_max_mib", Title: "RSS max", Unit: UnitMiB, Better: LowerIsBetter, Group: GroupResources, PerNode: true, Source: src,
			Definition: "Largest resident set size of a node's process, in MiB (2^20 bytes). Run-wide: the largest over nodes."},
		{ID: "rss_mean_mib", Title: "RSS mean", Unit: UnitMiB, Better: LowerIsBetter, Group: GroupResources, PerNode: true, Source: src,
			Definition: "Mean resident set size of a node's process during the load, in MiB. Run-wide: the mean over nodes (the seeds' average memory)."},
		{ID: "cpu_mean_pct", Title: "CPU mean", Unit: UnitPct, Better: LowerIsBetter, Group: GroupResources, PerNode: true, Source: src,
			Definition: "Mean CPU use of a node's process during the load, in % of one core (200 = two cores busy), each sample being the CPU time used since the previous one ÷ the time between them. Run-wide: the mean over nodes."},
		{ID: "cpu_max_pct", Title: "CPU max", Unit: UnitPct, Better: LowerIsBetter, Group: GroupResources, PerNode: true, Source: src,
			Definition: "Largest CPU sample of a node's process, in % of one core. Run-wide: the largest over nodes."},
		{ID: "load1_max", Title: "load1 max", Unit: UnitLoad, Better: LowerIsBetter, Group: GroupResources, Source: "resources.csv",
			Definition: "Largest 1-minute load average of the host (/proc/loadavg), the CPU measure CometBFT's QA uses; compare with the host's CPU count."},
		{ID: "load1_mean", Title: "load1 mean", Unit: UnitLoad, Better: LowerIsBetter, Group: GroupResources, Source: "resources.csv",
			Definition: "Mean 1-minute load average of the host during the load."},
		{ID: "open_files_max", Title: "Open files max", Unit: UnitFiles, Better: LowerIsBetter, Group: GroupResources, PerNode: true, Source: "resources.csv",
			Definition: "Most open file descriptors of a node's process. Run-wide: the most over nodes."},
		{ID: "data_dir_end_mib", Title: "Data dir at end", Unit: UnitMiB, Better: LowerIsBetter, Group: GroupResources, PerNode: true, Source: "resources.csv",
			Definition: "Size on disk of a node's data directory (block store, state, indexer, WAL) at its last sample, in MiB: the storage footprint. Run-wide: the largest over nodes."},
		{ID: "data_dir_growth_mib", Title: "Data dir growth", Unit: UnitMiB, Better: LowerIsBetter, Group: GroupResources, PerNode: true, Source: "resources.csv",
			Definition: "Last − first sample of a node's data-directory size, in MiB. Run-wide: the largest over nodes."},
		{ID: "data_dir_growth_mib_per_h", Title: "Data dir growth per hour", Unit: UnitMiBPerHour, Better: LowerIsBetter, Group: GroupResources, PerNode: true, Source: "resources.csv",
			Definition: "Least-squares slope of a node's data-directory size over the load, in MiB per hour: the storage growth an hour at this load would add, extrapolated from the run when it is shorter. Run-wide: the largest over nodes."},
	}
}

// adoptionDictionary returns the block adoption entries.
func adoptionDictionary() []Metric {
	const src = "adoption.csv"
	out := []Metric{
		{ID: "adoption_blocks", Title: "Blocks adopted", Unit: UnitBlocks, Better: Neutral, Group: GroupAdoption, Source: src,
			Definition: "Heights of the run that at least one node was seen committing: the blocks the adoption figures are over (Cardano's sample count)."},
	}
	for _, f := range AdoptionFractions() {
		id := "adoption_" + adoptionID(f)
		out = append(out,
			Metric{ID: id + "_ms", Title: fmt.Sprintf("%.2f adoption mean", f), Unit: UnitMS, Better: LowerIsBetter, Group: GroupAdoption, Source: src,
				Definition: fmt.Sprintf("Mean over blocks of the time from the first node's local commit of the block until %.0f %% of the nodes (⌈%.2f·N⌉ of the N validators and full nodes) had committed it, all times by the clock of the host running cometlab (Cardano's cdf%.2f, with the first node's commit as the reference instead of slot start). Blocks that fewer nodes committed are left out.", f*100, f, f)},
			Metric{ID: id + "_p99_ms", Title: fmt.Sprintf("%.2f adoption p99", f), Unit: UnitMS, Better: LowerIsBetter, Group: GroupAdoption, Source: src,
				Definition: fmt.Sprintf("99th percentile over blocks of the time from the first node's commit until %.0f %% of the nodes had committed the block.", f*100)})
	}
	return append(out,
		Metric{ID: "adoption_bft_first_ms", Title: "First commit after BFT time", Unit: UnitMS, Better: Neutral, Group: GroupAdoption, Source: "adoption.csv, blocks.csv",
			Definition: "Mean over blocks of the first node's local commit − the block's BFT commit time (header time of block H+1, the median of the validators' precommit times). Mixes clocks: on one host it is the commit delay after the precommits; negative values mean the BFT time is ahead."},
		Metric{ID: "adoption_bft_p50_ms", Title: "0.50 adoption after BFT time", Unit: UnitMS, Better: LowerIsBetter, Group: GroupAdoption, Source: "adoption.csv, blocks.csv",
			Definition: "As adoption_p50_ms, but measured from the block's BFT commit time (header time of block H+1) instead of the first node's commit."},
		Metric{ID: "adoption_bft_p100_ms", Title: "1.00 adoption after BFT time", Unit: UnitMS, Better: LowerIsBetter, Group: GroupAdoption, Source: "adoption.csv, blocks.csv",
			Definition: "As adoption_p100_ms, but measured from the block's BFT commit time (header time of block H+1) instead of the first node's commit."},
		Metric{ID: "adoption_incomplete_blocks", Title: "Blocks not adopted by all", Unit: UnitBlocks, Better: LowerIsBetter, Group: GroupAdoption, Source: src,
			Definition: "Blocks of adoption_blocks that not every node was seen committing."},
		Metric{ID: "adoption_lag_mean_ms", Title: "Lag behind first node mean", Unit: UnitMS, Better: LowerIsBetter, Group: GroupAdoption, PerNode: true, Source: src,
			Definition: "Mean over the heights a node committed of its local commit time − the first node's commit time of that height (0 when it was first). Run-wide: the mean over every (node, height)."},
		Metric{ID: "adoption_lag_p99_ms", Title: "Lag behind first node p99", Unit: UnitMS, Better: LowerIsBetter, Group: GroupAdoption, PerNode: true, Source: src,
			Definition: "99th percentile of a node's lag behind the first node's commit. Run-wide: over every (node, height)."},
		Metric{ID: "adoption_lag_max_ms", Title: "Lag behind first node max", Unit: UnitMS, Better: LowerIsBetter, Group: GroupAdoption, PerNode: true, Source: src,
			Definition: "Largest lag of a node behind the first node's commit. Run-wide: the largest over nodes."},
		Metric{ID: "adoption_missing_heights", Title: "Heights not committed", Unit: UnitBlocks, Better: LowerIsBetter, Group: GroupAdoption, PerNode: true, Source: src,
			Definition: "Heights of adoption_blocks that a node was not seen committing (it fell behind, stopped, or its subscription dropped). Run-wide: the sum over nodes."},
		Metric{ID: "nodes_behind", Title: "Nodes that fell behind", Unit: UnitNodes, Better: LowerIsBetter, Group: GroupAdoption, Source: src,
			Definition: "Nodes with at least one height of adoption_blocks they were not seen committing."},
	)
}
