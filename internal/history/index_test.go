package history

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/results"
)

// TestIndexQueries puts runs and selects them with every filter.
func TestIndexQueries(t *testing.T) {
	ctx := context.Background()
	x := openIndex(t)
	a := synthetic("/r/a", day(0), map[string]float64{"committed_tps": 200, "block_latency_p50_ms": 900})
	b := synthetic("/r/b", day(1), map[string]float64{"committed_tps": 190})
	b.Release, b.Label, b.Status = "v0.40.0 (reports itself as 0.39.0)", "nightly", results.StatusPartial
	c := synthetic("/r/c", day(2), nil)
	c.Release, c.Label, c.Host.Name, c.Host.Cores = "v0.38.9", "v0.38.9", "ci-7", 4
	sw := synthetic("/s/x", day(3), map[string]float64{"saturation_diagonal_tps": 800})
	sw.Kind = KindSweep
	cell := synthetic("/s/x/cells/c1-r200-0", day(3).Add(time.Minute), map[string]float64{"committed_tps": 199})
	cell.Parent = sw.Dir
	sat := synthetic("/q/y", day(4), nil)
	sat.Kind, sat.Figures = KindSaturate, map[string]Figure{"saturation_tps": {Value: 1000, Interval: &Interval{Lo: 980, Hi: 1020}}}
	if err := x.Put(ctx, []Run{a, b, c, sw, cell, sat}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		f    Filter
		want string
	}{
		{"all, newest first", Filter{}, "/q/y /s/x/cells/c1-r200-0 /s/x /r/c /r/b /r/a"},
		{"limit", Filter{Limit: 2}, "/q/y /s/x/cells/c1-r200-0"},
		{"kind", Filter{Kinds: []string{KindSweep, KindSaturate}}, "/q/y /s/x"},
		{"status", Filter{Status: []string{"partial"}}, "/r/b"},
		{"release line", Filter{Release: "v0.38"}, "/q/y /s/x/cells/c1-r200-0 /s/x /r/c /r/a"},
		{"release", Filter{Release: "v0.38.9"}, "/r/c"},
		{"release, not a prefix", Filter{Release: "v0.3"}, ""},
		{"release, as the binary reports itself", Filter{Release: "v0.40.0"}, "/r/b"},
		{"release line, as the binary reports itself", Filter{Release: "v0.40"}, "/r/b"},
		{"label", Filter{Label: "nightly"}, "/r/b"},
		{"manifest prefix", Filter{Manifest: "abc"}, "/q/y /s/x/cells/c1-r200-0 /s/x /r/c /r/b /r/a"},
		{"manifest, like characters are literal", Filter{Manifest: "a%"}, ""},
		{"host name", Filter{Host: "ci-"}, "/r/c"},
		{"host fingerprint", Filter{Host: "4 cores"}, "/r/c"},
		{"since, until", Filter{Since: day(1), Until: day(3)}, "/r/c /r/b"},
		{"parent", Filter{Parent: "/s/x"}, "/s/x/cells/c1-r200-0"},
		{"top level", Filter{TopLevel: true, Kinds: []string{KindRun}}, "/r/c /r/b /r/a"},
		{"series", Filter{Series: c.Series().ID()[:6]}, "/r/c"},
		{"dir", Filter{Dir: "/r/b"}, "/r/b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runs, err := x.Runs(ctx, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			var dirs []string
			for _, r := range runs {
				dirs = append(dirs, r.Dir)
			}
			if got := strings.Join(dirs, " "); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	got, ok, err := x.Get(ctx, "/r/a")
	if err != nil || !ok || !equalRun(got, a) || len(got.Figures) != 2 || got.Figures["block_latency_p50_ms"].Value != 900 {
		t.Errorf("Get: %+v %v %v", got, ok, err)
	}
	if _, ok, err := x.Get(ctx, ""); ok || err != nil {
		t.Errorf("Get of no directory: %v, %v", ok, err)
	}
	if runs, _ := x.Runs(ctx, Filter{Kinds: []string{KindSaturate}}); runs[0].Figures["saturation_tps"].Interval == nil || runs[0].Figures["saturation_tps"].Interval.Hi != 1020 {
		t.Errorf("interval lost: %+v", runs[0].Figures)
	}
	if runs, _ := x.Runs(ctx, Filter{Dir: "/r/a", Figures: []string{"committed_tps"}}); len(runs[0].Figures) != 1 {
		t.Errorf("figures %v, want committed_tps alone", runs[0].Figures)
	}
	if runs, _ := x.Runs(ctx, Filter{Dir: "/r/a", Figures: []string{}}); runs[0].Figures != nil {
		t.Errorf("figures %v, want none", runs[0].Figures)
	}
	long := []string{"committed_tps"}
	for i := range maxFigureList {
		long = append(long, fmt.Sprintf("other_%d", i))
	}
	if runs, _ := x.Runs(ctx, Filter{Dir: "/r/a", Figures: long}); len(runs[0].Figures) != 1 || runs[0].Figures["committed_tps"].Value != 200 {
		t.Errorf("figures %v of a long list, want committed_tps alone", runs[0].Figures)
	}
	// A series put again replaces its runs: a cell gone is gone.
	sw.Status = "partial"
	if err := x.Put(ctx, []Run{sw}); err != nil {
		t.Fatal(err)
	}
	if runs, _ := x.Runs(ctx, Filter{Since: day(3), Until: day(4)}); len(runs) != 1 || runs[0].Status != "partial" {
		t.Errorf("after the sweep again: %+v", runs)
	}
	if err := x.Check(ctx); err != nil {
		t.Error(err)
	}
}

// TestRebuild recreates the index from run directories: what was there and
// is gone is gone, what cannot be read is skipped.
func TestRebuild(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	for i := range 5 {
		writeRun(t, filepath.Join(root, fmt.Sprintf("r%d", i)), spec{id: fmt.Sprint(i), started: day(i), figures: map[string]float64{"committed_tps": 20 + float64(i)}})
	}
	writeRun(t, filepath.Join(root, "broken"), spec{})
	if err := writeBytes(filepath.Join(root, "broken", results.RunFile), []byte("{")); err != nil {
		t.Fatal(err)
	}
	x := openIndex(t)
	if err := x.Put(ctx, []Run{synthetic("/elsewhere", day(9), nil)}); err != nil {
		t.Fatal(err)
	}
	f, err := x.Rebuild(ctx, []string{root})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Runs) != 5 || len(f.Skipped) != 1 || !strings.Contains(f.Skipped[0].Reason, "half-written") {
		t.Errorf("rebuild found %d runs, skipped %+v", len(f.Runs), f.Skipped)
	}
	runs, err := x.Runs(ctx, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 5 || runs[0].ID != "4" || runs[0].Figures["committed_tps"].Value != 24 {
		t.Errorf("index after rebuild: %d runs, newest %+v", len(runs), runs[0])
	}
	// Added again, a run replaces itself.
	if _, err := x.Add(ctx, filepath.Join(root, "r4")); err != nil {
		t.Fatal(err)
	}
	if runs, _ := x.Runs(ctx, Filter{}); len(runs) != 5 {
		t.Errorf("%d runs after adding one again", len(runs))
	}
	if _, err := x.Add(ctx, filepath.Join(root, "broken")); err == nil {
		t.Error("a half-written run was added")
	}
}

// TestMigrate: an index of an older schema is rebuilt from the directories
// it held; one of a newer schema is refused, never misread.
func TestMigrate(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	writeRun(t, filepath.Join(root, "r0"), spec{figures: map[string]float64{"committed_tps": 20}})
	path := filepath.Join(t.TempDir(), "history.db")
	// Schema 0: before versions, one table of directories and a value.
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`CREATE TABLE runs (dir TEXT PRIMARY KEY, tps REAL)`,
		`INSERT INTO runs VALUES ('` + filepath.Join(root, "r0") + `', 1), ('` + filepath.Join(root, "gone") + `', 2)`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	x, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if m := x.Migrated; m == nil || m.From != 0 || len(m.Found.Runs) != 1 || len(m.Found.Skipped) != 1 {
		t.Fatalf("migration %+v", x.Migrated)
	}
	runs, err := x.Runs(ctx, Filter{})
	if err != nil || len(runs) != 1 || runs[0].Figures["committed_tps"].Value != 20 {
		t.Errorf("after migration: %+v, %v", runs, err)
	}
	x.Close()
	x, err = Open(ctx, path)
	if err != nil || x.Migrated != nil {
		t.Fatalf("opened again: %v, migrated %+v", err, x.Migrated)
	}
	if _, err := x.db.Exec(`UPDATE meta SET value = '99' WHERE key = 'schema_version'`); err != nil {
		t.Fatal(err)
	}
	x.Close()
	if _, err := Open(ctx, path); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("schema version 99, newer than this cometlab's %d", SchemaVersion)) {
		t.Errorf("a newer index: %v", err)
	}
}

// TestHammer: writers on separate handles (as separate cometlabs are) and
// goroutines add runs while a reader reads; nothing is lost, every read
// sees whole runs, and the file passes SQLite's integrity check.
func TestHammer(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "history.db")
	const handles, writers, perWriter = 2, 3, 40
	var xs []*Index
	for range handles {
		x, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer x.Close()
		xs = append(xs, x)
	}
	reader, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	var wg sync.WaitGroup
	errs := make(chan error, handles*writers+1)
	for h, x := range xs {
		for w := range writers {
			wg.Go(func() {
				for i := range perWriter {
					r := synthetic(fmt.Sprintf("/h%d/w%d/r%03d", h, w, i), day(0).Add(time.Duration(i)*time.Second),
						map[string]float64{"committed_tps": float64(i), "block_latency_p50_ms": 900})
					if err := x.Put(ctx, []Run{r}); err != nil {
						errs <- err
						return
					}
				}
			})
		}
	}
	done := make(chan struct{})
	var reads int
	go func() {
		defer close(done)
		last := 0
		for {
			runs, err := reader.Runs(ctx, Filter{})
			if err != nil {
				errs <- err
				return
			}
			for _, r := range runs {
				if len(r.Figures) != 2 {
					errs <- fmt.Errorf("%s read with %d figures", r.Dir, len(r.Figures))
					return
				}
			}
			if len(runs) < last {
				errs <- fmt.Errorf("read %d runs after %d", len(runs), last)
				return
			}
			last = len(runs)
			reads++
			if last == handles*writers*perWriter {
				return
			}
		}
	}()
	wg.Wait()
	<-done
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	runs, err := reader.Runs(ctx, Filter{})
	if err != nil || len(runs) != handles*writers*perWriter {
		t.Fatalf("%d runs, want %d (%v)", len(runs), handles*writers*perWriter, err)
	}
	if err := reader.Check(ctx); err != nil {
		t.Error(err)
	}
	t.Logf("%d reads during the writes", reads)
}

// TestGeneration: every write moves the generation on, from 0; a read
// does not.
func TestGeneration(t *testing.T) {
	ctx := context.Background()
	x := openIndex(t)
	gen := func() int64 {
		t.Helper()
		g, err := x.Generation(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	if g := gen(); g != 0 {
		t.Fatalf("new index: generation %d", g)
	}
	for want := int64(1); want <= 3; want++ {
		if err := x.Put(ctx, []Run{synthetic("/r", day(int(want)), map[string]float64{"committed_tps": 200})}); err != nil {
			t.Fatal(err)
		}
		if _, err := x.Runs(ctx, Filter{}); err != nil {
			t.Fatal(err)
		}
		if g := gen(); g != want {
			t.Errorf("after %d writes: generation %d", want, g)
		}
	}
}
