package analysis

import (
	"math"
	"strings"

	"github.com/cometlab/cometlab/internal/results"
)

// nodeTimes returns, per node, the sample times of its longest series in
// metrics.csv: a scrape yields every series at once, so these are the
// scrape times.
func nodeTimes(set *SeriesSet) map[string][]int64 {
	out := map[string][]int64{}
	for _, s := range set.All() {
		if len(s.T) > len(out[s.Node]) {
			out[s.Node] = s.T
		}
	}
	return out
}

// gapAnomalies reports nodes without samples in metrics.csv or
// resources.csv while other nodes have some.
func gapAnomalies(in Input, b *builder, nodes []string, start int64) {
	endpoint := map[string]string{}
	for _, n := range in.Run.Nodes {
		endpoint[n.Name] = n.Metrics
	}
	if in.Metrics != nil && in.Metrics.Kept > 0 {
		for _, g := range NodeGaps(nodeTimes(in.Metrics), nodes) {
			switch {
			case g.Missing && endpoint[g.Node] == "":
				b.anomaly("%s has no sample in %s at all: run.json gives it no metrics endpoint", g.Node, results.MetricsFile)
			case g.Missing:
				b.anomaly("%s has no sample in %s at all: its metrics endpoint %s never answered", g.Node, results.MetricsFile, endpoint[g.Node])
			default:
				why := gapCause(in.Events, g.Node, g.From, g.To)
				if why == "" {
					why = "it died or its metrics endpoint stopped answering"
				}
				b.anomaly("%s has no sample in %s from %s to %s after the load start: %s; its plots have a gap there",
					g.Node, results.MetricsFile, relTime(g.From, start), relTime(g.To, start), why)
			}
		}
	}
	if len(in.Resources) > 0 {
		per := resourceRows(in.Resources)
		times := map[string][]int64{}
		for n, r := range per {
			times[n] = r.T
		}
		for _, g := range NodeGaps(times, nodes) {
			if g.Missing {
				b.anomaly("%s has no sample in %s at all: not a process cometlab could watch", g.Node, results.ResourceFile)
				continue
			}
			why := "its process was gone"
			switch c := gapCause(in.Events, g.Node, g.From, g.To); {
			case strings.HasPrefix(c, "it was down"):
				why = c
			case c != "":
				why += " (" + c + ")"
			}
			b.anomaly("%s has no sample in %s from %s to %s after the load start: %s", g.Node, results.ResourceFile, relTime(g.From, start), relTime(g.To, start), why)
		}
	}
}

// NodeGaps returns the gaps in the sampling of each of nodes, given each
// node's ascending sample times: the period covered is from the earliest
// sample of any node to the latest; a gap is longer than GapThreshold of
// the median sampling interval, or the whole period for a node without
// samples. Gaps come in the order of nodes, then time.
func NodeGaps(times map[string][]int64, nodes []string) []Gap {
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	var all [][]int64
	for _, t := range times {
		if len(t) > 0 {
			lo, hi = min(lo, t[0]), max(hi, t[len(t)-1])
			all = append(all, t)
		}
	}
	if lo > hi {
		return nil
	}
	thr := GapThreshold(MedianStep(all...))
	var out []Gap
	for _, n := range nodes {
		t := times[n]
		if len(t) == 0 {
			out = append(out, Gap{Node: n, From: lo, To: hi, Missing: true})
			continue
		}
		for _, g := range FindGaps(t, lo, hi, thr) {
			out = append(out, Gap{Node: n, From: g[0], To: g[1]})
		}
	}
	return out
}
