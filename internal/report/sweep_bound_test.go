package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
	"github.com/cometlab/cometlab/internal/saturation"
)

// TestSaturationBound: what bounded a real search of cometlab's SDK chain
// (testdata/saturate-bound: 4 validators, the highest pass at 80 and the
// first failure at 88 tx/s per connection, their summaries as the runs
// wrote them): the host's CPUs, 98 % busy, with the app at 37 % of each
// height (golden); the app when the failure's share is half a height or
// more; consensus on a host with room; nothing without a bracket.
func TestSaturationBound(t *testing.T) {
	dir := filepath.Join("testdata", "saturate-bound")
	var rec saturation.SearchRecord
	if err := results.ReadJSON(filepath.Join(dir, results.SaturateFile), &rec); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	mdWriter{w: &b}.saturationBound(dir, rec)
	resultstest.Golden(t, filepath.Join("testdata", "saturate_bound.md.golden"), b.Bytes())
	if !strings.Contains(b.String(), "**The host's CPUs bounded it**") {
		t.Errorf("the SDK chain's search: %s", b.String())
	}

	tmp := t.TempDir()
	for _, tt := range []struct {
		share, busy float64
		want        string
	}{{0.62, 99, "**The app bounded it**"}, {0.1, 40, "**Consensus bounded it**"}} {
		for _, st := range rec.Steps {
			var s map[string]any
			if results.ReadJSON(filepath.Join(dir, st.Dir, results.SummaryFile), &s) != nil {
				continue
			}
			m := s["metrics"].(map[string]any)
			m["app_share_of_interval"], m["host_busy_mean_pct"] = tt.share, tt.busy
			if err := os.MkdirAll(filepath.Join(tmp, st.Dir), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := results.WriteJSON(filepath.Join(tmp, st.Dir, results.SummaryFile), s); err != nil {
				t.Fatal(err)
			}
		}
		b.Reset()
		mdWriter{w: &b}.saturationBound(tmp, rec)
		if !strings.Contains(b.String(), tt.want) {
			t.Errorf("share %v, busy %v: want %q in\n%s", tt.share, tt.busy, tt.want, b.String())
		}
	}
	b.Reset()
	open := rec
	open.Outcome = &saturation.Outcome{Low: 80}
	mdWriter{w: &b}.saturationBound(dir, open)
	if b.Len() != 0 {
		t.Errorf("no failure, yet:\n%s", b.String())
	}
}
