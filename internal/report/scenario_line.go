package report

import (
	"fmt"
	"strings"

	"github.com/cometlab/cometlab/internal/analysis"
)

// ScenarioLines are the answers of the scenarios the run played, one
// line each as "Title: answer." — a partition (did the chain halt, when
// it recovered after the heal, what became of what was sent while
// partitioned), a rolling upgrade (did the network keep committing), an
// absent stake (what the absent validators cost) and a rotation (how the
// ephemeral nodes caught up) — from the summary's figures alone; none for
// a run that played no scenario. The report and the terminal summary open
// with them: they are the question the run was made to answer.
func ScenarioLines(s analysis.Summary) []string {
	var out []string
	for _, l := range []struct{ title, text string }{
		{"Network partition", partitionAnswer(s)},
		{"Rolling upgrade", upgradeAnswer(s)},
		{"Absent stake", absentAnswer(s)},
		{"Rotation", rotationAnswer(s)},
	} {
		if l.text != "" {
			out = append(out, l.title+": "+l.text+".")
		}
	}
	return out
}

// partitionAnswer is the partition's answer: "the chain halted 0.4 s
// after the cut, recovered 4.1 s after the heal; 1,000 sent while
// partitioned, all committed (…)"; "" without a partition.
func partitionAnswer(s analysis.Summary) string {
	var p *analysis.PerturbationSummary
	for i := range s.Perturbations {
		if s.Perturbations[i].Node == "" && s.Perturbations[i].Action == analysis.PartitionAction {
			p = &s.Perturbations[i]
		}
	}
	if p == nil {
		return ""
	}
	var parts []string
	switch h, ok := s.Metrics["partition_halted"]; {
	case !ok:
		parts = append(parts, "no figure of whether the chain halted")
	case h == 1 && hasMetric(s, "partition_halt_s"):
		parts = append(parts, "the chain halted "+metricValue(s, "partition_halt_s")+" after the cut")
	case h == 1:
		parts = append(parts, "the chain halted")
	default:
		parts = append(parts, fmt.Sprintf("the chain did not halt (%s new heights while partitioned: a side held more than 2/3 of the voting power)",
			bareValue(s, "partition_heights")))
	}
	switch {
	case p.EndS == nil:
		parts = append(parts, "the run ended before the heal")
	case hasMetric(s, "partition_recover_s"):
		parts = append(parts, "recovered "+metricValue(s, "partition_recover_s")+" after the heal")
	default:
		parts = append(parts, "**no new height after the heal**")
	}
	answer := strings.Join(parts, ", ")
	sent, lost := s.Metrics["partition_sent_txs"], s.Metrics["partition_lost_txs"]
	switch {
	case !hasMetric(s, "partition_sent_txs"):
	case sent == 0:
		answer += "; no transaction was sent while partitioned"
	case lost == 0:
		answer += fmt.Sprintf("; %s sent while partitioned, all committed (%s before the heal, %s after it)", groupDigits(sent),
			bareValue(s, "partition_committed_during_txs"), bareValue(s, "partition_committed_after_txs"))
	default:
		answer += fmt.Sprintf("; %s sent while partitioned, **%s never committed** (%s before the heal, %s after it)", groupDigits(sent),
			groupDigits(lost), bareValue(s, "partition_committed_during_txs"), bareValue(s, "partition_committed_after_txs"))
	}
	return answer
}

// upgradeAnswer is the rolling upgrade's answer: did the network keep
// committing while each node restarted on its new release; "" without
// an upgrade.
func upgradeAnswer(s analysis.Summary) string {
	n, ok := s.Metrics["upgrades"]
	if !ok || n == 0 {
		return ""
	}
	kept := "the network kept committing through every upgrade"
	if st := s.Metrics["upgrade_network_stalls"]; st > 0 {
		kept = fmt.Sprintf("**the network stopped committing during %s upgrade(s)**", groupDigits(st))
	}
	return fmt.Sprintf("%s node(s) restarted on another release, %s (longest downtime %s, longest catch-up %s; mixed versions for %s)",
		groupDigits(n), kept, metricValue(s, "upgrade_downtime_max_s"), metricValue(s, "upgrade_catch_up_max_s"),
		metricValue(s, "upgrade_mixed_version_s"))
}

// absentAnswer is the absent stake's answer: what share never started
// and what it cost the chain; "" without absent validators.
func absentAnswer(s analysis.Summary) string {
	share, ok := s.Metrics["absent_power_share"]
	if !ok {
		return ""
	}
	if blocks := s.Metrics["blocks"]; blocks == 0 {
		return fmt.Sprintf("%s of the voting power never started, and **the chain committed no block**", sharePct(share))
	}
	return fmt.Sprintf("%s of the voting power never started; the chain kept committing, %s of %s heights after round 0 (%s), "+
		"%s for an absent proposer; block interval mean %s", sharePct(share), bareValue(s, "blocks_multi_round"), bareValue(s, "blocks"),
		shareMetric(s, "absent_multi_round_share"), bareValue(s, "absent_proposer_heights"), metricValue(s, "block_interval_mean_s"))
}

// rotationAnswer is the rotation's answer: how the ephemeral nodes
// caught up; "" for a run without catch-ups.
func rotationAnswer(s analysis.Summary) string {
	n, ok := s.Metrics["rotation_catch_ups"]
	if !ok || n == 0 {
		return ""
	}
	return fmt.Sprintf("%s ephemeral node(s) caught up from genesis, in %s on average (max %s), syncing %s", groupDigits(n),
		metricValue(s, "rotation_catch_up_mean_s"), metricValue(s, "rotation_catch_up_max_s"), metricValue(s, "rotation_sync_blocks_per_s_mean"))
}

func hasMetric(s analysis.Summary, id string) bool {
	_, ok := s.Metrics[id]
	return ok
}
