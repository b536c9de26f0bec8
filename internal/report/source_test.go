package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
)

// TestSourceStated: a run of a source tree and of a patched release names
// each in the report's testnet table: the tree's path, commit, branch,
// describe and diff hash, the patch and its hash, the line.
func TestSourceStated(t *testing.T) {
	dir := copyRun(t, smallRun)
	run, err := results.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	run.Sources = []results.Source{
		{Nodes: []string{"validator01"}, Path: "/src/cometbft", Module: "github.com/cometbft/cometbft", SemVer: "0.39.0", Line: "v0.40", Version: "v0.40.0",
			Commit: "0123456789abcdef0123456789abcdef01234567", Branch: "fix", Describe: "0123456-dirty", Dirty: true,
			DiffHash: "fedcba9876543210fedcba9876543210", Key: "k1"},
		{Nodes: []string{"validator02"}, Release: "v0.40.0", Line: "v0.40", Version: "v0.40.0",
			Patches: []results.SourcePatch{{Path: "/p/fix.diff", SHA256: "aaaabbbbccccddddeeee"}}, Key: "k2"},
	}
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
	for _, want := range []string{
		"| CometBFT source | tree `/src/cometbft`, commit `0123456789abcdef0123456789abcdef01234567` on `fix` (`0123456-dirty`), " +
			"with uncommitted changes (diff sha256 `fedcba987654…`); line v0.40, run as v0.40.0; nodes validator01 |",
		"| CometBFT source | release v0.40.0, patch `fix.diff` (sha256 `aaaabbbbcccc…`); line v0.40, run as v0.40.0; nodes validator02 |",
	} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("report.md lacks %q", want)
		}
	}
}
