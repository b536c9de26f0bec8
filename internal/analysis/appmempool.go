package analysis

import (
	"slices"
	"strings"

	"github.com/cometlab/cometlab/internal/results"
)

// withMempool returns nodes without those whose mempool CometBFT does not
// keep (run.json's node mempool "app" or "nop": mempool_size is 0 by
// construction), and notes that they were left out of the mempool size
// figures.
func withMempool(in Input, b *builder, nodes []string) []string {
	kind := map[string]string{}
	for _, n := range in.Run.Nodes {
		if n.Mempool != "" {
			kind[n.Name] = n.Mempool
		}
	}
	var out, apart []string
	for _, n := range nodes {
		if k := kind[n]; k != "" {
			apart = append(apart, n+" ("+k+")")
			continue
		}
		out = append(out, n)
	}
	if len(apart) > 0 {
		b.note("mempool size figures leave out %s: an app-side mempool keeps the transactions in the app and a nop mempool keeps none, "+
			"so CometBFT's mempool_size and num_unconfirmed_txs are 0 there by construction", strings.Join(apart, ", "))
	}
	return out
}

// syncFigures puts the figures of the v0.39/v0.40 mempools and sync: what
// each node reaped from an app-side mempool (cometbft_mempool_reaped_txs)
// and what adaptive sync fed its consensus (cometbft_blocksync_*). A
// figure is put only for runs whose nodes ran the setting (run.json), so
// that 0 means "ran it and counted nothing", never "did not run it".
func syncFigures(in Input, set *SeriesSet, b *builder, nodes []string) {
	has := func(want func(results.Node) bool) []string {
		var out []string
		for _, n := range in.Run.Nodes {
			if want(n) && slices.Contains(nodes, n.Name) {
				out = append(out, n.Name)
			}
		}
		return out
	}
	counter := func(id, short string, of []string) {
		if len(of) == 0 {
			return
		}
		total, any := sumCounter(set, b, of, id, short, "consensus_height")
		if any {
			b.put(id, total, "")
		} else {
			b.note("%s not computed: no node of %s was scraped", id, strings.Join(of, ", "))
		}
	}
	app := has(func(n results.Node) bool { return n.Mempool == "app" })
	counter("mempool_reaped_txs", "mempool_reaped_txs", app)
	adaptive := has(func(n results.Node) bool { return n.AdaptiveSync })
	counter("blocksync_ingested_blocks", "blocksync_ingested_blocks", adaptive)
	counter("blocksync_already_included_blocks", "blocksync_already_included_blocks", adaptive)
	var sum, count float64
	for _, n := range adaptive {
		s, c := set.One(n, "blocksync_ingested_block_duration_sum"), set.One(n, "blocksync_ingested_block_duration_count")
		if s == nil || c == nil {
			continue
		}
		ds, dc := Increase(s.V), Increase(c.V)
		if dc > 0 {
			b.putNode(n, "blocksync_ingest_mean_ms", ds/dc*1000)
		}
		sum += ds
		count += dc
	}
	if count > 0 {
		b.put("blocksync_ingest_mean_ms", sum/count*1000, "")
	}
}

// IsSyncMetric reports whether id is a figure of the app-side mempool or
// adaptive sync, which only runs whose nodes ran them have.
func IsSyncMetric(id string) bool {
	return slices.ContainsFunc(syncDictionary(), func(m Metric) bool { return m.ID == id })
}

// syncDictionary returns the entries of syncFigures.
func syncDictionary() []Metric {
	return []Metric{
		{ID: "mempool_reaped_txs", Title: "App mempool reaped", Unit: UnitTxs, Better: Neutral, Group: GroupMempool, PerNode: true,
			Source: "metrics.csv: cometbft_mempool_reaped_txs; run.json: nodes' mempool",
			Definition: "Transactions a node running the app-side mempool (mempool = \"app\") took from its app to gossip: increase of the counter " +
				"cometbft_mempool_reaped_txs (CometBFT calls ABCI ReapTxs every mempool.reap_interval and counts what each call returns; the e2e " +
				"app returns every transaction it holds each time, so over a run this is the app mempool's size summed over the reaps, not " +
				"distinct transactions). Only for nodes with the app-side mempool; a node scraped without the counter counts 0. Run-wide: the sum over them."},
		{ID: "blocksync_ingested_blocks", Title: "Adaptive sync ingested", Unit: UnitBlocks, Better: Neutral, Group: GroupBlocks, PerNode: true,
			Source: "metrics.csv: cometbft_blocksync_ingested_blocks; run.json: nodes' adaptive_sync",
			Definition: "Blocks that adaptive sync (blocksync.adaptive_sync) fetched from peers, verified and handed to the node's consensus while it ran: " +
				"increase of the counter cometbft_blocksync_ingested_blocks. Only for nodes with adaptive sync; a node scraped without the counter counts 0. Run-wide: the sum over them."},
		{ID: "blocksync_already_included_blocks", Title: "Adaptive sync redundant", Unit: UnitBlocks, Better: Neutral, Group: GroupBlocks, PerNode: true,
			Source: "metrics.csv: cometbft_blocksync_already_included_blocks",
			Definition: "Blocks adaptive sync fetched that the node's consensus had already committed by itself (increase of " +
				"cometbft_blocksync_already_included_blocks): work block sync did in vain. Only for nodes with adaptive sync. Run-wide: the sum over them."},
		{ID: "blocksync_ingest_mean_ms", Title: "Adaptive sync ingest mean", Unit: UnitMS, Better: LowerIsBetter, Group: GroupBlocks, PerNode: true,
			Source: "metrics.csv: cometbft_blocksync_ingested_block_duration",
			Definition: "Mean time consensus took to ingest one verified block from adaptive sync (cometbft_blocksync_ingested_block_duration, in s: " +
				"increase of _sum ÷ increase of _count, in ms). Run-wide: over every ingested block of every node."},
	}
}
