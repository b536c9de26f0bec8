package report

import (
	"testing"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
)

func TestSafetyLine(t *testing.T) {
	healthy := &analysis.Safety{Checked: true, Heights: 120, Nodes: []string{"v1", "v2", "v3", "v4"}}
	forked := &analysis.Safety{Checked: true, Heights: 120, Nodes: []string{"v1", "v2", "v3", "v4"}, DisagreeingHeights: 3,
		Disagreements: []analysis.Disagreement{{Height: 41, Hash: "app", Majority: "0000000000000029", Agreed: []string{"v1", "v2", "v3"},
			Differing: []analysis.NodeHash{{Node: "v4", Hash: "FFFF"}}}}}
	lost := &analysis.Safety{Checked: true, Heights: 10, Nodes: []string{"v1", "v2"}, LostAcked: 7}
	explained := &analysis.Safety{Checked: true, Heights: 10, Nodes: []string{"v1", "v2"}, LostAcked: 7, Explained: "the run ended partial"}
	evidence := &analysis.Safety{Checked: true, Heights: 10, Nodes: []string{"v1", "v2"},
		Evidence: []analysis.EvidenceItem{{Evidence: results.Evidence{Height: 9, Type: "DuplicateVoteEvidence", EvidenceHeight: 8, Validator: "63E5D0BDBDB6ED69EE01671BAF7504532EBCEE69"}, Node: "v2"}}}
	tests := []struct {
		name string
		s    *analysis.Safety
		want string
		bad  bool
	}{
		{"none", nil, "", false},
		{"healthy", healthy, "the nodes agreed at every height (120 heights, 4 nodes); no evidence of misbehaviour committed.", false},
		{"disagreement", forked, "the nodes disagreed at 3 height(s), first at height 41: v1, v2, v3 committed app hash 000000000000…, v4 (FFFF) a different one; no evidence of misbehaviour committed.", true},
		{"twice", &analysis.Safety{Checked: true, CommittedTwice: 2}, "2 transaction(s) committed more than once (duplicate rows of txs.csv); no evidence of misbehaviour committed.", true},
		{"lost", lost, "7 accepted transaction(s) never committed, and nothing in the run explains it; no evidence of misbehaviour committed.", true},
		{"lost, explained", explained, "the nodes agreed at every height (10 heights, 2 nodes); 7 accepted transaction(s) not committed, explained: the run ended partial; no evidence of misbehaviour committed.", false},
		{"evidence", evidence, "the nodes agreed at every height (10 heights, 2 nodes); 1 evidence of misbehaviour committed: DuplicateVoteEvidence against v2 (63E5D0BDBDB6…) for height 8 in block 9.", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, bad := SafetyLine(analysis.Summary{Safety: tc.s})
			if got != tc.want || bad != tc.bad {
				t.Errorf("SafetyLine = %q, %v\nwant          %q, %v", got, bad, tc.want, tc.bad)
			}
		})
	}
}
