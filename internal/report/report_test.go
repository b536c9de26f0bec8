package report

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// copyRun copies the run directory src into a new temporary directory
// (resultstest.CopyRun).
func copyRun(t *testing.T, src string) string {
	t.Helper()
	return resultstest.CopyRun(t, src)
}

func TestSmallRun(t *testing.T) {
	defaultPlots(t) // one report drawn at the size users get
	if resultstest.Updating() {
		if err := os.RemoveAll(smallRun); err != nil {
			t.Fatal(err)
		}
		writeSmallRun(t, smallRun)
	}
	dir := copyRun(t, smallRun)
	s, err := analysis.Analyze(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, s, Options{}); err != nil {
		t.Fatal(err)
	}

	// The fixture has one transaction of each fate.
	for id, want := range map[string]float64{
		"sent_txs": 59, "unsent_txs": 1, "committed_txs": 57, "rejected_txs": 1, "missing_txs": 1,
		"duplicate_txs": 1, "unanswered_txs": 1, "late_sends": 1, "expected_txs": 60,
	} {
		if got := s.Metrics[id]; got != want {
			t.Errorf("%s = %v, want %v", id, got, want)
		}
	}
	for _, m := range analysis.Dictionary() {
		// knee_tps is for ramp runs (analysis/knee_test.go), refused_txs
		// for runs through a sentinel (TestClientsSection), the scenarios'
		// for runs that played them (analysis/scenarios_test.go), a
		// message type's bytes for the types sent (analysis/msgbytes_test.go),
		// the app's verdicts for runs with tx_results.csv (TestAppVerdictsSection).
		if _, ok := s.Metrics[m.ID]; !ok && !analysis.IsTrendMetric(m.ID) && m.Group != analysis.GroupEvents && m.ID != "knee_tps" && m.ID != "refused_txs" &&
			!analysis.IsMessageTypeMetric(m.ID) &&
			!analysis.IsScenarioMetric(m.ID) && !analysis.IsSyncMetric(m.ID) && !analysis.IsAppMetric(m.ID) { // TestPerturbedRun's; analysis's TestSyncFigures

			t.Errorf("the fixture does not exercise %s", m.ID)
		}
	}

	for _, f := range []string{results.SummaryFile, results.ReportFile} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		resultstest.Golden(t, filepath.Join("testdata", "small", f+".golden"), b)
	}
	page, err := os.ReadFile(filepath.Join(dir, results.ReportHTML))
	if err != nil {
		t.Fatal(err)
	}
	checkPage(t, results.ReportHTML, page)
	if !bytes.Contains(page, []byte("<code>3a6b2c1d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b@127.0.0.1:26656</code>")) {
		t.Error("report.html does not show validator00's P2P address as code")
	}

	var table bytes.Buffer
	Table(&table, s)
	resultstest.Golden(t, filepath.Join("testdata", "small", "table.txt.golden"), table.Bytes())

	f, err := os.Open(filepath.Join(dir, filepath.FromSlash(latencyPlot)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("decode latency plot: %v", err)
	}
	if b := img.Bounds(); b.Dx() != DefaultPlotWidth || b.Dy() != DefaultPlotHeight {
		t.Errorf("latency plot is %d×%d, want %d×%d", b.Dx(), b.Dy(), DefaultPlotWidth, DefaultPlotHeight)
	}
	if testing.Verbose() {
		// Keep a copy to look at: go test -v -run TestSmallRun ./internal/report/
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(latencyPlot)))
		if err != nil {
			t.Fatal(err)
		}
		resultstest.WriteFile(t, filepath.Join(os.TempDir(), "cometlab-small-latency.png"), b)
	}
}

func TestWriteWithoutOptionalFiles(t *testing.T) {
	dir := copyRun(t, smallRun)
	for _, f := range []string{results.TxsFile, results.ManifestFile} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	s, err := analysis.Analyze(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, s, Options{}); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, results.ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"manifest.toml not found", "No plot of block latency per transaction: txs.csv not found", "txs.csv not found: nothing was gathered"} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(latencyPlot))); err == nil {
		t.Error("latency plot written without txs.csv")
	}
}

func TestWriteNoRun(t *testing.T) {
	if err := Write(t.TempDir(), analysis.Summary{}, Options{}); err == nil {
		t.Error("Write without run.json succeeded")
	}
}

func TestFormatValue(t *testing.T) {
	m := func(unit string) analysis.Metric { return analysis.Metric{Unit: unit} }
	tests := []struct {
		m    analysis.Metric
		v    float64
		want string
	}{
		{m(analysis.UnitTxs), 0, "0"},
		{m(analysis.UnitTxs), 999, "999"},
		{m(analysis.UnitTxs), 1000, "1,000"},
		{m(analysis.UnitTxs), 1234567, "1,234,567"},
		{m(analysis.UnitTxs), -1234, "-1,234"},
		{m(analysis.UnitRatio), 0.99876, "0.9988"},
		{m(analysis.UnitMS), 1561.04, "1561.0"},
		{m(analysis.UnitS), 0.7, "0.700"},
		{m(analysis.UnitTPS), 19.96, "20.0"},
		{m(analysis.UnitBPS), 1.666, "1.67"},
		{m(""), 0.125, "0.125"},
		// Below 10^−decimals: two significant digits, never "0.0".
		{m(analysis.UnitMS), 0.0123, "0.012"},
		{m(analysis.UnitMS), 0.0177, "0.018"},
		{m(analysis.UnitMS), -0.0123, "-0.012"},
		{m(analysis.UnitMS), 0.05, "0.050"},
		{m(analysis.UnitMS), 0.1, "0.1"},
		{m(analysis.UnitMS), 0.54, "0.5"},
		{m(analysis.UnitMS), 0, "0.0"},
		{m(analysis.UnitMS), 1e-9, "0.0"},
		{m(analysis.UnitPct), 0.004, "0.0040"},
	}
	for _, tt := range tests {
		if got := formatValue(tt.m, tt.v); got != tt.want {
			t.Errorf("formatValue(%q, %v) = %q, want %q", tt.m.Unit, tt.v, got, tt.want)
		}
	}
}
