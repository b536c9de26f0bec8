package report

import (
	"fmt"

	"github.com/cometlab/cometlab/internal/analysis"
)

// appVerdicts writes "The app's verdicts" for a run whose transactions
// the app judged (tx_results.csv: the user's own, or an SDK chain's
// signed sends): how many committed transactions succeeded and failed,
// the failures by codespace and code with the first one's log, and the
// gas. Nothing for a run without verdicts.
func (m mdWriter) appVerdicts(s analysis.Summary) {
	v := s.AppVerdicts
	if v == nil {
		return
	}
	m.f("## The app's verdicts\n\n")
	n := v.Succeeded + v.Failed
	m.f("Of the run's %s committed transactions, **%s succeeded** and **%s failed in the app** (their result code in `/block_results`, tx_results.csv). "+
		"A failed transaction was ordered and executed: consensus did its work, and the app refused it (an SDK chain keeps its fee and undoes its messages). "+
		"Transactions CheckTx refused never reach a block: they are in the accounting, as rejected or missing.\n\n",
		groupDigits(float64(n)), groupDigits(float64(v.Succeeded)), groupDigits(float64(v.Failed)))
	if len(v.Codes) > 0 {
		var rows [][]string
		for _, c := range v.Codes {
			rows = append(rows, []string{c.Codespace, fmt.Sprint(c.Code), c.Name, groupDigits(float64(c.Count)), "`" + c.Log + "`"})
		}
		m.table([]string{"codespace", "code", "error", "transactions", "first log"}, "lrlrl", rows)
	}
	if v.GasUsedMean > 0 {
		m.f("Gas per committed transaction: %s used of %s wanted, on average.\n\n", groupDigits(v.GasUsedMean), groupDigits(v.GasWantedMean))
	}
}

// consensusOrApp writes "Consensus or the app?": how much of each
// height's interval the chain waited for the app (FinalizeBlock, then
// Commit) and how much is consensus, which of the two bounded the heights,
// and CheckTx's cost beside them. Nothing without the app's timings (a
// release before v0.38, or no metrics).
func (m mdWriter) consensusOrApp(s analysis.Summary) {
	share, ok := s.Metrics["app_share_of_interval"]
	if !ok {
		return
	}
	interval := s.Metrics["block_interval_mean_s"] * 1000
	exec, commit := s.Metrics["block_processing_time_mean_ms"], s.Metrics["app_commit_mean_ms"]
	m.f("## Consensus or the app?\n\n")
	m.f("Consensus waits for the app twice a height: to execute the block (FinalizeBlock) and to commit the app's state (Commit). "+
		"Each height took **%.0f ms** on average; the app took **%.0f ms** of it (%.0f ms executing, %.0f ms committing): **%.0f %%**. "+
		"The other %.0f ms are consensus: the proposal, the votes and their gossip, and timeout_commit.\n\n",
		interval, exec+commit, exec, commit, 100*share, max(interval-exec-commit, 0))
	if share >= 0.5 {
		m.f("**The app bounds this chain's heights**: a faster FinalizeBlock or Commit shortens every height; consensus settings cannot.\n\n")
	} else {
		m.f("**Consensus, not the app, bounds this chain's heights**: the app is idle for most of each height (a faster app would shorten it by at most %.0f %%).\n\n", 100*share)
	}
	if busy, ok := s.Metrics["host_busy_mean_pct"]; ok && busy >= 80 {
		m.f("The host's CPUs were %.0f %% busy on average: on a saturated host part of every wait above, the app's and consensus's, is a wait for a CPU. "+
			"Compare such runs only side by side, or run fewer nodes (or a time scale).\n\n", busy)
	}
	if c, ok := s.Metrics["check_tx_mean_ms"]; ok {
		m.f("CheckTx took %.2f ms a transaction on each node that received it (the call's wall time), beside consensus on the mempool's connection: "+
			"it holds up no height itself, but competes with consensus for the CPU.", c)
		if tps, ok := s.Metrics["committed_tps"]; ok && len(s.Nodes) > 0 {
			m.f(" At %.0f tx/s on %d nodes that is %.1f CheckTx calls running at any time.", tps, len(s.Nodes), tps*float64(len(s.Nodes))*c/1000)
		}
		if v := s.AppVerdicts; v != nil && v.GasUsedMean > 0 && s.Metrics["blocks"] > 0 {
			perBlock := v.GasUsedMean * float64(v.Succeeded+v.Failed) / s.Metrics["blocks"]
			m.f(" Gas: %s used per block on average.", groupDigits(perBlock))
		}
		m.f("\n\n")
	}
}
