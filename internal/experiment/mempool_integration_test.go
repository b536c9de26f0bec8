package experiment_test

import (
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/experiment/experimenttest"
	"github.com/cometlab/cometlab/internal/testnet/testnettest"
)

// TestRunAppMempool runs four v0.40.0 validators of the e2e app with the
// app-side mempool (mempool = "app": the app keeps the transactions, ABCI
// InsertTx and ReapTxs) under load and checks that the load is committed
// and accounted for, that the nodes reaped transactions from their apps
// (mempool_reaped_txs, counted by CometBFT), that the drain waited for the
// app mempools by heights, and that the mempool size figures, 0 by
// construction there, are left out.
func TestRunAppMempool(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real 4-validator testnet with the app-side mempool")
	}
	experimenttest.Proves(t)
	f := experimenttest.BuildFetcher(t)
	experimenttest.LockNodes(t)
	res, dir := runText(t, f, "app-mempool.toml", `
app = "e2e"
mempool = "app"
[load]
rate = 100
duration = "10s"
`)
	get := checkAccounted(t, res, 1000)
	if reaped := get("mempool_reaped_txs"); !(reaped > 0) {
		t.Errorf("mempool_reaped_txs = %v, want > 0: no node reaped its app's transactions", reaped)
	}
	for _, n := range res.Run.Nodes {
		if n.Mempool != "app" {
			t.Errorf("run.json: %s's mempool %q, want app", n.Name, n.Mempool)
		}
	}
	if d := res.Run.Drain; d == nil || !d.Drained || d.App == "" {
		t.Errorf("drain %+v: want drained, waiting for the app mempools by heights", d)
	}
	if _, ok := res.Summary.Metrics["mempool_size_max_txs"]; ok {
		t.Error("mempool_size_max_txs computed from app-side mempools, whose mempool_size is 0 by construction")
	}
	// The e2e app's mock mempool forgets a transaction only on the
	// proposer that reaps it: the others propose it again. Duplicates are
	// counted, and explained by the app-side mempool, not hidden.
	if s := res.Summary.Safety; s == nil || s.CommittedTwice > 0 && !strings.Contains(s.TwiceExplained, "app-side mempool") {
		t.Errorf("safety %+v: duplicates not explained by the app-side mempool", s)
	}
	if left := testnettest.ProcessesUnder(t, dir); len(left) > 0 {
		t.Errorf("processes left behind: %v", left)
	}
	t.Logf("figures: reaped %v, duplicates %v, committed %v, block latency p50 %v ms",
		res.Summary.Metrics["mempool_reaped_txs"], res.Summary.Metrics["duplicate_txs"], res.Summary.Metrics["committed_txs"],
		res.Summary.Metrics["block_latency_p50_ms"])
}

// TestRunAdaptiveSync runs four v0.40.0 validators with adaptive sync
// (block sync feeding consensus while it runs) under load, kills one for
// 12 s and checks that it caught up (catch_up_s) with adaptive sync at
// work on it: blocks its block sync fetched, either ingested into its
// consensus (blocksync_ingested_blocks) or found already committed by
// consensus's own catch-up (blocksync_already_included_blocks), counted by
// CometBFT; while the safety check watched: no disagreement, no evidence
// of a double sign committed, every transaction accounted for.
func TestRunAdaptiveSync(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real 4-validator testnet with adaptive sync and a kill")
	}
	experimenttest.Proves(t)
	f := experimenttest.BuildFetcher(t)
	experimenttest.LockNodes(t)
	res, dir := runText(t, f, "adaptive-sync.toml", `
adaptive_sync = true
[load]
rate = 100
duration = "25s"
[perturb.validator04]
action = "kill"
at = "4s"
down = "12s"
`)
	get := checkAccounted(t, res, 2500)
	if v := get("evidence_committed"); v != 0 {
		t.Errorf("evidence_committed = %v: a double sign under adaptive sync (cometbft#5953)", v)
	}
	if len(res.Summary.Perturbations) != 1 {
		t.Fatalf("perturbations %+v, want the kill", res.Summary.Perturbations)
	}
	up, ok := res.Summary.Perturbations[0].Figures["catch_up_s"]
	if !ok || !(up > 0) {
		t.Errorf("catch_up_s = %v (%v): the killed node did not catch up", up, ok)
	}
	v4 := res.Summary.Nodes["validator04"]
	ingested, ok := v4["blocksync_ingested_blocks"]
	already, ok2 := v4["blocksync_already_included_blocks"]
	if !ok || !ok2 || !(ingested+already > 0) {
		t.Errorf("validator04 blocksync_ingested_blocks = %v (%v), already included %v (%v): adaptive sync fetched no block for it", ingested, ok, already, ok2)
	}
	for _, n := range res.Run.Nodes {
		if !n.AdaptiveSync {
			t.Errorf("run.json: %s without adaptive_sync", n.Name)
		}
	}
	if left := testnettest.ProcessesUnder(t, dir); len(left) > 0 {
		t.Errorf("processes left behind: %v", left)
	}
	t.Logf("figures: catch_up_s %v, validator04 ingested %v blocks (%v already included), ingest mean %v ms",
		up, ingested, already, res.Summary.Metrics["blocksync_ingest_mean_ms"])
}
