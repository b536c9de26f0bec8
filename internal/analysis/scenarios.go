package analysis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cometlab/cometlab/internal/results"
)

// The figures of two of CometBFT's release scenarios (docs/scenarios.md):
// absent stake (validators in the genesis that never run, run.json
// absent) and injected duplicate-vote evidence (run.json evidence,
// evidence events in events.csv).

// absentFigures puts the absent-stake figures of a run with absent
// validators and returns the heights after round 0 whose verdict names an
// absent validator as the proposer that did not propose: expected, so not
// anomalies.
func absentFigures(in Input, b *builder) map[int64]bool {
	a := in.Run.Absent
	if a == nil || len(a.Validators) == 0 {
		return nil
	}
	b.put("absent_power_share", a.Share(), "")
	blocks := in.RunBlocks()
	multi := 0
	for _, k := range blocks {
		if k.Round > 0 {
			multi++
		}
	}
	if len(blocks) > 0 {
		b.put("absent_multi_round_share", float64(multi)/float64(len(blocks)), "")
	}
	expected := map[int64]bool{}
	for _, v := range b.s.Autopsy {
		if v.Round > 0 && v.Cause == CauseProposerAbsent && slices.Contains(a.Validators, v.Node) {
			expected[v.Height] = true
		}
	}
	b.put("absent_proposer_heights", float64(len(expected)), "")
	return expected
}

// Injected is one piece of evidence the run injected (an evidence event).
type Injected struct {
	Node   string `json:"node"`   // the validator whose key signed both votes
	Height int64  `json:"height"` // the votes' height
	Via    string `json:"via"`    // the node it was sent to
	// Committed is the height of the block that carried it; 0 when no
	// block of evidence.csv did.
	Committed int64 `json:"committed,omitempty"`
}

// InjectedEvidence returns the evidence events of events.csv, each with
// the block of evidence.csv that committed it (matched by validator and
// height; names from validators, address → node).
func InjectedEvidence(events []results.Event, committed []results.Evidence, validators map[string]string) []Injected {
	var out []Injected
	used := make([]bool, len(committed))
	for _, e := range events {
		if e.Kind != results.EventEvidence {
			continue
		}
		in := Injected{Node: e.Node}
		if h, via, ok := ParseEvidenceDetail(e.Detail); ok {
			in.Height, in.Via = h, via
		}
		for i, c := range committed {
			if !used[i] && c.EvidenceHeight == in.Height && validators[strings.ToUpper(c.Validator)] == in.Node {
				used[i], in.Committed = true, c.Height
				break
			}
		}
		out = append(out, in)
	}
	return out
}

// EvidenceDetail is an evidence event's detail: the votes' height and
// the node the evidence was sent to.
func EvidenceDetail(height int64, via string) string {
	return fmt.Sprintf("DuplicateVoteEvidence height %d via %s", height, via)
}

// ParseEvidenceDetail reads what [EvidenceDetail] wrote.
func ParseEvidenceDetail(s string) (height int64, via string, ok bool) {
	n, err := fmt.Sscanf(s, "DuplicateVoteEvidence height %d via %s", &height, &via)
	return height, via, err == nil && n == 2
}

// evidenceFigures puts the injected-evidence figures and names what was
// injected and never committed.
func evidenceFigures(in Input, b *builder) {
	inj := InjectedEvidence(in.Events, in.Evidence, in.Validators)
	if len(inj) == 0 && in.Run.Evidence == 0 {
		return
	}
	b.s.Injected = inj
	var lost []string
	for _, x := range inj {
		if x.Committed == 0 {
			lost = append(lost, fmt.Sprintf("%s at height %d", x.Node, x.Height))
		}
	}
	b.put("evidence_injected", float64(len(inj)), "")
	b.put("evidence_injected_committed", float64(len(inj)-len(lost)), "")
	if len(inj) < in.Run.Evidence {
		b.anomaly("%d of the %d duplicate-vote evidences asked for (evidence = %d) were injected (see the run's errors)", len(inj), in.Run.Evidence, in.Run.Evidence)
	}
	if len(lost) > 0 {
		b.anomaly("%s injected and not committed in the run's blocks: %s", count(float64(len(lost)), "duplicate-vote evidence was", "duplicate-vote evidences were"), JoinFew(lost, 4, "and %d more"))
	}
}

// IsScenarioMetric reports whether id is a figure of absent stake or of
// injected evidence: put only for a run that played the scenario.
func IsScenarioMetric(id string) bool {
	return slices.ContainsFunc(scenarioDictionary(), func(m Metric) bool { return m.ID == id })
}

// scenarioDictionary returns the entries of the absent-stake and
// injected-evidence figures.
func scenarioDictionary() []Metric {
	m := func(id, title, unit string, better Better, source, def string) Metric {
		return Metric{ID: id, Title: title, Unit: unit, Better: better, Group: GroupBlocks, Source: source, Definition: def}
	}
	return []Metric{
		m("absent_power_share", "Absent stake", UnitRatio, Neutral, "run.json",
			"Voting power of the validators in the genesis that never ran (the manifest's absent key) ÷ the genesis validators' voting power. Only for a run with absent validators."),
		m("absent_multi_round_share", "Heights after round 0, absent stake", UnitRatio, LowerIsBetter, "blocks.csv, run.json",
			"blocks_multi_round ÷ the run's blocks: the share of heights decided after round 0. Only for a run with absent validators."),
		m("absent_proposer_heights", "Heights an absent proposer cost", UnitBlocks, LowerIsBetter, "autopsy.csv, run.json",
			"Heights decided after round 0 whose autopsy verdict is proposer_absent naming an absent validator: its turn to propose came and nothing was proposed. They are expected, not anomalies. Only for a run with absent validators."),
		m("evidence_injected", "Evidence injected", UnitEvents, Neutral, "events.csv",
			"Duplicate-vote evidences the run sent with broadcast_evidence (the manifest's evidence key): evidence events of events.csv, each naming the validator whose key signed both votes and their height."),
		m("evidence_injected_committed", "Injected evidence committed", UnitEvents, HigherIsBetter, "events.csv, evidence.csv",
			"Injected evidences (evidence_injected) that a block of the run committed: a DuplicateVoteEvidence row of evidence.csv with the same validator and height. One not committed is an anomaly."),
	}
}
