package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/saturation"
)

// The QA report's plots beside its tables, as the published reports draw
// them: the latency–throughput curve of the saturation grids, each
// vote-extension size's latency and block rate, the rotation test's
// heights.

// qaCurve is the latency–throughput curve's series of both sides' grids:
// one a side and connection count, labelled with the side.
func qaCurve(sats []QASaturation) []CurveSeries {
	var out []CurveSeries
	for _, s := range sats {
		if s.Grid == nil {
			continue
		}
		for _, c := range sweepCurve(saturation.Tables(s.Grid.GridCells())) {
			c.Label = s.Label + " " + c.Label
			out = append(out, c)
		}
	}
	return out
}

// qaSweepPlots shows, for each value of a sweep step's setting (the
// vote-extension sizes), its first finished run's latency and blocks per
// minute side by side, as the v0.38 report shows each extension size's:
// a table of a row per value.
func (m mdWriter) qaSweepPlots(dir, sweepDir string, rec saturation.SweepRecord) {
	if len(rec.Grid.Params) == 0 {
		return
	}
	key := rec.Grid.Params[0].Key
	var rows [][]string
	seen := map[string]bool{}
	for _, c := range rec.Cells {
		v := c.Params[key]
		if seen[v] || (c.Status != results.StatusComplete && c.Status != results.StatusPartial) {
			continue
		}
		row := []string{v}
		found := false
		for _, name := range []string{"latency.png", "block_rate.png"} {
			img, ok := qaRunPlot(dir, sweepDir+"/"+c.Dir, name, strings.TrimSuffix(name, ".png")+", "+v)
			if !ok {
				img = "—"
			}
			row = append(row, img)
			found = found || ok
		}
		if found {
			seen[v] = true
			rows = append(rows, row)
		}
	}
	if len(rows) == 0 {
		return
	}
	m.table([]string{key, "block latency per transaction", "blocks per minute, per node"}, "lll", rows)
	m.f("Each value's first finished run: the block latency of every transaction against its send time (the red dashed line, the mean) " +
		"and the blocks each node committed per minute. As in the v0.38 report's vote-extension plots, larger extensions " +
		"show as latencies that vary more and rise, and as fewer blocks per minute (heights needing more rounds).\n\n")
}

// qaRotationHeights shows the heights of every node, the ephemeral ones
// included, in the first run of each side of the rotation test (its runs
// come in rounds, a run a side each: the first two are round 1's), as the
// v0.38 report's rotating_eph_heights plot shows the ephemeral nodes'.
func (m mdWriter) qaRotationHeights(dir string, runs []string) {
	var shown []string
	for _, r := range runs[:min(2, len(runs))] {
		if img, ok := qaRunPlot(dir, r, "heights.png", "Heights, "+filepath.Base(r)); ok {
			shown = append(shown, img)
		}
	}
	if len(shown) == 0 {
		return
	}
	m.f("%s\n\nThe height of every node over time in round 1's run of each side (adoption.csv: each node's commits, block-synced "+
		"ones included), the ephemeral nodes' (ephemeral01…) from their first block after a start from an empty data "+
		"directory to their stop. Each ephemeral line should climb steeply to the validators' line (caught up) and follow it "+
		"until it is stopped and wiped; a line that stays below never caught up, and lives that climb for longer as the "+
		"chain grows show catch-up time growing with the chain's height, as the published rotation test does.\n\n",
		strings.Join(shown, "\n"))
}

// qaRunPlot is the Markdown image of the plot name of the run directory
// run (relative to the QA directory dir), with alt text alt; false when
// the run has no such plot.
func qaRunPlot(dir, run, name, alt string) (string, bool) {
	rel := run + "/" + results.PlotsDir + "/" + name
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(rel))); err != nil {
		return "", false
	}
	return fmt.Sprintf("![%s](%s)", alt, rel), true
}
