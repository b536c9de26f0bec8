package rpc

import (
	"fmt"
	"os"
	"testing"
)

// TestParseBlockEvidence reads a block that CometBFT v0.38.26's own JSON
// encoder wrote (types.MakeBlock with NewMockDuplicateVoteEvidence at
// height 10 and a LightClientAttackEvidence with common height 7 and two
// byzantine validators): both pieces come out with their heights and the
// validators they accuse.
func TestParseBlockEvidence(t *testing.T) {
	b, err := os.ReadFile("testdata/block_evidence_v0.38.26.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseBlock(b)
	if err != nil {
		t.Fatal(err)
	}
	want := []Evidence{
		{Type: "DuplicateVoteEvidence", Height: 10, Validators: []string{"63E5D0BDBDB6ED69EE01671BAF7504532EBCEE69"}},
		{Type: "LightClientAttackEvidence", Height: 7, Validators: []string{"9694B935762AE0F7724031D63FD75E5065BB270E", "61E8CEE51E762030D59E1C9FA404A2C56BE21849"}},
	}
	if fmt.Sprint(got.Evidence) != fmt.Sprint(want) {
		t.Errorf("evidence %+v\nwant     %+v", got.Evidence, want)
	}
	if got.Height != 12 || got.TxCount != 1 {
		t.Errorf("height %d, %d txs", got.Height, got.TxCount)
	}
	none, err := os.ReadFile("testdata/block_v0.40.0.json")
	if err != nil {
		t.Fatal(err)
	}
	if blk, err := ParseBlock(none); err != nil || blk.Evidence != nil {
		t.Errorf("block without evidence: %+v, %v", blk.Evidence, err)
	}
}
