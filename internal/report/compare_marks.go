package report

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/compare"
	"github.com/cometlab/cometlab/internal/results"
)

// compareMarks returns the perturbations of every run of the sides as one
// set of marks in the comparison plots' x (s since each run's load start,
// in model time): a band per perturbation, the same perturbation of
// several runs (the same label: "partition 50/50", "pause 1/1
// validator02") drawn as one band from the earliest begin to the latest
// end of the runs whose periods overlap, and a line for each node started
// during a load (a rotation's join, a restart) or exited on its own. Runs
// without events.csv add nothing; nil when no run has a mark.
func compareMarks(sides []compare.Side) (*eventMarks, error) {
	all := &eventMarks{}
	for _, s := range sides {
		for _, r := range s.Runs {
			ev, err := results.ReadEvents(r.Dir)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("perturbations of %s: %w", r.Dir, err)
			}
			if r.Run.LoadStart.IsZero() {
				continue
			}
			start, end := r.Run.LoadStart.UnixNano(), r.Run.Ended.UnixNano()
			loadEnd := int64(0)
			if !r.Run.LoadEnd.IsZero() {
				loadEnd = r.Run.LoadEnd.UnixNano()
			}
			if r.Run.Ended.IsZero() {
				end = loadEnd
			}
			m := newEventMarks(ev, start, loadEnd, end)
			if m == nil {
				continue
			}
			k := r.Run.Scale()
			for _, b := range m.bands {
				all.bands = append(all.bands, markBand{x0: b.x0 / k, x1: b.x1 / k, label: b.label})
			}
			for _, l := range m.lines {
				all.lines = append(all.lines, markLine{x: l.x / k, label: l.label, exit: l.exit})
			}
		}
	}
	all.bands = mergeBands(all.bands)
	if len(all.bands) == 0 && len(all.lines) == 0 {
		return nil, nil
	}
	if len(all.lines) > 0 && !all.labelled() {
		for i := range all.lines { // many runs' joins: lines only, the bands keep their labels
			all.lines[i].label = ""
		}
	}
	return all, nil
}

// mergeBands merges the bands of one label whose periods overlap, in
// order of begin.
func mergeBands(bs []markBand) []markBand {
	slices.SortStableFunc(bs, func(a, b markBand) int { return cmp.Or(cmp.Compare(a.label, b.label), cmp.Compare(a.x0, b.x0)) })
	var out []markBand
	for _, b := range bs {
		if n := len(out); n > 0 && out[n-1].label == b.label && b.x0 <= out[n-1].x1 {
			out[n-1].x1 = max(out[n-1].x1, b.x1)
			continue
		}
		out = append(out, b)
	}
	slices.SortStableFunc(out, func(a, b markBand) int { return cmp.Compare(a.x0, b.x0) })
	return out
}

// splitAtGaps returns the runs of pts (ascending x, in s) between which
// no two consecutive points are further apart than analysis.GapThreshold
// of their median step: a line is drawn through each run, none across a
// gap (a node down, a halt in a series sampled at each height).
func splitAtGaps(pts plotter.XYs) []plotter.XYs {
	if len(pts) < 2 {
		return []plotter.XYs{pts}
	}
	ts := make([]int64, len(pts))
	for i, p := range pts {
		ts[i] = int64(math.Round(p.X * results.NsPerS))
	}
	gap := float64(analysis.GapThreshold(analysis.MedianStep(ts))) / results.NsPerS
	var out []plotter.XYs
	from := 0
	for i := 1; i < len(pts); i++ {
		if pts[i].X-pts[i-1].X > gap {
			out = append(out, pts[from:i])
			from = i
		}
	}
	return append(out, pts[from:])
}

// addMarksLegend adds m's marks to p and their entries to its legend.
func addMarksLegend(p *plot.Plot, m *eventMarks) {
	entries := bandLegend(m)
	entries = append(entries, addMarks(p, m)...)
	for _, e := range entries {
		p.Legend.Add(e.name, e.thumb)
	}
}
