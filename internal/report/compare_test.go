package report

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/compare"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// compareGolden is the golden compare.md of TestWriteCompare (rewrite with
// -update).
const compareGolden = "../../testdata/compare/report/compare.md"

// fixtureRun is a deterministic run for comparison reports: 60 blocks of
// 50 transactions whose block latency is about mean ms.
func fixtureRun(seed uint64, version string, mean float64, status string) compare.Run {
	r := rand.New(rand.NewPCG(seed, 1))
	lat := compare.DistSample{}
	tps := compare.DistSample{}
	adopt := compare.DistSample{}
	var blocks, txs compare.Trace
	for b := range 60 {
		off := r.NormFloat64() * mean / 20
		for range 50 {
			lat.Values = append(lat.Values, mean+off+r.NormFloat64()*mean/5)
			lat.Cluster = append(lat.Cluster, int32(b))
		}
		for range 3 {
			adopt.Values = append(adopt.Values, 5+r.ExpFloat64()*10)
			adopt.Cluster = append(adopt.Cluster, int32(b))
		}
		tps.Values = append(tps.Values, 50+r.NormFloat64()*5)
	}
	for k := range 12 {
		blocks.X, blocks.Y = append(blocks.X, 2.5+5*float64(k)), append(blocks.Y, 60*1000/mean+r.NormFloat64())
		txs.X, txs.Y = append(txs.X, 2.5+5*float64(k)), append(txs.Y, 3000+r.NormFloat64()*50)
	}
	run := compare.Run{
		Dir:     "runs/" + version + "-" + string(rune('a'+seed)),
		Run:     results.Run{ID: "id-" + version, Status: status, Load: results.Load{Connections: 1, Rate: 50, Size: 1024, DurationS: 60, Pacing: "even"}},
		Samples: map[string]compare.DistSample{compare.DistBlockLatency: lat, compare.DistTPS: tps, compare.DistAdoption: adopt},
		Traces:  map[string]compare.Trace{compare.TraceBlocksPerMin: blocks, compare.TraceTxsPerMin: txs},
		Metrics: map[string]float64{"expected_txs": 3000, "sent_txs": 3000, "committed_txs": 3000, "missing_txs": 0, "throughput_ratio": 1, "rounds_max": 0},
	}
	for i := range 4 {
		run.Run.Nodes = append(run.Run.Nodes, results.Node{Name: "validator0" + string(rune('1'+i)), Mode: "validator", Version: version})
	}
	for _, st := range []string{"mean", "p50", "p99", "max"} {
		run.Metrics["block_latency_"+st+"_ms"] = compare.Stat(st).Of(lat.Values)
	}
	run.Metrics["tps_mean"] = compare.StatMean.Of(tps.Values)
	run.Settings = compare.RunSettings(run.Run)
	run.Settings["config.p2p.flush_throttle_timeout"] = map[string]string{"v0.38.26": `"100ms"`, "v0.40.0": `"10ms"`}[version]
	return run
}

func compareFixture(t *testing.T) (compare.Result, []compare.Side) {
	t.Helper()
	sides := []compare.Side{
		{Runs: []compare.Run{fixtureRun(1, "v0.38.26", 800, results.StatusComplete)}},
		{Runs: []compare.Run{fixtureRun(2, "v0.40.0", 1000, results.StatusPartial)}},
	}
	compare.DefaultLabels(sides)
	// Single runs: judged against a measured A/A noise of 2 % (Δ % RMS
	// over 10 pairs) for every metric.
	noise := compare.Noise{Pairs: 10, Metrics: map[string]compare.NoiseMetric{}}
	for _, m := range analysis.Dictionary() {
		noise.Metrics[m.ID] = compare.NoiseMetric{Pairs: 10, RelPairs: 10, DiffRMSPct: 2}
	}
	c, err := compare.Sides(sides[0], sides[1:], compare.Options{Seed: 1, Resamples: 500, Noise: &noise})
	if err != nil {
		t.Fatal(err)
	}
	return c, sides
}

// TestWriteCompare writes a comparison and checks compare.md against its
// golden file, that compare.html is self-contained and that compare.json
// holds the comparison.
func TestWriteCompare(t *testing.T) {
	c, sides := compareFixture(t)
	dir := filepath.Join(t.TempDir(), "out")
	if err := WriteCompare(dir, c, sides, CompareOptions{Command: "cometlab compare a b", PlotWidth: 400, PlotHeight: 250}); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, results.CompareMD))
	if err != nil {
		t.Fatal(err)
	}
	resultstest.Golden(t, compareGolden, md)
	for _, w := range []string{"**Verdict: WORSE.**", "| `config.p2p.flush_throttle_timeout` | \"100ms\" | \"10ms\" |",
		"is partial", "### Latency", "plots/compare_latency_cdf.png", "plots/compare_blocks_per_min.png", "## Method"} {
		if !bytes.Contains(md, []byte(w)) {
			t.Errorf("compare.md lacks %q", w)
		}
	}
	if bytes.Contains(md, []byte("NaN")) {
		t.Error("compare.md has NaN")
	}
	page, err := os.ReadFile(filepath.Join(dir, results.CompareHTML))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(page, []byte(`<img src="data:image/png;base64,`)) || bytes.Contains(page, []byte(`src="plots/`)) {
		t.Error("compare.html does not inline its plots")
	}
	var back compare.Result
	b, _ := os.ReadFile(filepath.Join(dir, results.CompareJSON))
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Verdict != c.Verdict || len(back.Metrics) != len(c.Metrics) || back.Candidates[0].Label != "v0.40.0" {
		t.Errorf("compare.json: verdict %s, %d metrics", back.Verdict, len(back.Metrics))
	}
	// The groups the inputs have no metric of are left out.
	if bytes.Contains(md, []byte("### Mempool")) || bytes.Contains(md, []byte("### Resources")) {
		t.Error("empty groups shown")
	}
}

func TestCompareTable(t *testing.T) {
	c, _ := compareFixture(t)
	var b bytes.Buffer
	CompareTable(&b, c)
	out := b.String()
	for _, w := range []string{"v0.38.26", "v0.40.0", "Block latency p50 (ms)", "worse", "verdict: worse; v0.40.0:"} {
		if !strings.Contains(out, w) {
			t.Errorf("table lacks %q:\n%s", w, out)
		}
	}
}

func TestWriteSweepCompare(t *testing.T) {
	c, sides := compareFixture(t)
	dir := t.TempDir()
	if err := WriteCompare(filepath.Join(dir, results.CompareCellDir("r=50")), c, sides, CompareOptions{PlotWidth: 300, PlotHeight: 200}); err != nil {
		t.Fatal(err)
	}
	s := compare.SweepResult{Baseline: "base", Candidates: []string{"cand"}, Cells: []compare.CellResult{
		{ID: "r=50", Dir: results.CompareCellDir("r=50"), Result: &c},
		{ID: "r=100", Missing: []string{"cand"}},
	}}
	s.Conclude()
	if err := WriteSweepCompare(dir, s, ""); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, results.CompareMD))
	page, _ := os.ReadFile(filepath.Join(dir, results.CompareHTML))
	for _, w := range []string{"[r=50](cells/r_50/compare.md)", "**Verdict: WORSE.**", "`r=100` (not in cand)"} {
		if !bytes.Contains(md, []byte(w)) {
			t.Errorf("sweep compare.md lacks %q:\n%s", w, md)
		}
	}
	if !bytes.Contains(page, []byte(`href="cells/r_50/compare.html"`)) {
		t.Error("the HTML overview does not link the cell's compare.html")
	}
	var back compare.SweepResult
	b, _ := os.ReadFile(filepath.Join(dir, results.CompareJSON))
	if err := json.Unmarshal(b, &back); err != nil || back.Verdict != compare.Worse || len(back.Cells) != 2 || back.Cells[0].Verdict != compare.Worse {
		t.Errorf("sweep compare.json: %+v %v", back, err)
	}
}
