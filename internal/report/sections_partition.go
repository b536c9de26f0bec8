package report

import (
	"fmt"

	"github.com/cometlab/cometlab/internal/analysis"
)

// partition writes "Network partition": whether the chain halted, how far
// its rounds went, how long it took to recover after the heal, and what
// became of the transactions sent meanwhile (the partition_* figures);
// nothing for a run without a partition.
func (m mdWriter) partition(s analysis.Summary) {
	var p *analysis.PerturbationSummary
	for i := range s.Perturbations {
		if s.Perturbations[i].Node == "" && s.Perturbations[i].Action == analysis.PartitionAction {
			p = &s.Perturbations[i]
		}
	}
	if p == nil {
		return
	}
	m.f("### Network partition\n\n")
	end := "the end of the run (not healed)"
	if p.EndS != nil {
		end = fmt.Sprintf("%.1f s", *p.EndS)
	}
	m.f("The p2p links between the groups were cut in the relays from %.1f s to %s after the load start (%s); links within a group kept working.\n\n",
		p.BeginS, end, p.Detail)
	if s.Metrics["partition_halted"] == 1 {
		m.f("- **The chain halted** %s after the cut (%s new height(s) committed while partitioned): no side held more than 2/3 of the voting power.\n",
			metricValue(s, "partition_halt_s"), bareValue(s, "partition_heights"))
	} else {
		m.f("- **The chain did not halt**: a side held more than 2/3 of the voting power; %s new heights committed while partitioned.\n",
			bareValue(s, "partition_heights"))
	}
	m.f("- Rounds while partitioned: up to round %s (consensus_rounds; a side without 2/3 of the votes never gathers the prevotes that move it to the next round).\n",
		bareValue(s, "partition_rounds"))
	m.f("- After the heal: the next new height %s later (time to recover); every node at the heal's height %s after it.\n",
		metricValue(s, "partition_recover_s"), metricValue(s, "partition_caught_up_s"))
	m.f("- Transactions sent while partitioned: %s; committed before the heal %s, after it %s, never %s.\n\n",
		bareValue(s, "partition_sent_txs"), bareValue(s, "partition_committed_during_txs"),
		bareValue(s, "partition_committed_after_txs"), bareValue(s, "partition_lost_txs"))
}
