package history

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/results"
)

// TestCommitOf: a run's commit is its one source tree's, marked dirty
// with its diff's hash; none for releases, patched releases and runs of
// several commits.
func TestCommitOf(t *testing.T) {
	at := day(3)
	tree := func(commit string, dirty bool, diff string) results.Source {
		return results.Source{Path: "/src/cometbft", Commit: commit, Dirty: dirty, DiffHash: diff, CommitTime: at}
	}
	for _, tc := range []struct {
		name    string
		sources []results.Source
		want    string
		wantAt  time.Time
	}{
		{"a release", nil, "", time.Time{}},
		{"a patched release", []results.Source{{Release: "v0.40.0", Patches: []results.SourcePatch{{Path: "fix.diff"}}}}, "", time.Time{}},
		{"a clean tree", []results.Source{tree("abc", false, "")}, "abc", at},
		{"a dirty tree", []results.Source{tree("abc", true, "0123456789abcdef")}, "abc+dirty.0123456789ab", at},
		{"one commit on two sides of a node set", []results.Source{tree("abc", false, ""), tree("abc", false, "")}, "abc", at},
		{"two commits", []results.Source{tree("abc", false, ""), tree("def", false, "")}, "", time.Time{}},
		{"a tree beside a patched release", []results.Source{tree("abc", false, ""), {Release: "v0.40.0"}}, "abc", at},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, when := commitOf(tc.sources)
			if c != tc.want || !when.Equal(tc.wantAt) {
				t.Errorf("commitOf = %q at %v, want %q at %v", c, when, tc.want, tc.wantAt)
			}
		})
	}
}

// TestTrendByCommit: three runs of a branch made out of their commits'
// order, and a release run, read from their directories through the
// index (the commit survives it), come out by commit time; a run of no
// commit takes its creation time's place; by time they keep creation
// order.
func TestTrendByCommit(t *testing.T) {
	root := t.TempDir()
	src := func(commit string, at time.Time) []results.Source {
		return []results.Source{{Nodes: []string{"validator01"}, Path: "/src/cometbft", Line: "v0.40", Version: "v0.40.0",
			Commit: commit, CommitTime: at, Key: commit}}
	}
	runs := []struct {
		dir     string
		started time.Time
		sources []results.Source
		tps     float64
	}{
		{"c3", day(1), src("ccc", day(0).Add(3*time.Hour)), 3}, // the newest commit, run first
		{"c1", day(2), src("aaa", day(0).Add(1*time.Hour)), 1},
		{"rel", day(0).Add(2 * time.Hour), nil, 0}, // a release run made between commits 1 and 2
		{"c2", day(3), src("bbb", day(0).Add(2*time.Hour+time.Minute)), 2},
	}
	x := openIndex(t)
	for _, r := range runs {
		dir := filepath.Join(root, r.dir)
		writeRun(t, dir, spec{started: r.started, sources: r.sources, figures: map[string]float64{"committed_tps": r.tps}})
		if _, err := x.Add(t.Context(), dir); err != nil {
			t.Fatal(err)
		}
	}
	got, err := x.Runs(t.Context(), Filter{})
	if err != nil {
		t.Fatal(err)
	}
	order := func(o Order) (dirs []string, commits []string) {
		tr := MakeTrend(got, "committed_tps", o, nil)
		for _, p := range tr.Points {
			dirs, commits = append(dirs, filepath.Base(p.Dir)), append(commits, p.Commit)
		}
		return dirs, commits
	}
	dirs, commits := order(ByCommit)
	if want := []string{"c1", "rel", "c2", "c3"}; !slices.Equal(dirs, want) {
		t.Errorf("by commit: %v, want %v", dirs, want)
	}
	if want := []string{"aaa", "", "bbb", "ccc"}; !slices.Equal(commits, want) {
		t.Errorf("by commit, the points' commits: %v, want %v (read back from the index)", commits, want)
	}
	if dirs, _ := order(ByTime); !slices.Equal(dirs, []string{"rel", "c3", "c1", "c2"}) {
		t.Errorf("by time: %v", dirs)
	}
	for _, r := range got {
		switch filepath.Base(r.Dir) {
		case "c1":
			if !r.CommitTime.Equal(day(0).Add(time.Hour)) || len(r.Sources) != 1 || r.Sources[0].Path != "/src/cometbft" ||
				r.Sources[0].Commit != "aaa" || r.Sources[0].Line != "v0.40" {
				t.Errorf("c1 from the index: commit time %v, sources %+v", r.CommitTime, r.Sources)
			}
		case "rel":
			if r.Sources != nil || r.Commit != "" {
				t.Errorf("the release run from the index: commit %q, sources %+v", r.Commit, r.Sources)
			}
		}
	}
}
