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
	if TimeScaleLine(analysis.Summary{TimeScale: 1}) != "" || TimeScaleLine(analysis.Summary{}) != "" {
		t.Error("a run in real time has a time-scale line")
	}
}

// TestTimeScaleAutoLine checks the top line of a run whose k time_scale =
// "auto" chose: the choice and its reason, in real time too, and the
// host saturated anyway when host_busy_mean_pct passes the limit; and of
// a run at a given k, saturated or not (a run in real time has none).
func TestTimeScaleAutoLine(t *testing.T) {
	auto := &results.TimeScaleAuto{Chosen: 4, Reason: "k = 4 is the smallest that keeps the host within its 90 % limit"}
	for _, c := range []struct {
		name string
		s    analysis.Summary
		want []string
		not  string
	}{
		{"chosen 4, quiet", analysis.Summary{TimeScale: 4, TimeScaleAuto: auto, Metrics: map[string]float64{"host_busy_mean_pct": 60}},
			[]string{"Scaled in time by k = 4", `time_scale = "auto" chose k = 4: k = 4 is the smallest`}, "saturated anyway"},
		{"chosen 4, saturated anyway", analysis.Summary{TimeScale: 4, TimeScaleAuto: auto, Metrics: map[string]float64{"host_busy_mean_pct": 97}},
			[]string{"The host was saturated anyway: 97 % busy during the load (mean), above its 90 % limit"}, ""},
		{"chosen 1", analysis.Summary{TimeScaleAuto: &results.TimeScaleAuto{Chosen: 1, Reason: "in real time the host is 40 % busy"}},
			[]string{`time_scale = "auto" chose k = 1: in real time the host is 40 % busy.`}, "Scaled in time"},
		{"k = 32 given, saturated", analysis.Summary{TimeScale: 32, Metrics: map[string]float64{"host_busy_mean_pct": 98}},
			[]string{"Scaled in time by k = 32", "The host was saturated: 98 % busy during the load (mean), above its 90 % limit, so the nodes queued for CPU and the figures of time are upper bounds"}, "auto"},
		{"k = 32 given, quiet", analysis.Summary{TimeScale: 32, Metrics: map[string]float64{"host_busy_mean_pct": 50}},
			[]string{"Scaled in time by k = 32"}, "saturated"},
		{"real time, saturated: what a saturation run measures", analysis.Summary{Metrics: map[string]float64{"host_busy_mean_pct": 99}},
			nil, "saturated"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := TimeScaleLine(c.s)
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("line %q lacks %q", got, w)
				}
			}
			if c.not != "" && strings.Contains(got, c.not) {
				t.Errorf("line %q holds %q", got, c.not)
			}
		})
	}
}
