package analysis

// The dictionary entries of node events and perturbations (events.csv).
// Run-wide entries are in summary.json's "metrics"; PerPerturbation ones
// are given for each perturbation under "perturbations".

func eventDictionary() []Metric {
	src := "events.csv"
	per := func(id, title, unit string, better Better, source, def string) Metric {
		return Metric{ID: id, Title: title, Unit: unit, Better: better, Group: GroupEvents, Source: src + ", " + source, Definition: def, PerPerturbation: true}
	}
	win := func(stat string) string {
		return stat + " The windows: before = [begin − w, begin), during = [begin, end), after = [end, end + w) of the perturbation's down period (perturb-begin to perturb-end), w = max(end − begin, 10 s)."
	}
	var out []Metric
	out = append(out,
		Metric{ID: "perturbations", Title: "Perturbations", Unit: UnitEvents, Better: Neutral, Group: GroupEvents, Source: src,
			Definition: "Perturbations of the run: perturb-begin events (each paired with the next perturb-end of its node)."},
		Metric{ID: "node_exits", Title: "Unplanned node exits", Unit: UnitEvents, Better: LowerIsBetter, Group: GroupEvents, Source: src,
			Definition: "Node process exits outside every perturbation of their node: nodes that died on their own."},
		Metric{ID: "liveness_gap_max_s", Title: "Liveness gap max", Unit: UnitS, Better: LowerIsBetter, Group: GroupEvents, Source: src + ", adoption.csv",
			Definition: "Largest liveness gap (liveness_gap_s) over the run's perturbations."},
		Metric{ID: "catch_up_max_s", Title: "Catch-up max", Unit: UnitS, Better: LowerIsBetter, Group: GroupEvents, Source: src + ", adoption.csv",
			Definition: "Longest catch-up time (catch_up_s) over the run's perturbations."},
		per("liveness_gap_s", "Liveness gap", UnitS, LowerIsBetter, "adoption.csv",
			"Time from the perturbation's begin until a node other than the perturbed one committed a height above the highest any of them had committed at the begin: how long the network went without a new block (about one block interval when it kept going). For a network partition (node \"\"), where heights already agreed upon land just after the cut: the longest time without a new height from the cut until the first new height after the heal."),
		per("catch_up_s", "Catch-up", UnitS, LowerIsBetter, "adoption.csv",
			"Time from the perturbation's end until the perturbed node committed a height at least as high as the highest the other nodes had committed by then: back at the tip."),
		per("sync_blocks_per_s", "Sync rate", UnitBPS, HigherIsBetter, "adoption.csv",
			"Heights the perturbed node committed from its first commit after the perturbation's end to its catch-up, ÷ the time between the two (block sync or consensus catch-up); absent when it committed fewer than two heights meanwhile."),
		per("sync_tps", "Sync tx rate", UnitTPS, HigherIsBetter, "adoption.csv, blocks.csv",
			"Transactions (all, from blocks.csv) of the heights counted by sync_blocks_per_s, ÷ the same time."),
		per("multi_round_during", "Rounds > 0 during", UnitBlocks, LowerIsBetter, "blocks.csv",
			win("Blocks committed after round 0 with a commit time (header time of H+1) during the perturbation.")),
		per("multi_round_after", "Rounds > 0 after", UnitBlocks, LowerIsBetter, "blocks.csv",
			win("Blocks committed after round 0 with a commit time in the window after the perturbation.")),
	)
	for _, w := range []struct{ id, name string }{{"before", "before"}, {"during", "during"}, {"after", "after"}} {
		out = append(out,
			per("latency_"+w.id+"_ms", "Latency "+w.name, UnitMS, LowerIsBetter, "txs.csv",
				win("Mean block latency of the committed transactions (duplicates left out) sent in the window "+w.name+" the perturbation.")),
			per("tps_"+w.id, "Tx/s "+w.name, UnitTPS, HigherIsBetter, "blocks.csv",
				win("Run transactions in the blocks committed (by commit time) in the window "+w.name+" the perturbation, ÷ its length in s.")))
	}
	out = append(out,
		per("sent_while_down_txs", "Sent while down", UnitTxs, Neutral, "sent.csv",
			"Transactions sent (actual send time) while the node was down, from the perturbation's begin to its end; they are accounted as every other (committed, rejected or missing)."),
		per("lost_while_down_txs", "Lost while down", UnitTxs, LowerIsBetter, "sent.csv, txs.csv",
			"Of sent_while_down_txs, those not committed (rejected or missing)."),
	)
	out = append(out, partitionDictionary()...)
	out = append(out, upgradeDictionary()...)
	rot := func(id, title, unit string, better Better, def string) Metric {
		return Metric{ID: id, Title: title, Unit: unit, Better: better, Group: GroupEvents, Source: src + ", adoption.csv", Definition: def}
	}
	catchUp := "The catch-up time of an ephemeral node: from its start event to its caught-up event (the node reported catching_up = false within 1 height of the tip)."
	out = append(out,
		rot("rotation_catch_ups", "Ephemeral catch-ups", UnitEvents, Neutral, "Caught-up events of the run, each paired with the latest start of its node before it (a rotation's ephemeral nodes)."),
		rot("rotation_catch_up_mean_s", "Catch-up mean", UnitS, LowerIsBetter, "Mean catch-up time over the ephemeral nodes' catch-ups. "+catchUp),
		rot("rotation_catch_up_p50_s", "Catch-up p50", UnitS, LowerIsBetter, "Median catch-up time (linear interpolation). "+catchUp),
		rot("rotation_catch_up_p99_s", "Catch-up p99", UnitS, LowerIsBetter, "99th percentile of the catch-up time (linear interpolation). "+catchUp),
		rot("rotation_catch_up_max_s", "Catch-up max", UnitS, LowerIsBetter, "Longest catch-up time. "+catchUp),
		rot("rotation_sync_blocks_per_s_mean", "Ephemeral sync rate", UnitBPS, HigherIsBetter,
			"Mean over the catch-ups of the network's height at the caught-up event (highest height the other nodes had committed, adoption.csv) ÷ the catch-up time: blocks fetched and executed per second by a node syncing from genesis."),
		rot("rotation_catch_up_slope_ms_per_height", "Catch-up growth", UnitMSPerHeight, LowerIsBetter,
			"Least-squares slope of the catch-up time (ms) against the network's height at the node's start: how much longer a catch-up takes per height the chain has grown. Needs catch-ups at two heights or more."),
	)
	return out
}

// partitionDictionary is the figures of a [partition] (PartitionOf),
// from its perturb-begin (the cut) and perturb-end (the heal) events of
// node "".
func partitionDictionary() []Metric {
	m := func(id, title, unit string, better Better, source, def string) Metric {
		return Metric{ID: id, Title: title, Unit: unit, Better: better, Group: GroupEvents, Source: "events.csv, " + source, Definition: def}
	}
	return []Metric{
		m("partition_heights", "Heights while partitioned", UnitBlocks, Neutral, "adoption.csv",
			"New heights committed by any node from the partition's cut to its heal, above the highest committed at the cut."),
		m("partition_halted", "Halted by the partition", UnitEvents, Neutral, "adoption.csv",
			"1 when no group held more than 2/3 of the voting power (the groups' power is in the partition's perturb-begin detail, \"power 2/2\"; runs without it: when no new height was committed in the second half of the partition), else 0. A chain that commits new heights while halted by this rule is an anomaly, as is a majority side that commits none."),
		m("partition_halt_s", "Time to halt", UnitS, Neutral, "adoption.csv",
			"When the chain halted (partition_halted = 1): time from the cut to the last new height committed while partitioned (blocks already agreed upon finish), 0 when none was. Absent, with a note, when the chain did not halt."),
		m("partition_rounds", "Rounds while partitioned", UnitRounds, Neutral, "metrics.csv",
			"Highest consensus round any node reported (consensus_rounds, scraped) from the cut to the heal: how far the stalled height's rounds went (their timeouts grow with the round)."),
		m("partition_recover_s", "Time to recover", UnitS, LowerIsBetter, "adoption.csv",
			"Time from the heal to the first new height committed by any node, above the highest committed at the heal (the nodes redial their persistent peers themselves)."),
		m("partition_caught_up_s", "Time to catch up after the heal", UnitS, LowerIsBetter, "adoption.csv",
			"Time from the heal until every node had committed the highest height any node had committed at the heal: the minority side of an unequal split is back at the tip."),
		m("partition_sent_txs", "Sent while partitioned", UnitTxs, Neutral, "sent.csv",
			"Transactions sent (actual send time) from the cut to the heal."),
		m("partition_committed_during_txs", "Sent while partitioned, committed before the heal", UnitTxs, Neutral, "sent.csv, txs.csv, adoption.csv",
			"Of partition_sent_txs, those whose height some node committed before the heal."),
		m("partition_committed_after_txs", "Sent while partitioned, committed after the heal", UnitTxs, Neutral, "sent.csv, txs.csv, adoption.csv",
			"Of partition_sent_txs, those whose height was first committed after the heal (they waited in a mempool)."),
		m("partition_lost_txs", "Sent while partitioned, lost", UnitTxs, LowerIsBetter, "sent.csv, txs.csv",
			"Of partition_sent_txs, those never committed (rejected or missing)."),
	}
}

// upgradeDictionary is the figures of upgrade perturbations (UpgradesOf),
// from each one's perturb-begin, term, start and perturb-end events and
// the upgraded node's adoption rows.
func upgradeDictionary() []Metric {
	src := "events.csv, adoption.csv"
	m := func(id, title, unit string, better Better, def string) Metric {
		return Metric{ID: id, Title: title, Unit: unit, Better: better, Group: GroupEvents, Source: src, Definition: def}
	}
	per := func(id, title, unit string, better Better, def string) Metric {
		mt := m(id, title, unit, better, def)
		mt.PerPerturbation = true
		return mt
	}
	return []Metric{
		per("upgrade_downtime_s", "Upgrade downtime", UnitS, LowerIsBetter,
			"Time from the upgraded node's term event (SIGTERM to the old release) to its first commit (adoption.csv) after its start event with the new release."),
		per("upgrade_catch_up_s", "Upgrade catch-up", UnitS, LowerIsBetter,
			"Time from the upgraded node's start with the new release to its first commit at a height at least the highest the other nodes had committed by then: back at the tip."),
		per("upgrade_network_heights", "Heights during the upgrade", UnitBlocks, HigherIsBetter,
			"Heights the other nodes committed from the upgraded node's term event to its first commit after its start (to the end of adoption.csv without one): 0 means the network stopped committing while the node was down."),
		m("upgrades", "Upgrades", UnitEvents, Neutral, "Upgrade perturbations of the run (perturb-begin events whose detail begins with upgrade), one per upgraded node."),
		m("upgrade_downtime_max_s", "Upgrade downtime max", UnitS, LowerIsBetter, "Longest upgrade_downtime_s over the run's upgrades."),
		m("upgrade_catch_up_max_s", "Upgrade catch-up max", UnitS, LowerIsBetter, "Longest upgrade_catch_up_s over the run's upgrades."),
		m("upgrade_network_stalls", "Upgrades the network stalled in", UnitEvents, LowerIsBetter,
			"Upgrades during whose downtime (SIGTERM to the node's first commit) the other nodes committed no new height (upgrade_network_heights = 0) although the downtime lasted at least 2 of their median intervals between new heights (a shorter downtime without one is an ordinary gap between blocks): 0 when the network kept committing through every upgrade."),
		m("upgrade_mixed_version_s", "Mixed-version period", UnitS, Neutral,
			"Time from the first upgrade's perturb-begin to the last upgrade's perturb-end: how long validators of both releases shared the network while the upgrade rolled (a release not every node was upgraded to stays mixed after it). Absent when an upgrade did not end."),
	}
}
