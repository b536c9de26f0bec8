package experiment

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// TestSchedule runs testdata/schedule/*.txt: [perturb] tables in, the
// executor's timeline out.
func TestSchedule(t *testing.T) {
	resultstest.RunFiles(t, filepath.Join("testdata", "schedule", "*.txt"), func(t *testing.T, c resultstest.Case) string {
		if c.Cmd != "schedule" {
			t.Fatalf("%s: unknown command %q", c.Pos, c.Cmd)
		}
		m, err := manifest.Parse("case.toml", []byte(strings.Join(c.Input, "\n")))
		if err != nil {
			return "error: " + err.Error()
		}
		r, err := m.Resolve()
		if err != nil {
			return "error: " + err.Error()
		}
		var b strings.Builder
		for _, s := range schedule(r.Perturbations) {
			b.WriteString(s.String() + "\n")
		}
		return b.String()
	})
}
