package plan

import (
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/manifest"
)

// TestMakeStorage: the storage matrix crosses the knobs the
// candidate's release has (v1.0: pruning × compaction × key layout ×
// backend, 16 runs); --long makes each run an hour, measured; a budget
// drops knobs from the last before it shortens the runs; a candidate that
// runs a binary or its own app cannot run it, and --skip storage takes it
// out of the plan and its time.
func TestMakeStorage(t *testing.T) {
	v1 := proven(t, "v1.0")
	sides := qaSides(t, v1, v1)
	in := Input{Sides: sides, Labels: []string{"base", "cand"}, Overhead: 20 * time.Second,
		Skip: []string{Saturation, Long, Rotation, VoteExtensions, Partition, AbsentStake}}
	p, err := Make(in)
	if err != nil {
		t.Fatal(err)
	}
	st := p.PlanStep(Storage)
	var keys []string
	for _, sp := range p.StorageParams {
		keys = append(keys, sp.Key+"="+strings.Join(sp.Values, ","))
	}
	wantKeys := "app.retain_blocks=0,10 storage.compact=false,true storage.experimental_db_key_layout=v1,v2 config.db_backend=pebbledb,goleveldb"
	if st.Skip != "" || len(st.Runs) != 1 || st.Runs[0].Count != 16 || st.EstimateS != 16*80 || strings.Join(keys, " ") != wantKeys ||
		p.StorageDurationS != 60 || !strings.Contains(st.Runs[0].What, "extrapolated") {
		t.Errorf("v1.0 storage: %+v, params %s", st, keys)
	}

	long := in
	long.Long = true
	if p, err := Make(long); err != nil || p.StorageDurationS != 3600 || !strings.Contains(p.PlanStep(Storage).Runs[0].What, "measured over an hour") {
		t.Errorf("--long: %v, %v s, %+v", err, p.StorageDurationS, p.PlanStep(Storage).Runs)
	}

	small := in
	small.Budget = 6 * time.Minute // 4 cells of 80 s: pruning × compaction
	if p, err := Make(small); err != nil || p.PlanStep(Storage).Runs[0].Count != 4 || len(p.StorageParams) != 2 ||
		strings.Join(p.GaveUp, "|") != "storage matrix: pruning × compaction instead of pruning × compaction × key layout × backend" {
		t.Errorf("budget 6m: %v, gave up %q, %+v", err, p.GaveUp, p.PlanStep(Storage))
	}
	small.Long, small.Budget = true, time.Hour // pruning alone (2 × 1 h) still too long: the runs halve, twice
	if p, err := Make(small); err != nil || len(p.StorageParams) != 1 || p.StorageDurationS >= 3600 ||
		!strings.Contains(strings.Join(p.GaveUp, "|"), "storage matrix runs of 15m0s instead of 1h0m0s (growth per hour extrapolated)") {
		t.Errorf("--long, budget 1h: %v, gave up %q, %v s", err, p.GaveUp, p.StorageDurationS)
	}

	skip := in
	skip.Skip = append(skip.Skip, Storage)
	if p, err := Make(skip); err != nil || p.PlanStep(Storage).Skip != "skipped: --skip storage" || p.EstimateS != 0 || len(p.StorageParams) != 0 {
		t.Errorf("--skip storage: %v, %+v", err, p.PlanStep(Storage))
	}

	bin := qaSides(t, v1, v1)
	bin[1].CometBFTVersion, bin[1].CometBFTBinary = "", "/usr/local/bin/cometbft"
	if p, err := Make(Input{Sides: bin, Labels: []string{"base", "cand"}}); err != nil || !strings.Contains(p.PlanStep(Storage).Skip, "runs a cometbft binary") {
		t.Errorf("binary: %v, %+v", err, p.PlanStep(Storage))
	}
	own := qaSides(t, v1, v1)
	own[1].App = manifest.AppExternal
	if p, err := Make(Input{Sides: own, Labels: []string{"base", "cand"}}); err != nil || !strings.Contains(p.PlanStep(Storage).Skip, "its own ABCI app") ||
		len(p.StorageParams) != 0 {
		t.Errorf("own app: %v, %+v", err, p.PlanStep(Storage))
	}
}
