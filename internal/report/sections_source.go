package report

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/cometlab/cometlab/internal/results"
)

// sourceRows are the testnet table's rows naming each source tree or
// patched release the nodes were built from (run.json's sources): the
// code that ran, as a reviewer needs it to find it again.
func sourceRows(run results.Run) [][]string {
	var rows [][]string
	for _, s := range run.Sources {
		what := "release " + s.Release
		if s.Path != "" {
			what = "tree " + codeSpan(s.Path)
			switch {
			case s.Commit != "":
				what += fmt.Sprintf(", commit %s", codeSpan(s.Commit))
				if s.Branch != "" {
					what += " on " + codeSpan(s.Branch)
				}
				if s.Describe != "" {
					what += fmt.Sprintf(" (%s)", codeSpan(s.Describe))
				}
				if s.Dirty {
					what += fmt.Sprintf(", with uncommitted changes (diff sha256 %s)", codeSpan(short(s.DiffHash)))
				}
			case s.TreeHash != "":
				what += fmt.Sprintf(", files sha256 %s", codeSpan(short(s.TreeHash)))
			}
		}
		for _, p := range s.Patches {
			what += fmt.Sprintf(", patch %s (sha256 %s)", codeSpan(filepath.Base(p.Path)), codeSpan(short(p.SHA256)))
		}
		what += fmt.Sprintf("; line %s, run as %s", s.Line, s.Version)
		if len(s.Nodes) < len(run.Nodes) {
			what += "; nodes " + strings.Join(s.Nodes, ", ")
		}
		rows = append(rows, []string{"CometBFT source", what})
	}
	return rows
}
