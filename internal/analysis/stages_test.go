package analysis

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// TestStagesKnownAnswer: a height whose header time is T, precommits at
// T+1000, 1010, 1030 (for the block) and 1005 (nil) ms, and commits heard
// at T+1050 and T+1070 ms: first precommit 1000 ms, quorum (3 of 4) at
// 1030, so 30 ms; first commit 20 ms later; spread 20 ms. A height with
// only 2 of 4 precommits for the block has no quorum (NaN) but its first
// precommit; a height without precommits or commits heard has no row.
func TestStagesKnownAnswer(t *testing.T) {
	T := time.Unix(1000, 0).UnixNano()
	ms := func(v float64) int64 { return T + int64(v*1e6) }
	in := Input{Blocks: []results.Block{{Height: 5, Time: T}, {Height: 6, Time: T, Round: 1}, {Height: 7, Time: T}}}
	for i, p := range []struct {
		flag string
		off  float64
	}{{"commit", 1000}, {"commit", 1010}, {"nil", 1005}, {"commit", 1030}} {
		in.Precommits = append(in.Precommits, results.Precommit{Height: 5, Validator: string(rune('A' + i)), Flag: p.flag, OffsetMs: p.off})
	}
	in.Precommits = append(in.Precommits,
		results.Precommit{Height: 6, Flag: "commit", OffsetMs: 4000}, results.Precommit{Height: 6, Flag: "commit", OffsetMs: 4100},
		results.Precommit{Height: 6, Flag: "absent"}, results.Precommit{Height: 6, Flag: "absent"})
	in.Adoption = []results.Adoption{{Height: 5, Node: "a", At: ms(1070)}, {Height: 5, Node: "b", At: ms(1050)}}
	got := Stages(in)
	if len(got) != 2 {
		t.Fatalf("%d rows, want 2 (height 7 has nothing): %+v", len(got), got)
	}
	if g := got[0]; g.Height != 5 || g.Precommits != 3 || g.FirstPrecommitMs != 1000 || g.QuorumMs != 30 || math.Abs(g.CommitMs-20) > 1e-9 || math.Abs(g.SpreadMs-20) > 1e-9 {
		t.Errorf("height 5: %+v", g)
	}
	if g := got[1]; g.Height != 6 || g.Round != 1 || g.Precommits != 2 || g.FirstPrecommitMs != 4000 || !math.IsNaN(g.QuorumMs) || !math.IsNaN(g.CommitMs) || !math.IsNaN(g.SpreadMs) {
		t.Errorf("height 6: %+v", g)
	}
	b := &builder{s: &Summary{Metrics: map[string]float64{}}}
	stageFigures(got, b)
	for id, want := range map[string]float64{"stage_first_precommit_p50_ms": 2500, "stage_precommit_quorum_p50_ms": 30, "stage_commit_p50_ms": 20} {
		if v, ok := b.s.Metrics[id]; !ok || math.Abs(v-want) > 1e-9 {
			t.Errorf("%s = %v (present %v), want %v", id, v, ok, want)
		}
	}
}

// TestAnalyzeWritesSummarizedStages: the stages behind a summary's stage
// figures are handed out with it (summarize computes them once), and
// AnalyzeInput writes exactly those to stages.csv.
func TestAnalyzeWritesSummarizedStages(t *testing.T) {
	dir := resultstest.CopyRun(t, "../../testdata/runs/small")
	s, in, err := AnalyzeInput(dir)
	if err != nil {
		t.Fatal(err)
	}
	again, st := summarize(in)
	if len(st) == 0 {
		t.Fatal("the fixture has no stages")
	}
	b := &builder{s: &Summary{Metrics: map[string]float64{}}}
	stageFigures(st, b)
	for _, f := range stageFields {
		if v, ok := b.s.Metrics[f.id]; !ok || v != s.Metrics[f.id] || v != again.Metrics[f.id] {
			t.Errorf("%s: %v from the stages handed out, %v in summary.json, %v summarised again", f.id, v, s.Metrics[f.id], again.Metrics[f.id])
		}
	}
	want := t.TempDir()
	if err := results.WriteStages(want, st); err != nil {
		t.Fatal(err)
	}
	wb, err := os.ReadFile(filepath.Join(want, results.StagesFile))
	if err != nil {
		t.Fatal(err)
	}
	gb, err := os.ReadFile(filepath.Join(dir, results.StagesFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(gb, wb) {
		t.Errorf("stages.csv is not the stages summarised:\n%s\nwant\n%s", gb, wb)
	}
}
