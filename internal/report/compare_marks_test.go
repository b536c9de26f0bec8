package report

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot/plotter"

	"github.com/cometlab/cometlab/internal/compare"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// TestSplitAtGaps checks that a series sampled each second and silent
// for 20 s is drawn as two lines, and an unbroken one as one.
func TestSplitAtGaps(t *testing.T) {
	var pts plotter.XYs
	for x := range 61 {
		if x <= 20 || x >= 40 {
			pts = append(pts, plotter.XY{X: float64(x), Y: 1})
		}
	}
	segs := splitAtGaps(pts)
	if len(segs) != 2 || segs[0][len(segs[0])-1].X != 20 || segs[1][0].X != 40 {
		t.Errorf("segments %v, want [0…20] and [40…60]", segs)
	}
	if segs := splitAtGaps(pts[:21]); len(segs) != 1 || len(segs[0]) != 21 {
		t.Errorf("unbroken: %d segments, want 1 of 21 points", len(segs))
	}
}

// TestCompareMarks checks that the same perturbation of several runs is
// one band from the earliest begin to the latest end, each in its own
// run's time since its load start (÷ its time scale), and that a run
// without events.csv adds nothing.
func TestCompareMarks(t *testing.T) {
	dir := t.TempDir()
	run := func(name string, start time.Time, scale float64, events ...string) compare.Run {
		d := filepath.Join(dir, name)
		if len(events) > 0 {
			resultstest.WriteFile(t, filepath.Join(d, results.EventsFile), []byte(results.EventsHeader+"\n"+strings.Join(events, "\n")+"\n"))
		}
		return compare.Run{Dir: d, Run: results.Run{LoadStart: start, LoadEnd: start.Add(60 * time.Second), TimeScale: scale}}
	}
	t0 := time.Unix(1_800_000_000, 0)
	at := func(start time.Time, s float64) int64 {
		return start.Add(time.Duration(s * float64(time.Second))).UnixNano()
	}
	t1 := t0.Add(time.Hour)
	sides := []compare.Side{
		{Label: "a", Runs: []compare.Run{
			run("a1", t0, 1, fmt.Sprintf("%d,,perturb-begin,partition 50/50", at(t0, 20)), fmt.Sprintf("%d,,perturb-end,", at(t0, 40))),
			run("a2", t1, 2, fmt.Sprintf("%d,,perturb-begin,partition 50/50", at(t1, 42)), fmt.Sprintf("%d,,perturb-end,", at(t1, 84))),
		}},
		{Label: "b", Runs: []compare.Run{
			run("b1", t0, 1, fmt.Sprintf("%d,validator02,perturb-begin,\"pause 1/1, down 8s\"", at(t0, 25)), fmt.Sprintf("%d,validator02,perturb-end,", at(t0, 33))),
			run("b2", t0, 1),
		}},
	}
	m, err := compareMarks(sides)
	if err != nil {
		t.Fatal(err)
	}
	want := []markBand{{20, 42, "partition 50/50"}, {25, 33, "pause 1/1 validator02"}}
	if m == nil || fmt.Sprint(m.bands) != fmt.Sprint(want) {
		t.Fatalf("bands %+v, want %+v", m, want)
	}
	if m, err := compareMarks(sides[1:][:0]); err != nil || m != nil {
		t.Errorf("no runs: %+v, %v; want nil", m, err)
	}
}
