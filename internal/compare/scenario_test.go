package compare

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// A scenario run (events.csv: a kill of validator03) compares against a
// run made before events were recorded: the event figures flow through as
// rows with the old run's side empty, and every other figure compares as
// before.
func TestCompareScenarioWithOldRun(t *testing.T) {
	dir := t.TempDir()
	old, scen := filepath.Join(dir, "old"), filepath.Join(dir, "scenario")
	spec := resultstest.Spec{Nodes: 4, Connections: 1, Rate: 10, Duration: 30 * time.Second}
	if _, err := resultstest.WriteRun(old, spec); err != nil {
		t.Fatal(err)
	}
	s := func(f float64) int64 { return int64(f * float64(time.Second)) }
	spec.Down = map[string][][2]time.Duration{"validator03": {{10 * time.Second, 15 * time.Second}}}
	spec.Events = []results.Event{
		{At: s(10), Node: "validator03", Kind: results.EventPerturbBegin, Detail: "kill 1/1, down 5s"},
		{At: s(10), Node: "validator03", Kind: results.EventKill},
		{At: s(10.01), Node: "validator03", Kind: results.EventExit, Detail: "signal 9"},
		{At: s(15), Node: "validator03", Kind: results.EventStart, Detail: "4242"},
		{At: s(15), Node: "validator03", Kind: results.EventPerturbEnd, Detail: "kill 1/1"},
	}
	if _, err := resultstest.WriteRun(scen, spec); err != nil {
		t.Fatal(err)
	}
	res, _, err := Runs([]SideDirs{{Dirs: []string{old}}, {Dirs: []string{scen}}}, Options{Seed: 1, Resamples: 200}, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]Row{}
	for _, r := range res.Metrics {
		rows[r.ID] = r
	}
	for _, id := range []string{"perturbations", "node_exits", "liveness_gap_max_s", "catch_up_max_s"} {
		r, ok := rows[id]
		if !ok {
			t.Errorf("no row %s", id)
			continue
		}
		if !r.InDictionary || r.Baseline != nil || len(r.Candidates) != 1 || r.Candidates[0].Value == nil {
			t.Errorf("row %s = %+v, want the scenario's value only", id, r)
		}
	}
	if v := rows["perturbations"].Candidates[0].Value; v == nil || *v != 1 {
		t.Errorf("perturbations = %v, want 1", v)
	}
	if r := rows["tps_mean"]; r.Baseline == nil || r.Candidates[0].Value == nil {
		t.Errorf("tps_mean = %+v, want both sides", r)
	}
}
