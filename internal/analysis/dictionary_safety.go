package analysis

// The dictionary entries of the safety check (hashes.csv, txs.csv,
// replies.csv, evidence.csv; see Safety).

func safetyDictionary() []Metric {
	m := func(id, title, unit string, better Better, source, def string) Metric {
		return Metric{ID: id, Title: title, Unit: unit, Better: better, Group: GroupBlocks, Source: source, Definition: def}
	}
	violation := func(x Metric) Metric { x.Violation = true; return x }
	return []Metric{
		violation(m("safety_violations", "Safety violations", UnitEvents, LowerIsBetter, "hashes.csv, txs.csv, sent.csv, replies.csv, run.json, events.csv",
			"Violations of the safety check: disagreeing_heights + unexplained_duplicate_txs + unexplained_lost_txs. Any is a violation: the report and the terminal summary open with it and the run exits 5.")),
		violation(m("unexplained_duplicate_txs", "Committed twice, unexplained", UnitTxs, LowerIsBetter, "txs.csv, events.csv",
			"duplicate_txs (extra commits of a transaction) when nothing in the run explains them, else 0. Explained means a node started again after a kill, stop (term), wipe or death: its mempool cache was empty, so a transaction already committed could enter its mempool from a lagging peer and be proposed again, which CometBFT leaves to the app to refuse (the kvstore does not); or a node ran the app-side mempool (mempool = \"app\"), where the app alone builds blocks from what it holds and so alone protects against replay (the e2e app's mock mempool does not). The explanation is in summary.json safety.twice_explained.")),
		violation(m("disagreeing_heights", "Disagreeing heights", UnitBlocks, LowerIsBetter, "hashes.csv",
			"Heights at which two nodes (of those that reported the height) committed different block hashes or different app hashes (after executing the block), from each node's new-block headers (block H's hash and app hash from header H+1) and, at the run's end, each node's /status (latest block hash) and /abci_info (its app's last app hash). Absent without hashes.csv.")),
		m("agreed_heights", "Agreed heights", UnitBlocks, Neutral, "hashes.csv",
			"Heights that two nodes or more reported in hashes.csv and at which all of them committed the same block hash and app hash."),
		m("lost_acked_txs", "Accepted, lost", UnitTxs, LowerIsBetter, "sent.csv, replies.csv, txs.csv",
			"Sent transactions whose broadcast reply accepted them (code 0, from the node or the sentinel) but that the chain never committed (part of missing_txs). broadcast_tx_async's code 0 only says the node (or sentinel) took the transaction, so a loss can have a cause in the run: see unexplained_lost_txs."),
		violation(m("unexplained_lost_txs", "Accepted, lost, unexplained", UnitTxs, LowerIsBetter, "sent.csv, replies.csv, txs.csv, run.json, events.csv",
			"lost_acked_txs when nothing in the run explains them, else 0. Explained means one of: the run did not complete; the run did not wait for the mempools, or they had not emptied when the drain gave up; a node was killed, stopped (term), wiped or exited before the drain ended (a mempool is not persisted); the app is the user's own (its CheckTx verdict is not in an async reply). The explanation is in summary.json safety.explained.")),
		m("evidence_committed", "Evidence committed", UnitEvents, LowerIsBetter, "evidence.csv",
			"Evidence of misbehaviour committed in the run's blocks: one per piece of evidence and validator it accuses (DuplicateVoteEvidence, LightClientAttackEvidence), named in summary.json safety.evidence and the report."),
	}
}
