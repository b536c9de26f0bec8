package results

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

func TestStagesRoundTrip(t *testing.T) {
	dir := t.TempDir()
	if got, err := ReadStages(dir); got != nil || err != nil {
		t.Fatalf("no stages.csv: got %v, %v", got, err)
	}
	rows := []Stage{
		{Height: 5, Round: 0, Precommits: 4, FirstPrecommitMs: 1010.5, QuorumMs: 3.25, CommitMs: 20, SpreadMs: 7},
		{Height: 6, Round: 1, Precommits: 3, FirstPrecommitMs: 4000, QuorumMs: math.NaN(), CommitMs: math.NaN(), SpreadMs: 0},
	}
	if err := WriteStages(dir, rows); err != nil {
		t.Fatal(err)
	}
	got, err := ReadStages(dir)
	if err != nil || len(got) != 2 {
		t.Fatalf("got %+v, %v", got, err)
	}
	if g := got[0]; g != (Stage{Height: 5, Round: 0, Precommits: 4, FirstPrecommitMs: 1010.5, QuorumMs: 3.2, CommitMs: 20, SpreadMs: 7}) {
		t.Errorf("row 0: %+v (one decimal kept: 3.25 → 3.2)", g)
	}
	if g := got[1]; g.Height != 6 || g.Round != 1 || g.Precommits != 3 || g.FirstPrecommitMs != 4000 || !math.IsNaN(g.QuorumMs) || !math.IsNaN(g.CommitMs) || g.SpreadMs != 0 {
		t.Errorf("row 1: %+v", g)
	}
}

// FuzzReadStages: what parses writes back and reads again the same, to
// the one decimal written (NaN as NaN).
func FuzzReadStages(f *testing.F) {
	f.Add([]byte(StagesHeader + "\n5,0,4,1010.5,3.2,20.0,7.0\n6,1,3,4000.0,,,0.0\n"))
	f.Add([]byte(StagesHeader + "\n5,0"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, StagesFile), data, 0o644); err != nil {
			t.Fatal(err)
		}
		rows, err := ReadStages(dir)
		if err != nil {
			return
		}
		again := t.TempDir()
		if err := WriteStages(again, rows); err != nil {
			t.Fatal(err)
		}
		got, err := ReadStages(again)
		if err != nil || len(got) != len(rows) {
			t.Fatalf("re-read %d rows (%v), wrote %d", len(got), err, len(rows))
		}
		for i := range rows {
			a, b := rows[i], got[i]
			if a.Height != b.Height || a.Round != b.Round || a.Precommits != b.Precommits {
				t.Fatalf("row %d: re-read %+v, wrote %+v", i, b, a)
			}
			for k, pair := range [][2]float64{{a.FirstPrecommitMs, b.FirstPrecommitMs}, {a.QuorumMs, b.QuorumMs}, {a.CommitMs, b.CommitMs}, {a.SpreadMs, b.SpreadMs}} {
				x, y := pair[0], pair[1]
				if math.IsNaN(x) != math.IsNaN(y) || !math.IsNaN(x) && !math.IsInf(x, 0) && math.Abs(x-y) > 0.05+1e-9*math.Abs(x) {
					t.Fatalf("row %d stage %d: re-read %v, wrote %v", i, k, y, x)
				}
			}
		}
	})
}
