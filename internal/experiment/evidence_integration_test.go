package experiment_test

import (
	"slices"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/experiment/experimenttest"
	"github.com/cometlab/cometlab/internal/results"
)

// TestInjectedEvidence runs the default testnet (4 validators, v0.40.0)
// with evidence = 2, 10 s under 100 tx/s: two duplicate votes, signed
// with validator01's and validator02's keys, are sent to the target;
// evidence.csv shows both committed, each naming its validator and the
// votes' height; the summary matches every injected piece with its block,
// and the nodes still agreed at every height.
func TestInjectedEvidence(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real testnet")
	}
	experimenttest.Proves(t)
	dir, res := runSet(t, 10*time.Second, "evidence=2")
	s := res.Summary
	if res.Run.Status != results.StatusComplete || res.Run.Evidence != 2 {
		t.Errorf("status %s, run.json evidence %d; want complete, 2 (errors %q)", res.Run.Status, res.Run.Evidence, res.Run.Errors)
	}
	rows, err := results.ReadEvidence(dir)
	if err != nil {
		t.Fatal(err)
	}
	names, err := results.ValidatorNames(dir)
	if err != nil {
		t.Fatal(err)
	}
	var accused []string
	for _, e := range rows {
		t.Logf("evidence.csv: block %d %s against %s (%s) at height %d", e.Height, e.Type, names[e.Validator], e.Validator, e.EvidenceHeight)
		if e.Type == "DuplicateVoteEvidence" {
			accused = append(accused, names[e.Validator])
		}
	}
	slices.Sort(accused)
	if !slices.Equal(accused, []string{"validator01", "validator02"}) {
		t.Errorf("evidence committed against %v, want validator01 and validator02", accused)
	}
	if s.Metrics["evidence_injected"] != 2 || s.Metrics["evidence_injected_committed"] != 2 || s.Metrics["evidence_committed"] != 2 {
		t.Errorf("injected %v, committed of them %v, evidence committed %v: want 2, 2, 2", s.Metrics["evidence_injected"],
			s.Metrics["evidence_injected_committed"], s.Metrics["evidence_committed"])
	}
	for _, x := range s.Injected {
		if x.Committed == 0 || x.Via != "validator01" {
			t.Errorf("injected %+v: want committed, sent to validator01", x)
		}
	}
	if s.Metrics["safety_violations"] != 0 {
		t.Errorf("safety violations %v, want 0", s.Metrics["safety_violations"])
	}
}
