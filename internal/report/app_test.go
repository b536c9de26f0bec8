package report

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// TestAppVerdictsSection: the app's verdicts of a run with failures
// (golden: counts, the failures by code with their logs, gas), and none
// for a run without tx_results.csv.
func TestAppVerdictsSection(t *testing.T) {
	s := analysis.Summary{AppVerdicts: &analysis.AppVerdicts{Succeeded: 9_880, Failed: 120, GasWantedMean: 100_000, GasUsedMean: 63_412.7,
		Codes: []analysis.AppCode{
			{Codespace: "sdk", Code: 5, Name: "insufficient funds", Count: 100, Log: "spendable balance 0stake is smaller than 5stake: insufficient funds"},
			{Codespace: "sdk", Code: 11, Name: "out of gas", Count: 20, Log: "out of gas in location: WriteFlat; gasWanted: 100000, gasUsed: 100613: out of gas"},
		}}}
	var b bytes.Buffer
	mdWriter{w: &b}.appVerdicts(s)
	resultstest.Golden(t, filepath.Join("testdata", "app_verdicts.md.golden"), b.Bytes())
	b.Reset()
	mdWriter{w: &b}.appVerdicts(analysis.Summary{})
	if b.Len() != 0 {
		t.Errorf("an app-verdicts section for a run without verdicts:\n%s", b.String())
	}
}
