package report

import (
	"bytes"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/compare"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
	"github.com/cometlab/cometlab/internal/saturation"
)

// fixtureQA is a QA of v0.40.0 against v0.38.26: saturation and load
// chosen, a long test with a regression, a figure worse within the
// threshold and one beyond it but not significant, a passing rotation, a
// failed partition, an upgrade the lines refuse and two steps not built.
func fixtureQA() results.QARecord {
	t0 := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	fig := func(id, title string, b, c float64, v string, head bool) results.QAFigure {
		d, pct := c-b, 100*(c-b)/b
		f := results.QAFigure{ID: id, Title: title, Baseline: f64(b), Candidate: f64(c), NBase: 3, NCand: 3, Delta: &d, DeltaPct: &pct,
			CILo: f64(d - math.Abs(d)/2), CIHi: f64(d + math.Abs(d)/2), P: f64(0.01), Verdict: v, Headline: head, Rule: "within", Significance: "significant"}
		switch v {
		case "regression":
			f.Rule = "worse_over"
		case "beyond_not_significant":
			f.Rule, f.Significance, f.P, f.UndecidedAfter = "worse_over", "not significant", f64(0.3), 3
		case "pass":
			f.Significance, f.P = "not significant", f64(0.6)
		case "better":
			f.Rule = "better_over"
		}
		return f
	}
	plan := results.QAPlan{DurationS: 60, LongDurationS: 60, Repeat: 3, ScenarioRepeat: 1, Connections: []int{1, 2}, Factors: []float64{0.25, 0.5, 1},
		SearchRuns: 8, OverheadS: 18, OverheadFrom: "measured: the median of 12 complete runs' run.json times under [runs]",
		EstimateS: 5400, BudgetS: 5400, GaveUp: []string{"rotation, partition and absent stake: 1 round instead of 3"},
		Steps: []results.QAPlanStep{
			{ID: "saturation", Title: "Saturation point", EstimateS: 2400, Runs: []results.QAPlanRun{
				{Side: "v0.38.26", What: "saturation search, full-length runs (c = 1)", Count: 4, MaxCount: 8, DurationS: 60},
				{Side: "v0.38.26", What: "grid c ∈ [1 2] × r ∈ knee·{¼, ½, 1}", Count: 6, DurationS: 60}}},
			{ID: "qa-load", Title: "QA load"},
			{ID: "long", Title: "Long test at the QA load", EstimateS: 468, Runs: []results.QAPlanRun{
				{Side: "both", What: "at the QA load, 3 rounds, counterbalanced", Changes: []string{"load.duration=1m0s"}, Count: 6, DurationS: 60}}},
			{ID: "rotation", Title: "Rotating nodes", EstimateS: 156, Runs: []results.QAPlanRun{
				{Side: "both", What: "at the QA load with ephemeral nodes, 1 round", Changes: []string{"rotate.concurrency=2"}, Count: 2, DurationS: 60}}},
			{ID: "vote-extensions", Title: "Vote-extension sizes", EstimateS: 156, Runs: []results.QAPlanRun{
				{Side: "v0.40.0", What: "at the QA load with the e2e app, vote extensions of [0 32768] bytes (0: the app's own), 1 round each",
					Changes: []string{"app=e2e"}, Count: 2, DurationS: 60}}},
			{ID: "partition", Title: "Network partition", EstimateS: 156, Runs: []results.QAPlanRun{
				{Side: "both", What: "at the QA load, split by stake", Changes: []string{"partition.split=50/50"}, Count: 2, DurationS: 60}}},
			{ID: "upgrade", Title: "Rolling upgrade", Skip: "skipped: v0.38.26 → v0.40.0 crosses release lines and their nodes cannot share a network"},
			{ID: "storage", Title: "Storage matrix", Skip: "not built yet: run the storage matrix with `cometlab sweep`", NotBuilt: true},
		}}
	long := []results.QAFigure{
		fig("block_latency_p50_ms", "Block latency p50", 1200, 1500, "regression", true),
		fig("committed_tps", "Committed rate", 400, 390, "worse_within", true),
		fig("rss_max_mib", "RSS max", 80, 95, "beyond_not_significant", true),
		fig("cpu_mean_pct", "CPU mean", 30, 29, "pass", true),
		fig("mempool_size_mean_txs", "Mempool size mean", 15, 12, "better", false),
		fig("late_sends", "Late sends", 3, 3, "pass", false),
		{ID: "slow_heights", Title: "Slow heights", Unit: "blocks", Baseline: f64(0), Candidate: f64(2), NBase: 3, NCand: 3, Delta: f64(2),
			P: f64(0.0791), Verdict: "beyond_not_significant", Rule: "worse_over", Significance: "not significant",
			Rate: &results.Rate{Per: "height", Exposure: "blocks", BaseCount: 0, BaseExposure: 120, CandCount: 6, CandExposure: 130,
				Lo: f64(1.09), Dispersion: 1}},
	}
	return results.QARecord{Kind: "qa", Status: results.StatusComplete, CometlabVersion: "v0.1.0", Created: t0, Updated: t0.Add(90 * time.Minute),
		Command:  "cometlab qa --baseline v0.38.26 --candidate v0.40.0 --budget 90m",
		Host:     results.Host{Hostname: "qa-1", OS: "linux", Arch: "amd64", CPUs: 2, Kernel: "6.8.0", Go: "go1.26.8"},
		Baseline: "v0.38.26", Candidate: "v0.40.0", Labels: []string{"v0.38.26", "v0.40.0"},
		Testnets: []results.TestnetInfo{{Name: "default", CometBFTVersion: "v0.38.26", App: "kvstore", Nodes: 4, Validators: 4, TxSize: 1024},
			{Name: "default", CometBFTVersion: "v0.40.0", App: "kvstore", Nodes: 4, Validators: 4, TxSize: 1024}},
		ThresholdPct: 10, Alpha: 0.05, Plan: plan, Verdict: results.QAVerdictRegression, ElapsedS: 5123,
		Load: &results.QALoad{Connections: 1, Rate: 400, Rule: "c = 1 and the highest r of the candidate's c = 1 row that kept up: r = 400 tx/s kept up"},
		Steps: []results.QAStep{
			{ID: "saturation", Status: results.QADone, Dirs: []string{"tests/saturation/v0.38.26/search", "tests/saturation/v0.38.26/grid"},
				Summary: "v0.38.26: knee 1280 tx/s; v0.40.0: knee 1280 tx/s"},
			{ID: "qa-load", Status: results.QADone, Summary: "c = 1, r = 400 tx/s"},
			{ID: "long", Status: results.QADone, Dirs: []string{"tests/long"}, Verdict: results.QAVerdictRegression, Figures: long,
				Summary: "1 regression(s): [Block latency p50]; worse within 10 %: 1, undecided (worse by over 10 %, not significant): 2, better: 1 (7 figures judged)"},
			{ID: "rotation", Status: results.QADone, Dirs: []string{"tests/rotation"}, Verdict: results.QAVerdictPass, Summary: "no regression"},
			{ID: "vote-extensions", Status: results.QADone, Dirs: []string{"tests/vote-extensions"}, Verdict: results.QAVerdictNotJudged,
				Summary: "by extension size: 0 B: 400 tx/s, latency mean 800 ms; 32768 B: 380 tx/s, latency mean 2900 ms (saturated)"},
			{ID: "partition", Status: results.StatusFailed, Verdict: results.QAVerdictFailed, Error: "v0.40.0: the testnet did not start"},
			{ID: "upgrade", Status: results.QASkipped, Summary: "skipped: v0.38.26 → v0.40.0 crosses release lines and their nodes cannot share a network"},
			{ID: "storage", Status: results.QANotBuilt, Summary: "not built yet: run the storage matrix with `cometlab sweep`"},
		}}
}

// TestQAFigureRow: a figure's row as the QA table writes it — the rounding
// cases of the committed v0.40.0 report ("Rounds max 1 | 1 | +50 %",
// "Blocks after round 0 1 | 1 | +50 %": means of 0, 1, 1 and 1, 1, 1
// rounded to integers), a count judged as a rate, an undecided figure
// after the budget, a record without n or Δ (an older qa.json).
func TestQAFigureRow(t *testing.T) {
	pct := func(b, c float64) *float64 { v := 100 * (c - b) / b; return &v }
	for _, tt := range []struct {
		name string
		f    results.QAFigure
		want string
	}{
		{"rounds max, means of 0,1,1 and 1,1,1", results.QAFigure{ID: "rounds_max", Title: "Rounds max", Baseline: f64(2.0 / 3), Candidate: f64(1),
			NBase: 3, NCand: 3, Delta: f64(1.0 / 3), DeltaPct: pct(2.0/3, 1), Verdict: "not_judged"},
			"Rounds max | rounds | 3 v 3 | 0.67 | 1.00 | +0.33 rounds | +50.0 % | — | — | — | — | not judged"},
		{"blocks after round 0, the same", results.QAFigure{ID: "blocks_multi_round", Title: "Blocks after round 0", Baseline: f64(2.0 / 3),
			Candidate: f64(1), NBase: 3, NCand: 3, Delta: f64(1.0 / 3), DeltaPct: pct(2.0/3, 1), P: f64(0.62), Verdict: "pass",
			Rule: "worse_over", Significance: "not significant", Rate: &results.Rate{Per: "height", BaseCount: 2, BaseExposure: 81,
				CandCount: 3, CandExposure: 78, Ratio: f64(1.558), Lo: f64(0.17), Hi: f64(18.6)}},
			"Blocks after round 0 | blocks per height | 3 v 3 | 2 of 81 | 3 of 78 | +0.0138 | +55.8 % | ratio 0.17 … 18.6 | 0.620 | worse by over 10 % | not significant | pass"},
		{"a single run's count is an integer", results.QAFigure{ID: "rounds_max", Title: "Rounds max", Baseline: f64(1), Candidate: f64(1),
			NBase: 1, NCand: 1, Delta: f64(0), DeltaPct: f64(0), Verdict: "not_judged"},
			"Rounds max | rounds | 1 v 1 | 1 | 1 | 0 rounds | 0 % | — | — | — | — | not judged"},
		{"slow heights from 0, undecided after 3 rounds", results.QAFigure{ID: "slow_heights", Title: "Slow heights", Baseline: f64(0),
			Candidate: f64(2), NBase: 3, NCand: 3, Delta: f64(2), P: f64(0.0791), Verdict: "beyond_not_significant", Rule: "worse_over",
			Significance: "not significant", UndecidedAfter: 3, Rate: &results.Rate{Per: "height", BaseExposure: 120, CandCount: 6, CandExposure: 130, Lo: f64(1.09)}},
			"Slow heights | blocks per height | 3 v 3 | 0 of 120 | 6 of 130 | +0.0462 | n/a (baseline 0) | ratio 1.09 … ∞ | 0.079 | worse by over 10 % | not significant | **undecided after 3 rounds**"},
		{"latency with its interval", results.QAFigure{ID: "block_latency_p50_ms", Title: "Block latency p50", Baseline: f64(975.6),
			Candidate: f64(904.8), NBase: 3, NCand: 3, Delta: f64(-70.8), DeltaPct: pct(975.6, 904.8), CILo: f64(-150.2), CIHi: f64(8.6),
			P: f64(0.31), Verdict: "pass", Rule: "within", Significance: "not significant"},
			"Block latency p50 | ms | 3 v 3 | 975.6 | 904.8 | −70.8 ms | −7.3 % | [−150.2, +8.6] | 0.310 | within 10 % | not significant | pass"},
		{"mempool size, a count's mean over runs", results.QAFigure{ID: "mempool_size_mean_txs", Title: "Mempool size mean", Baseline: f64(612.4),
			Candidate: f64(574.2), NBase: 3, NCand: 3, Delta: f64(-38.2), DeltaPct: pct(612.4, 574.2), Verdict: "pass", Rule: "within",
			Significance: "not significant"},
			"Mempool size mean | txs | 3 v 3 | 612 | 574 | −38.2 txs | −6.2 % | — | — | within 10 % | not significant | pass"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := strings.Join(qaFigureRow(tt.f, 10), " | "); got != tt.want {
				t.Errorf("row\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestFormatMean: a count's mean over runs keeps the decimals its
// rounding would lose; one run's is an integer.
func TestFormatMean(t *testing.T) {
	rounds := metricFor("rounds_max")
	for _, tt := range []struct {
		v    float64
		n    int
		want string
	}{{2.0 / 3, 3, "0.67"}, {1, 3, "1.00"}, {1, 1, "1"}, {0.4, 1, "0"}, {28.6667, 3, "28.7"}, {1483.3, 3, "1,483"}} {
		if got := formatMean(rounds, tt.v, tt.n); got != tt.want {
			t.Errorf("formatMean(%v, n = %d) = %q, want %q", tt.v, tt.n, got, tt.want)
		}
	}
	if got := formatMean(metricFor("block_latency_p50_ms"), 975.61, 3); got != "975.6" {
		t.Errorf("a latency's mean: %q", got)
	}
}

// TestQASafetyViolationList: the committed v0.40.0 report's 2,000-character
// violation — 12 runs' findings in one cell and one paragraph — is a short
// cell with a link, and a list of one line per run in the step's section.
func TestQASafetyViolationList(t *testing.T) {
	dir := t.TempDir()
	rec := fixtureQA()
	rec.Verdict = results.QAVerdictUnsafe
	var parts []string
	for _, c := range []string{"c2-r1180-0", "c2-r2360-0", "c4-r300-0"} {
		parts = append(parts, "tests/saturation/v0.38.26/grid/cells/"+c+": 2 accepted transaction(s) never committed, and nothing in the run "+
			"explains it; no evidence of misbehaviour committed.")
	}
	why := "safety violation in 3 run(s): " + strings.Join(parts, "; ") + "; v0.38.26: knee 1182 tx/s; v0.40.0: knee 1102 tx/s"
	rec.Steps[0].Verdict, rec.Steps[0].Summary = results.QAVerdictUnsafe, why
	if err := WriteQA(dir, rec, QAInputs{}); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, results.QAReportFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| Saturation point | **UNSAFE** | safety violation in 3 run(s) ([details](#saturation-point)) |",
		"**Safety violation:** safety violation in 3 run(s):\n\n- tests/saturation/v0.38.26/grid/cells/c2-r1180-0: 2 accepted transaction(s) " +
			"never committed, and nothing in the run explains it; no evidence of misbehaviour committed.\n- tests/saturation/v0.38.26/grid/cells/c2-r2360-0",
		"\n- v0.38.26: knee 1182 tx/s\n- v0.40.0: knee 1102 tx/s\n"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("qa.md lacks %q", want)
		}
	}
}

// TestFoldCell: a long cell becomes its first clause and a link.
func TestFoldCell(t *testing.T) {
	long := "safety violation in 12 run(s): " + strings.Repeat("tests/x: 2 accepted transaction(s) never committed, and nothing in the run explains it; ", 12)
	if got, want := foldCell(long, "saturation-point"), "safety violation in 12 run(s) ([details](#saturation-point))"; got != want {
		t.Errorf("folded %q, want %q", got, want)
	}
	if got := foldCell("no regression", "x"); got != "no regression" {
		t.Errorf("short %q", got)
	}
	if got := headingID("Long test at the QA load"); got != "long-test-at-the-qa-load" {
		t.Errorf("heading id %q", got)
	}
}

// fixtureVESweep is a vote-extension sweep at c = 1, r = 400 of two
// sizes, the larger saturated.
func fixtureVESweep() *saturation.SweepRecord {
	crit := saturation.DefaultCriterion()
	rec := &saturation.SweepRecord{ID: "ve", Kind: "sweep", Status: results.StatusComplete, Criterion: crit,
		Grid: results.SweepGrid{Connections: []int{1}, Rates: []float64{400}, Repeat: 1, DurationS: 60,
			Params: []results.SweepParam{{Key: "app.vote_extension_size", Values: []string{"0", "32768"}}}}}
	for _, size := range []string{"0", "32768"} {
		ev := fixtureEvidence(1, 400, 400, 0.001, 800)
		if size != "0" {
			ev = fixtureEvidence(1, 400, 380, 0.05, 2900)
		}
		v := crit.Judge(ev)
		id := "c1-r400-app.vote_extension_size_" + size
		rec.Cells = append(rec.Cells, saturation.SweepCell{SweepCell: results.SweepCell{ID: id, Status: results.StatusComplete, Dir: "cells/" + id + "-0",
			Params: map[string]string{"c": "1", "r": "400", "app.vote_extension_size": size}}, Evidence: &ev, Verdict: &v})
	}
	return rec
}

// TestWriteQAGolden: the QA report of a synthetic qa.json (read back from
// the file) with fixture saturation records, a comparison's plot and the
// runs' links: the pass/fail table first, then the setup, the saturation
// tables side by side, the load, each test, the steps not run.
func TestWriteQAGolden(t *testing.T) {
	dir := t.TempDir()
	if err := results.WriteJSON(filepath.Join(dir, results.QAFile), fixtureQA()); err != nil {
		t.Fatal(err)
	}
	rec, err := results.ReadQA(dir)
	if err != nil {
		t.Fatal(err)
	}
	var img bytes.Buffer
	if err := png.Encode(&img, image.NewGray(image.Rect(0, 0, 2, 2))); err != nil {
		t.Fatal(err)
	}
	resultstest.WriteFile(t, filepath.Join(dir, "tests/long/plots/compare_latency_cdf.png"), img.Bytes())
	resultstest.WriteFile(t, filepath.Join(dir, "tests/rotation/runs/01-v0.38.26/plots/heights.png"), img.Bytes())
	for _, name := range []string{"latency.png", "block_rate.png"} {
		resultstest.WriteFile(t, filepath.Join(dir, "tests/vote-extensions/cells/c1-r400-app.vote_extension_size_32768-0/plots", name), img.Bytes())
	}
	resultstest.WriteFile(t, filepath.Join(dir, "tests/long", results.CompareMD), []byte("# compare\n"))
	writeFixtureLongSummaries(t, dir)
	search, grid := fixtureSaturate(), fixtureSweep()
	in := QAInputs{Disturbed: map[string][]string{"long": {"tests/long/runs/02-v0.40.0.disturbed"}}, Saturation: []QASaturation{
		{Label: "v0.38.26", SearchDir: "tests/saturation/v0.38.26/search", GridDir: "tests/saturation/v0.38.26/grid", Search: &search, Grid: &grid},
		{Label: "v0.40.0", SearchDir: "tests/saturation/v0.40.0/search", GridDir: "tests/saturation/v0.40.0/grid"}},
		Runs: map[string][]string{"long": {"tests/long/runs/01-v0.38.26", "tests/long/runs/01-v0.40.0"},
			"rotation": {"tests/rotation/runs/01-v0.38.26", "tests/rotation/runs/01-v0.40.0"}},
		Sweeps: map[string]*saturation.SweepRecord{"vote-extensions": fixtureVESweep()}}
	if err := WriteQA(dir, rec, in); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, results.QAReportFile))
	if err != nil {
		t.Fatal(err)
	}
	resultstest.Golden(t, filepath.Join("testdata", "qareport", "qa.md.golden"), md)
	// The latency–throughput curve of the sides' grids (only the
	// baseline's here), drawn where qa.md shows it.
	if f, err := os.Open(filepath.Join(dir, filepath.FromSlash(results.LatencyThroughputPlot))); err != nil {
		t.Error(err)
	} else {
		if _, err := png.Decode(f); err != nil {
			t.Errorf("%s: %v", results.LatencyThroughputPlot, err)
		}
		f.Close()
	}
	var labels []string
	for _, s := range qaCurve(in.Saturation) {
		labels = append(labels, s.Label)
	}
	if want := []string{"v0.38.26 c=1", "v0.38.26 c=2"}; !slices.Equal(labels, want) {
		t.Errorf("curve series %v, want %v", labels, want)
	}
	page, err := os.ReadFile(filepath.Join(dir, results.QAHTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`<img src="data:image/png;base64,`, `href="tests/long/compare.html"`, `href="tests/long/runs/01-v0.38.26/report.html"`} {
		if !strings.Contains(string(page), s) {
			t.Errorf("qa.html lacks %s", s)
		}
	}
	order := []string{"| Long test at the QA load | **REGRESSION** |", "## Setup", "## Saturation point", "## QA load", "## Long test",
		"### Issues discovered and autopsy", "- **Slow heights** (the block autopsy;", "3 of 120 heights over 2 runs: 2 perturbation, 1 unexplained",
		"- **SAFETY VIOLATION** in 1 of 2 runs: [01-v0.40.0]", "- **Issues discovered**: [01-v0.40.0](tests/long/runs/01-v0.40.0/report.md): validator02 panicked",
		"1 run was measured again because the host was busy, kept as evidence: `tests/long/runs/02-v0.40.0.disturbed`",
		"## Rotating nodes", "## Vote-extension sizes", "| 32768 | 1 |", "## Network partition", "## Steps not run"}
	last := -1
	for _, s := range order {
		i := strings.Index(string(md), s)
		if i < 0 || i < last {
			t.Errorf("%q is out of order (or missing)", s)
		}
		last = i
	}
}

// writeFixtureLongSummaries writes the long test's runs' summaries: the
// baseline's safe, with three slow heights (two in a perturbation); the
// candidate's with a transaction committed twice, a panic, an anomaly and
// a busy host.
func writeFixtureLongSummaries(t *testing.T, dir string) {
	t.Helper()
	base := analysis.Summary{RunID: "b", Status: results.StatusComplete,
		Metrics: map[string]float64{"blocks": 60, "slow_heights": 3, "slow_heights_perturbation": 2, "slow_heights_unexplained": 1},
		Autopsy: []results.Verdict{{Height: 12, Round: 1, IntervalMs: 4100, Cause: analysis.CausePerturbation, Node: "validator01"}},
		Safety:  &analysis.Safety{Checked: true, Heights: 60, Nodes: []string{"validator00", "validator01"}}}
	cand := analysis.Summary{RunID: "c", Status: results.StatusComplete,
		Metrics: map[string]float64{"blocks": 60, "slow_heights": 0, "host_other_cpu_mean_pct": 45, "host_other_cpu_max_pct": 90},
		Autopsy: []results.Verdict{{Height: 3, IntervalMs: 900, Cause: analysis.CauseUnexplained}},
		Safety:  &analysis.Safety{Checked: true, Heights: 60, CommittedTwice: 1}, Issues: []string{"validator02 panicked (1 panic)."},
		Anomalies: []string{"validator02 exited at 30.0 s, signal 2, outside every perturbation."}}
	for rel, s := range map[string]analysis.Summary{"tests/long/runs/01-v0.38.26": base, "tests/long/runs/01-v0.40.0": cand} {
		if err := os.MkdirAll(filepath.Join(dir, rel), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := results.WriteJSON(filepath.Join(dir, rel, results.SummaryFile), s); err != nil {
			t.Fatal(err)
		}
	}
}

// TestQASaturationUnsafe: a QA whose verdict is unsafe because of its
// saturation step says so where a reader looks: the step gets a row in
// the pass/fail table (it has none otherwise) and its section opens with
// the violation.
func TestQASaturationUnsafe(t *testing.T) {
	dir := t.TempDir()
	rec := fixtureQA()
	rec.Verdict = results.QAVerdictUnsafe
	const why = "safety violation in 1 run(s): tests/saturation/v0.38.26/grid/cells/c4-r800-0: 2 accepted transaction(s) never committed"
	rec.Steps[0].Verdict, rec.Steps[0].Summary = results.QAVerdictUnsafe, why+"; v0.38.26: knee 1280 tx/s"
	if err := WriteQA(dir, rec, QAInputs{}); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, results.QAReportFile))
	if err != nil {
		t.Fatal(err)
	}
	last := -1
	for _, s := range []string{"# QA: v0.40.0 against v0.38.26 — UNSAFE", "| Saturation point | **UNSAFE** | " + why, "## Setup",
		"## Saturation point", "**Safety violation:** " + why, "## QA load"} {
		i := strings.Index(string(md), s)
		if i <= last {
			t.Errorf("qa.md: %q missing or out of order (at %d, after %d)", s, i, last)
		}
		last = max(last, i)
	}
	plain := fixtureQA() // not unsafe: no row, no line
	if err := WriteQA(dir, plain, QAInputs{}); err != nil {
		t.Fatal(err)
	}
	if md, _ := os.ReadFile(filepath.Join(dir, results.QAReportFile)); strings.Contains(string(md), "| Saturation point | **") || strings.Contains(string(md), "**Safety violation:**") {
		t.Errorf("a safe saturation step is listed as a test or a violation:\n%s", md)
	}
}

// TestCompareMeansOfCounts: compare.md writes a count's mean over
// repeats as formatMean does — "Rounds max | 0.67 | 1.00", not "1 | 1" —
// and a count judged as a rate with the interval of the rates' ratio.
func TestCompareMeansOfCounts(t *testing.T) {
	run := func(label string, rounds, multi float64) compare.Run {
		return compare.Run{Run: results.Run{ID: label, Status: results.StatusComplete},
			Metrics: map[string]float64{"rounds_max": rounds, "blocks_multi_round": multi, "blocks": 40}}
	}
	base := compare.Side{Label: "base", Runs: []compare.Run{run("b1", 0, 0), run("b2", 1, 1), run("b3", 1, 1)}}
	cand := compare.Side{Label: "cand", Runs: []compare.Run{run("c1", 1, 1), run("c2", 1, 1), run("c3", 1, 1)}}
	c, err := compare.Sides(base, []compare.Side{cand}, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	compareMarkdown(&b, c, nil, CompareOptions{})
	for _, want := range []string{"| Rounds max (rounds) | 0.67 | 1.00 | +0.33 | +50.0 % |", "| Blocks after round 0 (blocks) | 0.67 | 1.00 | +0.33 | +50.0 % | ratio "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("compare.md lacks %q:\n%s", want, b.String())
		}
	}
}
