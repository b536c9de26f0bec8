package analysis

// Consensus or the app? CometBFT's consensus waits for the app twice per
// height, on its critical path: FinalizeBlock (the block's execution,
// state_block_processing_time, in ms) and Commit (the app's store,
// abci_connection_method_timing_seconds{method="commit"}). Their sum over
// the block interval is the share of each height the chain spent in the
// app; the rest is consensus (the proposal, the votes and their gossip,
// timeout_commit). CheckTx (method="check_tx") runs beside consensus on
// the mempool's connection: it costs CPU, not height time.

// abciTiming is the ABCI method timing histogram (seconds), by method.
const abciTiming = "abci_connection_method_timing_seconds"

// abciMeanMs returns node's time in ABCI method (ms) over its series, and
// the calls, summed over every series of the method — each type the
// connection timed it as (CheckTx is "async" from the clist mempool,
// "sync" from v0.40's app mempool): false when the node has none.
func abciMeanMs(set *SeriesSet, node, method string) (sumMs, calls float64, ok bool) {
	sums, counts := set.Find(node, abciTiming+"_sum"), set.Find(node, abciTiming+"_count")
	for _, s := range sums {
		if s.Label("method") != method {
			continue
		}
		for _, c := range counts {
			if c.Labels == s.Labels {
				sumMs, calls, ok = sumMs+Increase(s.V)*1000, calls+Increase(c.V), true
				break
			}
		}
	}
	return sumMs, calls, ok
}

// appTimeFigures puts the mean Commit and CheckTx times (over the nodes'
// calls) and the app's share of the block interval.
func appTimeFigures(set *SeriesSet, b *builder, nodes []string) {
	var commitMs, commits, checkMs, checks float64
	for _, n := range nodes {
		if ms, c, ok := abciMeanMs(set, n, "commit"); ok && c > 0 {
			b.putNode(n, "app_commit_mean_ms", ms/c)
			commitMs, commits = commitMs+ms, commits+c
		}
		if ms, c, ok := abciMeanMs(set, n, "check_tx"); ok && c > 0 {
			checkMs, checks = checkMs+ms, checks+c
		}
	}
	if commits > 0 {
		b.put("app_commit_mean_ms", commitMs/commits, "")
	}
	if checks > 0 {
		b.put("check_tx_mean_ms", checkMs/checks, "")
	}
	exec, okExec := b.s.Metrics["block_processing_time_mean_ms"]
	interval, okInt := b.s.Metrics["block_interval_mean_s"]
	if commits > 0 && okExec && okInt && interval > 0 {
		b.put("app_share_of_interval", (exec+commitMs/commits)/(interval*1000), "")
	}
}

// appTimeDictionary returns the entries of appTimeFigures.
func appTimeDictionary() []Metric {
	return []Metric{
		{ID: "app_commit_mean_ms", Title: "App Commit time", Unit: UnitMS, Better: LowerIsBetter, Group: GroupBlocks, PerNode: true,
			Source:     "metrics.csv: cometbft_abci_connection_method_timing_seconds_sum, _count (method=commit)",
			Definition: "Mean time of the app's Commit (its store's write), over the nodes' calls: consensus waits for it at every height."},
		{ID: "check_tx_mean_ms", Title: "CheckTx time", Unit: UnitMS, Better: LowerIsBetter, Group: GroupMempool,
			Source:     "metrics.csv: cometbft_abci_connection_method_timing_seconds_sum, _count (method=check_tx)",
			Definition: "Mean time of the app's CheckTx, over the nodes' calls (every node checks every transaction it receives): on the mempool's connection, beside consensus, so it costs CPU rather than height time."},
		{ID: "app_share_of_interval", Title: "App's share of the block interval", Unit: UnitRatio, Better: Neutral, Group: GroupBlocks,
			Source:     "metrics.csv: block processing and Commit timing; blocks.csv",
			Definition: "(block_processing_time_mean_ms + app_commit_mean_ms) ÷ block_interval_mean_s: the share of each height the chain waited for the app (FinalizeBlock, then Commit); the rest is consensus (proposal, votes, gossip, timeout_commit). The report calls the app the bound when it is 0.5 or more."},
	}
}
