package compare

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

func TestNodeVersions(t *testing.T) {
	node := func(v string) results.Node { return results.Node{Version: v} }
	for _, c := range []struct {
		run  results.Run
		want string
	}{
		{results.Run{CometBFTVersion: "v0.40.0"}, "v0.40.0"},
		{results.Run{Nodes: []results.Node{node("v0.40.0"), node("v0.40.0")}}, "v0.40.0"},
		{results.Run{Nodes: []results.Node{node("v0.40.0"), node("v0.38.26"), node("v0.38.26")}}, "v0.38.26 ×2, v0.40.0 ×1"},
	} {
		if got := NodeVersions(c.run); got != c.want {
			t.Errorf("NodeVersions = %q, want %q", got, c.want)
		}
	}
}

func TestFlattenTOML(t *testing.T) {
	got, err := FlattenTOML("m", []byte("a = 1\n[b]\nc = \"x\"\nd = [1, 2]\n[[e]]\nf = true\n[g]\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"m.a": "1", "m.b.c": `"x"`, "m.b.d": "[1, 2]", "m.e.0.f": "true", "m.g": "{}"}
	if len(got) != len(want) {
		t.Errorf("got %v", got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if _, err := FlattenTOML("m", []byte("a = ")); err == nil {
		t.Error("bad TOML accepted")
	}
	g, err := FlattenJSON("", []byte(`{"consensus_params":{"block":{"max_bytes":"22020096"},"validator":{"pub_key_types":["ed25519"]}}}`))
	if err != nil || g["consensus_params.block.max_bytes"] != `"22020096"` || g["consensus_params.validator.pub_key_types"] != `["ed25519"]` {
		t.Errorf("FlattenJSON = %v, %v", g, err)
	}
}

func TestSettingDiffs(t *testing.T) {
	run := func(s map[string]string) Run { return Run{Settings: s} }
	sides := []Side{
		{Label: "a", Runs: []Run{run(map[string]string{SettingVersions: "v1", "config.x": "1", "config.same": "s"}),
			run(map[string]string{SettingVersions: "v1", "config.x": "2", "config.same": "s"})}},
		{Label: "b", Runs: []Run{run(map[string]string{SettingVersions: "v2", "config.same": "s", "manifest.y": "3"})}},
	}
	var keys []string
	for _, d := range settingDiffs(sides) {
		keys = append(keys, d.Key+"="+strings.Join(d.Values, ";"))
	}
	want := []string{SettingVersions + "=v1;v2", "config.x=1 | 2;(none)", "manifest.y=(none);3"}
	if !slices.Equal(keys, want) {
		t.Errorf("diffs %q, want %q", keys, want)
	}
}

func TestDefaultLabels(t *testing.T) {
	run := func(dir, v string) Run {
		return Run{Dir: dir, Run: results.Run{Nodes: []results.Node{{Version: v}}}}
	}
	sides := []Side{
		{Runs: []Run{run("runs/a1", "v0.38.26"), run("runs/a2", "v0.38.26")}},
		{Runs: []Run{run("runs/b", "v0.40.0")}},
		{Label: "mine", Runs: []Run{run("runs/c", "v0.40.1")}},
	}
	DefaultLabels(sides)
	if got := []string{sides[0].Label, sides[1].Label, sides[2].Label}; !slices.Equal(got, []string{"v0.38.26 ×2", "v0.40.0", "mine"}) {
		t.Errorf("labels %q", got)
	}
	same := []Side{{Runs: []Run{run("runs/x/", "v1")}}, {Runs: []Run{run("other/x", "v1")}}}
	DefaultLabels(same)
	if same[0].Label != "x" || same[1].Label != "x #2" {
		t.Errorf("labels %q %q", same[0].Label, same[1].Label)
	}
}

func TestMatchCells(t *testing.T) {
	got := MatchCells([][]results.SweepCell{
		{{ID: "c1", Dir: "a/1"}, {ID: "c2", Dir: "a/2"}},
		{{ID: "c2", Dir: "b/2"}, {ID: "c3", Dir: "b/3"}, {ID: "c2", Dir: "b/2r", Repeat: 1}},
	})
	if len(got) != 3 || got[0].ID != "c1" || got[0].Complete() || !got[1].Complete() || !slices.Equal(got[1].Dirs[1], []string{"b/2", "b/2r"}) || got[2].Dirs[0] != nil {
		t.Errorf("MatchCells = %+v", got)
	}
}

func TestLoadCellRefs(t *testing.T) {
	dir := t.TempDir()
	write := func(doc string) {
		if err := os.WriteFile(filepath.Join(dir, results.SweepFile), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"id":"s","cells":[{"id":"c1-r100","dir":"cells/c1-r100-0","params":{"r":"100"},"repeat":0,"status":"complete"},
		{"id":"c1-r100","dir":"cells/c1-r100-1","repeat":1},{"id":"c1-r200","dir":"/abs/r200"}]}`)
	cells, err := results.ReadSweepCells(dir)
	if err != nil || len(cells) != 3 || cells[0].Dir != filepath.Join(dir, "cells/c1-r100-0") || cells[1].Repeat != 1 || cells[2].Dir != "/abs/r200" || cells[0].Status != "complete" {
		t.Errorf("LoadCellRefs = %+v, %v", cells, err)
	}
	if !results.IsSweepDir(dir) || results.IsSweepDir(t.TempDir()) {
		t.Error("IsSweepDir")
	}
	for doc, want := range map[string]string{
		`{"cells":[]}`: "no cells",
		`{"cells":[{"id":"a","dir":"x"},{"id":"a","dir":"y"}]}`: `"a" repeat 0 given twice`,
		`{"cells":[{"id":"a"}]}`:                                "want both an id and a dir",
		`{"cells":`:                                             "decode",
	} {
		write(doc)
		if _, err := results.ReadSweepCells(dir); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", doc, err, want)
		}
	}
	if _, err := results.ReadSweepCells(t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a sweep directory") {
		t.Errorf("no sweep.json: %v", err)
	}
}

// TestLoadRun reads a run directory written by hand: the figures are
// recomputed, summary.json's unknown ids are kept as foreign, missing
// files and run-specific config keys are handled.
func TestLoadRun(t *testing.T) {
	dir := t.TempDir()
	in := synthetic(1, 100, 20, false)
	in.Run.Nodes = []results.Node{{Name: "n0", Mode: "validator", Version: "v0.40.0", Home: "nodes/n0"}}
	if err := results.WriteJSON(filepath.Join(dir, results.RunFile), in.Run); err != nil {
		t.Fatal(err)
	}
	resultstest.WriteCSV(t, filepath.Join(dir, results.SentFile), results.SentHeader, in.Sent)
	resultstest.WriteCSV(t, filepath.Join(dir, results.TxsFile), results.TxsHeader, in.Txs)
	if err := results.WriteJSON(filepath.Join(dir, results.SummaryFile), analysis.Summary{Metrics: map[string]float64{"from_the_future": 1, "tps_mean": 12345}}); err != nil {
		t.Fatal(err)
	}
	resultstest.WriteFile(t, filepath.Join(dir, "nodes/n0/config/config.toml"), []byte("moniker = \"n0\"\n[mempool]\nsize = 5000\n"))
	resultstest.WriteFile(t, filepath.Join(dir, results.ManifestFile), []byte("name = \"t\"\n[load]\nrate = 20.0\n"))

	r, err := LoadRun(dir, LoadOptions{IgnoreConfig: []string{"moniker"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Metrics["from_the_future"] != 1 || !slices.Equal(r.Foreign, []string{"from_the_future"}) {
		t.Errorf("foreign metrics: %v %v", r.Metrics["from_the_future"], r.Foreign)
	}
	if r.Metrics["tps_mean"] != 12345 {
		t.Error("tps_mean, not recomputable without blocks.csv, not taken from summary.json")
	}
	if _, ok := r.Metrics["block_latency_mean_ms"]; !ok {
		t.Error("no recomputed block latency")
	}
	notes := strings.Join(r.Notes, "\n")
	for _, w := range []string{"no blocks.csv", "no adoption.csv", "no replies.csv", "taken from summary.json, not recomputable from the records: tps_mean"} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes lack %q:\n%s", w, notes)
		}
	}
	if r.Settings["config.mempool.size"] != "5000" || r.Settings["manifest.load.rate"] != "20.0" && r.Settings["manifest.load.rate"] != "20" {
		t.Errorf("settings: %v", r.Settings)
	}
	if _, ok := r.Settings["config.moniker"]; ok {
		t.Error("moniker not ignored")
	}
	if _, err := LoadRun(t.TempDir(), LoadOptions{}); err == nil {
		t.Error("a directory without run.json loaded")
	}
}

// TestRunSettingsKeyType: the key type is a setting of every run, ed25519
// for runs recorded before cometlab had key types, so that two sides
// differing in it show it.
func TestRunSettingsKeyType(t *testing.T) {
	old, pq := RunSettings(results.Run{}), RunSettings(results.Run{KeyType: "ml_dsa_65"})
	if old["run.key_type"] != "ed25519" || pq["run.key_type"] != "ml_dsa_65" {
		t.Fatalf("key types %q, %q", old["run.key_type"], pq["run.key_type"])
	}
	sides := []Side{{Label: "a", Runs: []Run{{Settings: old}}}, {Label: "b", Runs: []Run{{Settings: pq}}}}
	if !slices.ContainsFunc(settingDiffs(sides), func(d SettingDiff) bool { return d.Key == "run.key_type" }) {
		t.Errorf("run.key_type is not among the differences %v", settingDiffs(sides))
	}
}
