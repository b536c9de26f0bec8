package analysis

import (
	"cmp"
	"math"
	"slices"

	"github.com/cometlab/cometlab/internal/results"
)

// CommitCPUSeries returns, for each of nodes that has commitcpu.csv rows
// (in that order), the CPU its process used between consecutive heard
// commits in % of one core (200 = two cores busy), placed at the later
// commit: each point is the work of whole block intervals, so the series
// does not beat against the block interval as fixed-interval samples do.
// The first row of a process (a new PID: a restart) starts a new
// baseline, and a point that follows its predecessor by more than gap ns
// (0: GapThreshold of the node's median interval between rows) is NaN, so
// that a line is broken rather than drawn across the hole.
func CommitCPUSeries(rows []results.CommitCPU, nodes []string, gap int64) []*Series {
	per := map[string][]results.CommitCPU{}
	for _, r := range rows {
		if slices.Contains(nodes, r.Node) {
			per[r.Node] = append(per[r.Node], r)
		}
	}
	var out []*Series
	for _, n := range nodes {
		rs := per[n]
		if len(rs) < 2 {
			continue
		}
		slices.SortStableFunc(rs, func(a, b results.CommitCPU) int { return cmp.Compare(a.At, b.At) })
		nodeGap := gap
		if nodeGap <= 0 {
			at := make([]int64, len(rs))
			for i, r := range rs {
				at[i] = r.At
			}
			nodeGap = GapThreshold(MedianStep(at))
		}
		s := &Series{Node: n}
		for i := 1; i < len(rs); i++ {
			a, b := rs[i-1], rs[i]
			dt := b.At - a.At
			if a.PID != b.PID || dt <= 0 || b.CPU < a.CPU {
				continue
			}
			v := float64(b.CPU-a.CPU) / float64(dt) * 100
			if dt > nodeGap {
				v = math.NaN()
			}
			s.T, s.V = append(s.T, b.At), append(s.V, v)
		}
		if len(s.T) > 0 {
			out = append(out, s)
		}
	}
	return out
}
