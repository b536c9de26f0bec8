package web

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/history"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// The recorded fixture runs the tests copy.
const (
	smallRun = "../../testdata/runs/small"
	qaRun    = "../../testdata/runs/qa"
)

// fixtureSpec varies a copy of a fixture run.
type fixtureSpec struct {
	name, from, release, status string
	day                         int
	figures                     map[string]float64 // nil: no summary.json
}

// step are the committed rates of the fixture's series: a level of 200
// tx/s, then of 180 from the seventh run on (a change point at 6).
var step = []float64{200, 201, 199, 200.5, 199.5, 200, 180, 181, 179, 180.5, 179.5, 180}

// fixtureSpecs are the fixture's runs: twelve of one series (copies of
// testdata/runs/small, a new release every four, the committed rate
// stepping down at the seventh), a failed one without figures, and the
// QA fixture run (another series).
func fixtureSpecs() []fixtureSpec {
	var specs []fixtureSpec
	for i, v := range step {
		rel := []string{"v0.38.26", "v0.38.27", "v0.40.0"}[i/4]
		specs = append(specs, fixtureSpec{name: "r" + string(rune('a'+i)), from: smallRun, release: rel, status: results.StatusComplete, day: i,
			figures: map[string]float64{"committed_tps": v, "block_latency_p50_ms": 900 + float64(i%3), "throughput_ratio": 0.99}})
	}
	specs = append(specs,
		fixtureSpec{name: "failed", from: smallRun, release: "v0.40.0", status: results.StatusFailed, day: 12},
		fixtureSpec{name: "qa", from: qaRun, release: "v0.40.0", status: results.StatusComplete, day: 13,
			figures: map[string]float64{"committed_tps": 19.5, "block_latency_p50_ms": 1714.3}})
	return specs
}

// fixture makes the fixture's run directories under root/runs (the first
// with a report.html and a plot), a QA directory root/qa/q1 with its
// qa.html (indexed by hand), and an
// index of them. It returns the index and root.
func fixture(t testing.TB) (*history.Index, string) {
	t.Helper()
	root := t.TempDir()
	for _, s := range fixtureSpecs() {
		writeFixtureRun(t, filepath.Join(root, "runs", s.name), s)
	}
	first := filepath.Join(root, "runs", "ra")
	resultstest.WriteFile(t, filepath.Join(first, results.ReportHTML), []byte("<!DOCTYPE html>\n<html><head><title>report</title></head><body><h1>Run ra</h1><img src=\"plots/latency.png\" alt=\"latency\"></body></html>\n"))
	resultstest.WriteFile(t, filepath.Join(first, "plots", "latency.png"), []byte("\x89PNG\r\n\x1a\n"))
	x := openIndex(t)
	ctx := context.Background()
	if _, err := x.Rebuild(ctx, []string{filepath.Join(root, "runs")}); err != nil {
		t.Fatal(err)
	}
	qa := filepath.Join(root, "qa", "q1")
	resultstest.WriteFile(t, filepath.Join(qa, qaReport), []byte("<!DOCTYPE html>\n<html><head><title>QA</title></head><body><h1>QA</h1></body></html>\n"))
	if err := x.Put(ctx, []history.Run{{Dir: qa, Kind: history.KindQA, ID: "q1", Status: results.StatusComplete,
		Created: time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC), Release: "v0.40.0", Label: "v0.40.0"}}); err != nil {
		t.Fatal(err)
	}
	return x, root
}

// writeFixtureRun copies the fixture run s.from to dir, varied by s.
func writeFixtureRun(t testing.TB, dir string, s fixtureSpec) {
	t.Helper()
	entries, err := os.ReadDir(s.from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || e.Name() == results.RunFile {
			continue
		}
		b, err := os.ReadFile(filepath.Join(s.from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		resultstest.WriteFile(t, filepath.Join(dir, e.Name()), b)
	}
	b, err := os.ReadFile(filepath.Join(s.from, results.RunFile))
	if err != nil {
		t.Fatal(err)
	}
	var old map[string]any
	if err := json.Unmarshal(b, &old); err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(b), `"`+old["cometbft_version"].(string)+`"`, `"`+s.release+`"`)
	var rf map[string]any
	if err := json.Unmarshal([]byte(text), &rf); err != nil {
		t.Fatal(err)
	}
	started := time.Date(2026, 11, 1+s.day, 10, 0, 0, 0, time.UTC)
	rf["id"], rf["status"] = s.name, s.status
	rf["started"], rf["ended"] = started.Format(time.RFC3339), started.Add(time.Minute).Format(time.RFC3339)
	if err := results.WriteJSON(filepath.Join(dir, results.RunFile), rf); err != nil {
		t.Fatal(err)
	}
	if s.figures != nil {
		sum := map[string]any{"status": s.status, "metrics": s.figures}
		if err := results.WriteJSON(filepath.Join(dir, results.SummaryFile), sum); err != nil {
			t.Fatal(err)
		}
	}
}
