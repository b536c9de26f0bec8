package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// TestTimeScaleReport writes the report of a synthetic run made at time
// scale 4 (20 tx/s for 60 s in the model: 5 tx/s for 240 s on the host)
// and keeps its opening (through the setup line) and its load appendix
// as a golden: the report says at its top that the run was scaled and by
// how much, its figures are the model's, and the appendix gives both
// loads. The terminal table opens with the same line; a run in real time
// has neither.
func TestTimeScaleReport(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	run, err := resultstest.WriteRun(dir, resultstest.Spec{Rate: 5, Duration: 4 * time.Minute, Interval: 4 * time.Second,
		Scrape: 4 * time.Second, Before: 20 * time.Second, After: 40 * time.Second, Scale: 4})
	if err != nil {
		t.Fatal(err)
	}
	run.TimeScale = 4
	run.Load.Rate, run.Load.DurationS = 20, 60
	if err := results.WriteJSON(filepath.Join(dir, results.RunFile), run); err != nil {
		t.Fatal(err)
	}
	s, in, err := analysis.AnalyzeInput(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, s, Options{Input: &in}); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, results.ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	text := string(md)
	head := text[:strings.Index(text, "Setup: ")]
	head += text[strings.Index(text, "Setup: "):][:strings.Index(text[strings.Index(text, "Setup: "):], "\n")+1]
	load := text[strings.Index(text, "## Appendix: Experiment"):strings.Index(text, "### Testnet")]
	resultstest.Golden(t, filepath.Join("testdata", "timescale.md.golden"), []byte(head+"\n…\n\n"+load))
	var b bytes.Buffer
	Table(&b, s)
	if !strings.Contains(b.String(), "Scaled in time by k = 4: every time constant ×4, every rate ÷4; figures are in model time.") {
		t.Errorf("the terminal table does not say the run was scaled:\n%s", b.String())
	}
	if TimeScaleLine(1) != "" || TimeScaleLine(0) != "" {
		t.Error("a run in real time has a time-scale line")
	}
}
