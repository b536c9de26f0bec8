package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
)

// TestKeyTypeStated: a run's key type is in the report's setup line (when
// not ed25519) and in its testnet table.
func TestKeyTypeStated(t *testing.T) {
	dir := copyRun(t, smallRun)
	run, err := results.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	run.KeyType = "ml_dsa_65"
	if err := results.WriteJSON(filepath.Join(dir, results.RunFile), run); err != nil {
		t.Fatal(err)
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
	for _, want := range []string{"nodes (validator keys ml_dsa_65),", "| validator key type | `ml_dsa_65` |"} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("report.md lacks %q", want)
		}
	}
}
