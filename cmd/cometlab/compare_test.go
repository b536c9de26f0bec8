package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/compare"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// fakeRun describes a synthetic run directory: 1 connection × 50 tx/s for
// 60 s into a 4-validator network that commits a block every interval.
type fakeRun struct {
	version  string
	interval time.Duration
	seed     uint64
}

// write writes the run directory: run.json, manifest.toml, sent.csv,
// replies.csv, txs.csv, blocks.csv and adoption.csv, as a run would.
func (f fakeRun) write(t *testing.T, dir string) string {
	t.Helper()
	r := rand.New(rand.NewPCG(f.seed, 3))
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	const rate, secs = 50, 60
	run := results.Run{ID: fmt.Sprintf("00000000-0000-4000-8000-%012d", f.seed), Status: results.StatusComplete, CometlabVersion: "test",
		CometBFTVersion: f.version, App: "kvstore", Target: "validator01", LoadStart: t0, LoadEnd: t0.Add(secs * time.Second),
		Load: results.Load{Connections: 1, Rate: rate, Size: 1024, DurationS: secs, Pacing: "even", LateThreshold: 0.01}}
	for i := range 4 {
		run.Nodes = append(run.Nodes, results.Node{Name: fmt.Sprintf("validator%02d", i+1), Mode: "validator", Version: f.version})
	}
	// Block k at t0 − 0.5 s + k·interval (± 5 %).
	var times []int64
	for k := 0; k < 2+int((secs*time.Second+2*time.Second)/f.interval); k++ {
		times = append(times, t0.Add(-500*time.Millisecond+time.Duration(k)*f.interval+time.Duration(r.NormFloat64()*0.05*float64(f.interval))).UnixNano())
	}
	for k := 1; k < len(times); k++ {
		times[k] = max(times[k], times[k-1]+int64(time.Millisecond))
	}
	var (
		sent     []results.Sent
		replies  []results.Reply
		txs      []results.Tx
		blocks   []results.Block
		adoption []results.Adoption
	)
	runTxs := make([]int, len(times))
	for i := range rate * secs {
		at := t0.Add(time.Duration(i) * time.Second / rate).UnixNano()
		sent = append(sent, results.Sent{Seq: uint64(i), Intended: at, Actual: at + 50_000, Size: 1024})
		replies = append(replies, results.Reply{Seq: uint64(i), At: at + 2_000_000, OK: true})
		k := 0
		for k < len(times)-2 && times[k] < at+int64(150*time.Millisecond) {
			k++
		}
		txs = append(txs, results.Tx{Seq: uint64(i), Sent: at + 50_000, Height: int64(k + 1), Index: runTxs[k], BlockTime: times[k], CommitTime: times[k+1]})
		runTxs[k]++
	}
	for k := range len(times) - 1 {
		blocks = append(blocks, results.Block{Height: int64(k + 1), Time: times[k], CommitTime: times[k+1], Txs: runTxs[k], RunTxs: runTxs[k], Bytes: 1024 * int64(runTxs[k]), Proposer: "P"})
		for _, n := range run.Nodes {
			adoption = append(adoption, results.Adoption{Height: int64(k + 1), Node: n.Name, At: times[k+1] + int64(5+r.ExpFloat64()*10)*int64(time.Millisecond)})
		}
	}
	m := fmt.Sprintf("name = 'default'\ncometbft_version = '%s'\n[load]\nrate = 50.0\nduration = '1m0s'\n", f.version)
	resultstest.WriteFile(t, filepath.Join(dir, results.ManifestFile), []byte(m))
	resultstest.WriteCSV(t, filepath.Join(dir, results.SentFile), results.SentHeader, sent)
	resultstest.WriteCSV(t, filepath.Join(dir, results.RepliesFile), results.RepliesHeader, replies)
	resultstest.WriteCSV(t, filepath.Join(dir, results.TxsFile), results.TxsHeader, txs)
	resultstest.WriteCSV(t, filepath.Join(dir, results.BlocksFile), results.BlocksHeader, blocks)
	resultstest.WriteCSV(t, filepath.Join(dir, results.AdoptionFile), results.AdoptionHeader, adoption)
	run.FirstHeight, run.LastHeight = 1, int64(len(times)-1)
	if err := results.WriteJSON(filepath.Join(dir, results.RunFile), run); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestCompareRuns compares synthetic run directories end to end: the same
// network twice (exit 0), a network committing blocks 50 % more slowly
// (exit 4, latency worse), and repeats given with commas.
func TestCompareRuns(t *testing.T) {
	tmp := t.TempDir()
	a1 := fakeRun{"v0.38.26", time.Second, 1}.write(t, filepath.Join(tmp, "a1"))
	a2 := fakeRun{"v0.38.26", time.Second, 2}.write(t, filepath.Join(tmp, "a2"))
	b1 := fakeRun{"v0.40.0", 1500 * time.Millisecond, 3}.write(t, filepath.Join(tmp, "b1"))
	b2 := fakeRun{"v0.40.0", 1500 * time.Millisecond, 4}.write(t, filepath.Join(tmp, "b2"))

	out := filepath.Join(tmp, "same")
	code, stdout, stderr := run(t, "compare", a1, a2, "--out", out)
	if code != exitcode.OK {
		t.Fatalf("same network: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, f := range []string{results.CompareMD, results.CompareHTML, results.CompareJSON, "plots/compare_latency_cdf.png", "plots/compare_adoption_cdf.png", "plots/compare_blocks_per_min.png"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("no %s", f)
		}
	}

	// Single runs without a measured noise: the within-run tests call the
	// slower blocks significant, but the verdict is "noise unknown", exit 0.
	out = filepath.Join(tmp, "unknown")
	code, stdout, stderr = run(t, "compare", a1, b1, "--out", out)
	if code != exitcode.OK {
		t.Fatalf("single runs without --noise: exit %d, want 0\n%s\n%s", code, stdout, stderr)
	}
	if c := readComparison(t, filepath.Join(out, results.CompareJSON)); c.Verdict != compare.NoiseUnknown {
		t.Errorf("single runs without --noise: verdict %s, want noise_unknown", c.Verdict)
	}

	out = filepath.Join(tmp, "slower")
	code, stdout, stderr = run(t, "compare", a1, b1, "--out", out, "--noise", writeNoise(t, tmp, 5))
	if code != exitcode.Regression {
		t.Fatalf("slower blocks: exit %d, want %d\n%s\n%s", code, exitcode.Regression, stdout, stderr)
	}
	if !strings.Contains(stderr, "worse than the baseline") || !strings.Contains(stdout, "v0.40.0") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	c := readComparison(t, filepath.Join(out, results.CompareJSON))
	verdict := map[string]compare.Verdict{}
	for _, r := range c.Metrics {
		verdict[r.ID] = r.Candidates[0].Verdict
	}
	if verdict["block_latency_mean_ms"] != compare.Worse || verdict["block_latency_p50_ms"] != compare.Worse {
		t.Errorf("latency verdicts %v", verdict)
	}
	md, _ := os.ReadFile(filepath.Join(out, results.CompareMD))
	if !strings.Contains(string(md), "| `run.cometbft_versions` | v0.38.26 | v0.40.0 |") {
		t.Error("the versions are not at the top of the differences")
	}

	// Repeats with labels; a raised threshold makes the same changes pass
	// (tx/s stddev grows 4-fold: 1.5-s blocks leave every other second empty).
	out = filepath.Join(tmp, "repeats")
	code, stdout, stderr = run(t, "compare", "old="+a1+","+a2, "new="+b1+","+b2, "--out", out, "--threshold", "1000")
	if code != exitcode.OK {
		t.Fatalf("repeats, threshold 1000 %%: exit %d\n%s\n%s", code, stdout, stderr)
	}
	c = readComparison(t, filepath.Join(out, results.CompareJSON))
	if c.Baseline.Label != "old" || len(c.Baseline.Runs) != 2 || c.Method.Thresholds.DefaultPct != 1000 {
		t.Errorf("baseline %+v, thresholds %+v", c.Baseline, c.Method.Thresholds)
	}
	i := slices.IndexFunc(c.Metrics, func(r compare.Row) bool { return r.ID == "block_latency_mean_ms" })
	if i < 0 {
		t.Fatal("no block_latency_mean_ms row")
	}
	if test := c.Metrics[i].Candidates[0].Test; !strings.HasPrefix(test, "t over runs (2 v 2)") {
		t.Errorf("repeats tested by %q", test)
	}
}

// readComparison reads a compare.json.
func readComparison(t *testing.T, path string) compare.Result {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c compare.Result
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return c
}

func TestCompareUsageErrors(t *testing.T) {
	tmp := t.TempDir()
	a := fakeRun{"v0.40.0", time.Second, 1}.write(t, filepath.Join(tmp, "a"))
	bad := filepath.Join(tmp, "bad.toml")
	resultstest.WriteFile(t, bad, []byte("treshold_pct = 5\n"))
	sweep := filepath.Join(tmp, "sweep")
	resultstest.WriteFile(t, filepath.Join(sweep, results.SweepFile), []byte(`{"cells":[{"id":"x","dir":"x"}]}`))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", a}, "requires at least 2 arg"},
		{[]string{"compare", a, filepath.Join(tmp, "nothing")}, "unusable input"},
		{[]string{"compare", a, a + "," + filepath.Join(tmp, "nothing")}, "nothing"},
		{[]string{"compare", a, a, "--thresholds", bad}, "treshold_pct: unknown key"},
		{[]string{"compare", a, a, "--thresholds", filepath.Join(tmp, "none.toml")}, "--thresholds"},
		{[]string{"compare", a, a, "--resamples", "5"}, "--resamples"},
		{[]string{"compare", a, sweep}, "not both"},
		{[]string{"compare", "x=", a}, "names no run directory"},
	} {
		t.Run(strings.Join(c.args[1:], " "), func(t *testing.T) {
			code, _, stderr := run(t, append(c.args, "--out", filepath.Join(tmp, "out"))...)
			if code != exitcode.Usage || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, exitcode.Usage, c.want)
			}
		})
	}
}

// TestCompareSweeps compares two sweep directories (the shape `cometlab
// sweep` writes: cells/<id>-<repeat>, repeats sharing an id) cell by cell:
// cells matched by id with their repeats, a cell only one sweep has is
// listed, a failed cell (no run.json) is skipped and flagged, and a worse
// cell makes the exit code 4.
func TestCompareSweeps(t *testing.T) {
	tmp := t.TempDir()
	type cell struct {
		id      string
		repeats []fakeRun // a zero fakeRun: a failed cell without a run.json
	}
	mk := func(name string, cells []cell) string {
		dir := filepath.Join(tmp, name)
		var idx struct {
			ID    string              `json:"id"`
			Cells []results.SweepCell `json:"cells"`
		}
		idx.ID = name
		for _, c := range cells {
			for rep, f := range c.repeats {
				rel := fmt.Sprintf("cells/%s-%d", c.id, rep)
				status := "complete"
				if f.version == "" {
					if err := os.MkdirAll(filepath.Join(dir, rel), 0o755); err != nil {
						t.Fatal(err)
					}
					status = "failed"
				} else {
					f.write(t, filepath.Join(dir, rel))
				}
				idx.Cells = append(idx.Cells, results.SweepCell{ID: c.id, Dir: rel, Repeat: rep, Status: status})
			}
		}
		if err := results.WriteJSON(filepath.Join(dir, results.SweepFile), idx); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	sec, slow := time.Second, 1600*time.Millisecond
	base := mk("base", []cell{
		{"c1-r50", []fakeRun{{"v0.38.26", sec, 1}, {"v0.38.26", sec, 2}}},
		{"c1-r100", []fakeRun{{"v0.38.26", sec, 3}}},
		{"c2-r50", []fakeRun{{}}},
	})
	cand := mk("cand", []cell{
		{"c1-r50", []fakeRun{{"v0.40.0", sec, 4}, {"v0.40.0", sec, 5}, {}}},
		{"c1-r100", []fakeRun{{"v0.40.0", slow, 6}}},
		{"c2-r50", []fakeRun{{"v0.40.0", sec, 7}}},
		{"c4-r50", []fakeRun{{"v0.40.0", sec, 8}}},
	})
	out := filepath.Join(tmp, "out")
	code, stdout, stderr := run(t, "compare", base, cand, "--out", out, "--noise", writeNoise(t, tmp, 5))
	if code != exitcode.Regression {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, w := range []string{"cell c1-r50: no significant change", "cell c1-r100: worse", "cell c4-r50: not compared (not in base)",
		"cell c2-r50: not compared (base: skipped:"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("stdout lacks %q:\n%s", w, stdout)
		}
	}
	for _, f := range []string{results.CompareMD, results.CompareHTML, results.CompareJSON, "cells/c1-r50/compare.md", "cells/c1-r100/compare.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("no %s", f)
		}
	}
	c := readComparison(t, filepath.Join(out, "cells/c1-r50", results.CompareJSON))
	if len(c.Baseline.Runs) != 2 || len(c.Candidates[0].Runs) != 2 || !strings.Contains(strings.Join(c.Warnings, "\n"), "cand: skipped") {
		t.Errorf("cell c1-r50: %d v %d runs, warnings %q", len(c.Baseline.Runs), len(c.Candidates[0].Runs), c.Warnings)
	}
}

// writeNoise writes a noise.json in dir giving every metric of the
// dictionary a between-run noise of pct % (RMS of Δ % over 10 A/A pairs)
// and returns its path.
func writeNoise(t *testing.T, dir string, pct float64) string {
	t.Helper()
	n := compare.Noise{Spec: "test", Pairs: 10, Alpha: 0.05, Metrics: map[string]compare.NoiseMetric{}}
	for _, m := range analysis.Dictionary() {
		n.Metrics[m.ID] = compare.NoiseMetric{Pairs: 10, RelPairs: 10, DiffRMSPct: pct, DiffRMS: 1}
	}
	path := filepath.Join(dir, fmt.Sprintf("noise-%g.json", pct))
	if err := compare.WriteNoise(path, n); err != nil {
		t.Fatal(err)
	}
	return path
}
