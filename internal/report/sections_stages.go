package report

import (
	"fmt"
	"math"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
)

// stages writes the stage breakdown of the run's median height and of the
// slowest heights listed (worst), from summary.json: where each one's
// time went. Nothing for a run without stage figures.
func (m mdWriter) stages(s analysis.Summary, worst []results.Verdict) {
	ids := []string{"stage_first_precommit_p50_ms", "stage_precommit_quorum_p50_ms", "stage_commit_p50_ms", "stage_adoption_spread_p50_ms"}
	median := make([]string, 0, len(ids)+1)
	median = append(median, "median of the run's heights")
	have := false
	for _, id := range ids {
		v, ok := s.Metric(id)
		have = have || ok
		median = append(median, stageCell(v, ok))
	}
	if !have {
		return
	}
	rows := [][]string{median}
	for _, v := range worst {
		for _, st := range s.SlowStages {
			if st.Height == v.Height {
				rows = append(rows, []string{fmt.Sprintf("height %d (round %d)", st.Height, st.Round),
					stageRef(st.FirstPrecommitMs), stageRef(st.QuorumMs), stageRef(st.CommitMs), stageRef(st.SpreadMs)})
			}
		}
	}
	m.f("Where the time of a height went (`stages.csv`, docs/autopsy.md#stages): from its header time to the first " +
		"precommit (the wait after commit, the proposal, the prevotes and any failed round), to the precommit quorum, " +
		"to the first node heard committing it, and to the last:\n\n")
	m.table([]string{"height", "to first precommit, ms", "to quorum, ms", "to first commit, ms", "to last node, ms"}, "lrrrr", rows)
}

// stageCell formats a stage's milliseconds ("—" when not measured).
func stageCell(v float64, ok bool) string {
	if !ok || math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%.0f", v)
}

// stageRef formats a slow height's stage ("—" when not measured).
func stageRef(v *float64) string {
	if v == nil {
		return "—"
	}
	return stageCell(*v, true)
}
