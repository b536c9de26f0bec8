package report

import (
	"fmt"
	"strings"

	"github.com/cometlab/cometlab/internal/analysis"
)

// SafetyLine says what the run's safety check found, in one line: the
// violations when there are any (violation true: the report and the
// terminal summary open with it), else that the nodes agreed at every
// height; with the evidence committed, named. "" for a summary without
// the check (made before it).
func SafetyLine(s analysis.Summary) (line string, violation bool) {
	sf := s.Safety
	if sf == nil {
		return "", false
	}
	var parts []string
	if len(sf.Disagreements) > 0 {
		d := sf.Disagreements[0]
		var differ []string
		for _, n := range d.Differing {
			differ = append(differ, fmt.Sprintf("%s (%s)", n.Node, short(n.Hash)))
		}
		parts = append(parts, fmt.Sprintf("the nodes disagreed at %d height(s), first at height %d: %s committed %s hash %s, %s a different one",
			sf.DisagreeingHeights, d.Height, strings.Join(d.Agreed, ", "), d.Hash, short(d.Majority), strings.Join(differ, ", ")))
	}
	if sf.CommittedTwice > 0 && sf.TwiceExplained == "" {
		parts = append(parts, fmt.Sprintf("%d transaction(s) committed more than once (duplicate rows of txs.csv)", sf.CommittedTwice))
	}
	if sf.LostAcked > 0 && sf.Explained == "" {
		parts = append(parts, fmt.Sprintf("%d accepted transaction(s) never committed, and nothing in the run explains it", sf.LostAcked))
	}
	violation = len(parts) > 0
	if !violation {
		switch {
		case sf.Checked:
			parts = append(parts, fmt.Sprintf("the nodes agreed at every height (%d heights, %d nodes)", sf.Heights, len(sf.Nodes)))
		default:
			parts = append(parts, "no transaction committed twice; agreement not checked (no hashes.csv)")
		}
		if sf.LostAcked > 0 {
			parts = append(parts, fmt.Sprintf("%d accepted transaction(s) not committed, explained: %s", sf.LostAcked, sf.Explained))
		}
		if sf.CommittedTwice > 0 {
			parts = append(parts, fmt.Sprintf("%d transaction(s) committed more than once, explained: %s", sf.CommittedTwice, sf.TwiceExplained))
		}
	}
	parts = append(parts, evidenceText(sf.Evidence))
	return strings.Join(parts, "; ") + ".", violation
}

// evidenceText names the evidence committed.
func evidenceText(ev []analysis.EvidenceItem) string {
	if len(ev) == 0 {
		return "no evidence of misbehaviour committed"
	}
	var items []string
	for i, e := range ev {
		if i == 5 {
			items = append(items, fmt.Sprintf("and %d more", len(ev)-i))
			break
		}
		who := short(e.Validator)
		if e.Node != "" {
			who = e.Node + " (" + who + ")"
		}
		items = append(items, fmt.Sprintf("%s against %s for height %d in block %d", e.Type, who, e.EvidenceHeight, e.Height))
	}
	return fmt.Sprintf("%d evidence of misbehaviour committed: %s", len(ev), strings.Join(items, ", "))
}

// short cuts a hash to its first 12 digits.
func short(h string) string {
	if len(h) > 12 {
		return h[:12] + "…"
	}
	return h
}
