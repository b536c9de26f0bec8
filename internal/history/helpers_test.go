package history

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// small is the recorded fixture run the tests vary.
const small = "../../testdata/runs/small"

// spec varies the fixture run: zero fields keep the fixture's.
type spec struct {
	id      string
	status  string
	release string
	label   string
	started time.Time
	rate    float64
	figures map[string]float64 // nil: no summary.json
	cpus    int
	sources []results.Source // run.json's sources (a source tree's runs)
}

// writeRun writes a run directory at dir from the fixture's run.json and
// manifest.toml, varied by s, with a summary.json of s.figures.
func writeRun(t testing.TB, dir string, s spec) {
	t.Helper()
	var rf runFile
	if err := results.ReadJSON(filepath.Join(small, results.RunFile), &rf); err != nil {
		t.Fatal(err)
	}
	if s.id != "" {
		rf.ID = s.id
	}
	if s.status != "" {
		rf.Status = s.status
	}
	if s.release != "" {
		rf.CometBFTVersion = s.release
	}
	rf.Label = s.label
	if !s.started.IsZero() {
		d := rf.Ended.Sub(rf.Started)
		rf.Started, rf.Ended = s.started, s.started.Add(d)
	}
	if s.rate != 0 {
		rf.Load.Rate = s.rate
	}
	if s.cpus != 0 {
		rf.Host.CPUs = s.cpus
	}
	rf.Sources = s.sources
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteJSON(filepath.Join(dir, results.RunFile), rf); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(small, results.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	resultstest.WriteFile(t, filepath.Join(dir, results.ManifestFile), b)
	if s.figures != nil {
		sum := summaryFile{Status: rf.Status, Metrics: s.figures}
		if err := results.WriteJSON(filepath.Join(dir, results.SummaryFile), sum); err != nil {
			t.Fatal(err)
		}
	}
}

// day is the i-th day of the tests' calendar, at 10:00 UTC.
func day(i int) time.Time { return time.Date(2026, 11, 1+i, 10, 0, 0, 0, time.UTC) }

// openIndex opens a new index in a temporary directory, closed with the
// test.
func openIndex(t testing.TB) *Index {
	t.Helper()
	x, err := Open(context.Background(), filepath.Join(t.TempDir(), "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

// synthetic is a Run of the fixture's series made in memory.
func synthetic(dir string, created time.Time, figures map[string]float64) Run {
	r := Run{Dir: dir, Kind: KindRun, Status: results.StatusComplete, Created: created, Release: "v0.38.26", Label: "v0.38.26",
		Manifest: "abc123", App: "kvstore", Validators: 4, Load: Load{Connections: 1, Rate: 200, Size: 1024, DurationS: 60},
		Host: Host{Name: "qa-01", Cores: 8, CPU: "AMD EPYC 7763", MemBytes: 16 << 30, Arch: "amd64"}, Figures: map[string]Figure{}}
	for id, v := range figures {
		r.Figures[id] = Figure{Value: v}
	}
	return r
}

func writeBytes(path string, b []byte) error { return os.WriteFile(path, b, 0o644) }
