package analysis

// proposalTimeFigures puts the proposal timestamp figures of v1.0 nodes
// (consensus_proposal_timestamp_difference, a histogram by is_timely of
// each received proposal's receive time − its timestamp, recorded whether
// or not PBTS is enabled): the mean difference, and the proposals the
// nodes judged untimely by the synchrony parameters. Nothing without the
// series (releases before v1.0).
func proposalTimeFigures(set *SeriesSet, b *builder, nodes []string) {
	const short = "consensus_proposal_timestamp_difference"
	var sum, count, untimely float64
	seen := false
	for _, n := range nodes {
		sums := map[string]float64{}
		for _, s := range set.Find(n, short+"_sum") {
			sums[s.Label("is_timely")] += Increase(s.V)
		}
		var ns, nc float64
		for _, c := range set.Find(n, short+"_count") {
			seen = true
			dc := Increase(c.V)
			ns, nc = ns+sums[c.Label("is_timely")], nc+dc
			if c.Label("is_timely") == "false" {
				untimely += dc
				b.putNode(n, "untimely_proposals", dc)
			}
		}
		if nc > 0 {
			b.putNode(n, "proposal_timestamp_diff_mean_ms", ns/nc*1000)
		}
		sum, count = sum+ns, count+nc
	}
	if !seen {
		return
	}
	b.put("untimely_proposals", untimely, "")
	if count > 0 {
		b.put("proposal_timestamp_diff_mean_ms", sum/count*1000, "")
	}
}
