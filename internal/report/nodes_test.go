package report

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// trendPlots are the plots of loads of at least analysis.TrendMinDuration.
var trendPlots = map[string]bool{"trend_tps.png": true, "trend_latency.png": true}

// checkPlots checks that every plot of the report is in dir/plots and
// decodes as a PNG of the default size, and that report.html inlines them
// all and passes checkPage.

func checkPlots(t *testing.T, dir string) {
	t.Helper()
	run, err := results.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, sp := range plotSpecs() {
		if trendPlots[sp.file] && run.Load.DurationS < analysis.TrendMinDuration {
			continue // drawn for loads of 5 minutes or more only (TestTrendSection)
		}
		if sp.file == "clients_tps.png" && len(run.Load.Clients) == 0 {
			continue // for loads of several clients only (TestClientsPlot)
		}
		if sp.file == "lanes_latency.png" && len(run.Load.Lanes) == 0 {
			continue // for loads over mempool lanes only (TestLanesPlot)
		}
		if sp.file == "zone_adoption_cdf.png" && run.Zones == nil {
			continue // for testnets with zones only (TestZonesSection)
		}
		want++
		path := filepath.Join(dir, results.PlotsDir, sp.file)
		f, err := os.Open(path)
		if err != nil {
			t.Errorf("plot %s: %v", sp.file, err)
			continue
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Errorf("decode %s: %v", sp.file, err)
			continue
		}
		if w, h := wantPlotSize(); img.Bounds().Dx() != w || img.Bounds().Dy() != h {
			t.Errorf("%s is %d×%d, want %d×%d", sp.file, img.Bounds().Dx(), img.Bounds().Dy(), w, h)
		}
	}
	page, err := os.ReadFile(filepath.Join(dir, results.ReportHTML))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(page, []byte(`<img src="data:image/png;base64,`)); n != want {
		t.Errorf("report.html inlines %d images, want %d", n, want)
	}
	if bytes.Contains(page, []byte(`src="plots/`)) {
		t.Error("report.html refers to a plot file")
	}
	checkPage(t, results.ReportHTML, page)
}

func TestQARun(t *testing.T) {
	if resultstest.Updating() {
		writeQARun(t, qaRun)
	}
	dir := copyRun(t, qaRun)
	s, err := analysis.Analyze(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, s, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{results.SummaryFile, results.ReportFile} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		resultstest.Golden(t, filepath.Join("testdata", "qa", f+".golden"), b)
	}
	checkPlots(t, dir)
	md, err := os.ReadFile(filepath.Join(dir, results.ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(md, []byte("No plot")) {
		t.Errorf("a plot is missing from the QA run's report")
	}
	// Keep the plots to look at: go test -v -run TestQARun ./internal/report/
	keepReport(t, dir, "cometlab-qa-report")
}

// keepReport copies the run directory dir to name under the temporary
// directory when the test runs with -v, so its report can be looked at.
func keepReport(t *testing.T, dir, name string) {
	t.Helper()
	if !testing.Verbose() {
		return
	}
	out := filepath.Join(os.TempDir(), name)
	if err := os.RemoveAll(out); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(out, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	t.Logf("report in %s", out)
}

// rewriteCSV rewrites the CSV file name (or name.gz) of dir keeping the
// rows keep accepts (header kept).
func rewriteCSV(t *testing.T, dir, name string, keep func(fields []string) bool) {
	t.Helper()
	path := filepath.Join(dir, name)
	rc, err := results.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	var out strings.Builder
	for i, l := range lines {
		if i == 0 || l == "" || keep(strings.Split(strings.TrimSpace(l), ",")) {
			out.WriteString(l)
		}
	}
	if err := os.Remove(path + ".gz"); err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	resultstest.WriteFile(t, path, []byte(out.String()))
}

func TestNodeSeriesGaps(t *testing.T) {
	run, err := results.ReadRun(qaRun)
	if err != nil {
		t.Fatal(err)
	}
	half := run.LoadStart.Add(30 * time.Second).UnixNano()
	before := func(f []string) bool {
		t, err := strconv.ParseInt(f[0], 10, 64)
		return err == nil && t <= half
	}
	tests := []struct {
		name    string
		prepare func(t *testing.T, dir string)
		want    []string
	}{
		{
			name: "node dies halfway",
			prepare: func(t *testing.T, dir string) {
				rewriteCSV(t, dir, results.MetricsFile, func(f []string) bool { return f[1] != "validator02" || before(f) })
				rewriteCSV(t, dir, results.ResourceFile, func(f []string) bool { return f[1] != "validator02" || before(f) })
			},
			// Its last sample before the cut is 29.0 s after the load start.
			want: []string{
				"validator02 has no sample in metrics.csv from 29.0 s to 70.0 s after the load start: it died or its metrics endpoint stopped answering; its plots have a gap there",
				"validator02 has no sample in resources.csv from 29.0 s to 70.0 s after the load start",
			},
		},
		{
			name: "node without a metrics endpoint",
			prepare: func(t *testing.T, dir string) {
				rewriteCSV(t, dir, results.MetricsFile, func(f []string) bool { return f[1] != "validator01" })
				r, err := results.ReadRun(dir)
				if err != nil {
					t.Fatal(err)
				}
				r.Nodes[1].Metrics = ""
				if err := results.WriteJSON(filepath.Join(dir, results.RunFile), r); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"validator01 has no sample in metrics.csv at all: run.json gives it no metrics endpoint"},
		},
		{
			name: "no metrics.csv",
			prepare: func(t *testing.T, dir string) {
				if err := os.Remove(filepath.Join(dir, results.MetricsFile+".gz")); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{
				"metrics.csv not found: nothing was gathered for it",
				"*No plot of mempool size, stacked over nodes: metrics.csv not found.*",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := copyRun(t, qaRun)
			tt.prepare(t, dir)
			s, err := analysis.Analyze(dir)
			if err != nil {
				t.Fatal(err)
			}
			if err := Write(dir, s, Options{PlotWidth: 320, PlotHeight: 200}); err != nil {
				t.Fatal(err)
			}
			md, err := os.ReadFile(filepath.Join(dir, results.ReportFile))
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !bytes.Contains(md, []byte(w)) {
					t.Errorf("report lacks %q; anomalies: %q", w, s.Anomalies)
				}
			}
			// Whatever is missing, the plots that can be drawn are: the
			// block and transaction rates fall back to adoption.csv.
			for _, f := range []string{"block_rate.png", "total_txs_rate.png", "latency.png", "adoption_cdf.png"} {
				if _, err := os.Stat(filepath.Join(dir, results.PlotsDir, f)); err != nil {
					t.Errorf("plot %s: %v", f, err)
				}
			}
		})
	}
}

// TestWriteWithInput checks that a report from records already read
// (Options.Input) is the report Write makes reading the files itself.
func TestWriteWithInput(t *testing.T) {
	a, b := copyRun(t, smallRun), copyRun(t, smallRun)
	in, err := analysis.ReadInput(a)
	if err != nil {
		t.Fatal(err)
	}
	s := analysis.Summarize(in)
	opts := Options{PlotWidth: 320, PlotHeight: 200}
	if err := Write(b, s, opts); err != nil {
		t.Fatal(err)
	}
	opts.Input = &in
	if err := Write(a, s, opts); err != nil {
		t.Fatal(err)
	}
	ma, _ := os.ReadFile(filepath.Join(a, results.ReportFile))
	mb, _ := os.ReadFile(filepath.Join(b, results.ReportFile))
	if len(ma) == 0 || !bytes.Equal(ma, mb) {
		t.Errorf("report.md differs with Options.Input:\n%s", resultstest.Diff(string(mb), string(ma)))
	}
}

// TestHeld checks that a rate of commits holds its value between its
// points for Align: 0 through a halt, not a gap in the average.
func TestHeld(t *testing.T) {
	const s = int64(time.Second)
	h := held(&analysis.Series{Node: "a", T: []int64{0, s, 5 * s}, V: []float64{3, 0, 6}}, s)
	want := []float64{3, 0, 0, 0, 0, 6}
	if len(h.T) != len(want) || fmt.Sprint(h.V) != fmt.Sprint(want) || h.T[4] != 4*s {
		t.Errorf("held = %v %v, want values %v each second", h.T, h.V, want)
	}
	_, vals := analysis.Align([]*analysis.Series{h}, s)
	for k, v := range vals[0] {
		if math.IsNaN(v) {
			t.Errorf("aligned value %d is NaN", k)
		}
	}
}
