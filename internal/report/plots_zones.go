package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
)

// cdfCurve is one curve of a CDF plot: x in ms, y the fraction of the
// blocks.
type cdfCurve struct {
	label  string
	color  int // nodeColor index
	dashed bool
	xs, ys []float64
}

// String writes the curve as its label and points, one a line: the plot
// data the golden test reads.
func (c cdfCurve) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (colour %d, dashed %v)\n", c.label, c.color, c.dashed)
	for i := range c.xs {
		fmt.Fprintf(&b, "  %.3f ms  %.4f\n", c.xs[i], c.ys[i])
	}
	return b.String()
}

// zoneAdoptionCurves returns, for each zone with nodes that commit blocks,
// the CDF over the window's blocks of the time from a block's first commit
// anywhere until the zone's first node committed it (solid) and, for a
// zone of several nodes, until all of them had (dashed, same colour). y is
// the fraction of all the window's blocks, so a zone that missed blocks
// stays below 1.
func zoneAdoptionCurves(zas []analysis.ZoneAdoption) []cdfCurve {
	var out []cdfCurve
	for i, za := range zas {
		if len(za.Nodes) == 0 {
			continue
		}
		for _, part := range []struct {
			d      analysis.Distribution
			label  string
			dashed bool
		}{
			{za.Reach, fmt.Sprintf("%s: first of %d nodes (p50 %s)", za.Zone, len(za.Nodes), msQ(za.Reach, 50)), false},
			{za.All, fmt.Sprintf("%s: all %d nodes (p50 %s)", za.Zone, len(za.Nodes), msQ(za.All, 50)), true},
		} {
			if part.d.N == 0 || (part.dashed && len(za.Nodes) == 1) {
				continue
			}
			if len(za.Nodes) == 1 {
				part.label = fmt.Sprintf("%s: %s (p50 %s)", za.Zone, za.Nodes[0], msQ(za.Reach, 50))
			}
			xs, ys := cdfXY(part.d.Sorted(), 1e-6)
			for j := range ys {
				ys[j] *= float64(part.d.N) / float64(max(za.Blocks, part.d.N))
			}
			out = append(out, cdfCurve{label: part.label, color: i, dashed: part.dashed, xs: xs, ys: ys})
		}
	}
	return out
}

// zoneAdoptionCDF draws zoneAdoptionCurves for a run with [zones].
func (d *plotData) zoneAdoptionCDF() ([]byte, error) {
	if d.run.Zones == nil {
		return nil, noData("a testnet without zones")
	}
	if len(d.in.Adoption) == 0 {
		if slices.Contains(d.in.Missing, results.AdoptionFile) {
			return nil, noData(results.AdoptionFile + " not found")
		}
		return nil, noData(results.AdoptionFile + " has no rows")
	}
	zas := analysis.AnalyzeZoneAdoption(d.in.Adoption, d.run, d.run.FirstHeight, d.run.LastHeight)
	curves := zoneAdoptionCurves(zas)
	if len(curves) == 0 {
		return nil, noData("no zone committed a block of the run's height range")
	}
	c := newChart(fmt.Sprintf("Block adoption per zone (%d blocks, %d zones)", zas[0].Blocks, len(zas)),
		"time since the block's first commit on any node (ms)", "fraction of blocks")
	c.inside = true
	hi := 0.0
	for _, cv := range curves {
		c.add(cv.label, c.line(cv.xs, cv.ys, nodeColor(cv.color), 1.8, cv.dashed))
		hi = max(hi, cv.xs[len(cv.xs)-1])
	}
	c.p.X.Min, c.p.X.Max = 0, max(hi*1.03, 1)
	c.yrange(0, 1.02)
	return c.render(d.w, d.h)
}
