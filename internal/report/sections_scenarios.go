package report

import (
	"fmt"
	"strings"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
)

// scenarios writes the sections of the release scenarios the run played
// (docs/scenarios.md): absent stake and injected evidence; nothing for a
// run with neither.
func (m mdWriter) scenarios(s analysis.Summary, run results.Run) {
	m.absent(s, run.Absent)
	m.injected(s, run.Evidence)
}

// absent writes "Absent stake": who never ran, what it held, and what it
// cost: heights after round 0 and why, block interval and latency.
func (m mdWriter) absent(s analysis.Summary, a *results.Absent) {
	if a == nil || len(a.Validators) == 0 {
		return
	}
	m.f("## Absent stake\n\n")
	m.f("%s (%d of the %d voting power, %s) %s in the genesis and never started, as in CometBFT's absent-stake testnet: "+
		"each height an absent validator was to propose waits for timeout_propose and is decided in a later round, "+
		"and its precommits are absent from every commit. Those heights are expected: no anomaly, and the keep-up criterion does not count them.\n\n",
		strings.Join(a.Validators, ", "), a.Power, a.TotalPower, sharePct(a.Share()), plural(len(a.Validators), "was", "were"))
	m.table([]string{"figure", "value"}, "lr", [][]string{
		{"heights decided after round 0", fmt.Sprintf("%s of %s (%s)", bareValue(s, "blocks_multi_round"), bareValue(s, "blocks"), shareMetric(s, "absent_multi_round_share"))},
		{"… whose round-0 proposer was absent (autopsy: proposer_absent)", bareValue(s, "absent_proposer_heights")},
		{"block interval mean / max", metricValue(s, "block_interval_mean_s") + " / " + metricValue(s, "block_interval_max_s")},
		{"block latency p50 / p99", metricValue(s, "block_latency_p50_ms") + " / " + metricValue(s, "block_latency_p99_ms")},
	})
	m.f("Compare with the same testnet with every validator present: `cometlab sweep --set absent=none,%s`, "+
		"or `cometlab compare` of a run without the absent key.\n\n", strings.Join(a.Validators, "+"))
}

// injected writes "Injected evidence": the duplicate votes sent and the
// block that committed each.
func (m mdWriter) injected(s analysis.Summary, asked int) {
	if asked == 0 && len(s.Injected) == 0 {
		return
	}
	m.f("## Injected evidence\n\n")
	m.f("%s of %d duplicate-vote evidences asked for (evidence = %d) were sent with broadcast_evidence; %s committed.\n\n",
		bareValue(s, "evidence_injected"), asked, asked, bareValue(s, "evidence_injected_committed"))
	var rows [][]string
	for _, x := range s.Injected {
		block := "not committed"
		if x.Committed > 0 {
			block = fmt.Sprint(x.Committed)
		}
		rows = append(rows, []string{x.Node, fmt.Sprint(x.Height), x.Via, block})
	}
	if len(rows) > 0 {
		m.table([]string{"validator", "votes' height", "sent to", "committed in block"}, "lrlr", rows)
	}
}

// sharePct formats a share (0…1) as a percentage.
func sharePct(v float64) string { return fmt.Sprintf("%.1f %%", 100*v) }

// shareMetric formats the share metric id as a percentage, n/a when
// absent.
func shareMetric(s analysis.Summary, id string) string {
	v, ok := s.Metrics[id]
	if !ok {
		return "n/a"
	}
	return sharePct(v)
}
