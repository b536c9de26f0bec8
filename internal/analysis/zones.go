package analysis

import (
	"cmp"
	"slices"

	"github.com/cometlab/cometlab/internal/results"
)

// ZoneAdoption is how fast blocks reached one zone of a zoned testnet.
type ZoneAdoption struct {
	Zone  string
	Nodes []string // the zone's nodes that commit blocks, sorted
	// Reach is the distribution, over the blocks of the window the zone
	// committed, of the time from the block's first commit anywhere until
	// the zone's first node committed it, in ns: 0 for the zone that
	// commits first.
	Reach Distribution
	// All is the same until every node of the zone had committed it, over
	// the blocks all of them committed.
	All Distribution
}

// AnalyzeZoneAdoption returns, per zone of run.Zones (in its order), how
// long blocks first … last (0: unbounded) took to reach the zone, from
// adoption.csv's rows: the adoption CDF of each region. Nodes are those of
// run.Nodes with a zone, seeds left out. It is pure; nil without zones.
func AnalyzeZoneAdoption(rows []results.Adoption, run results.Run, first, last int64) []ZoneAdoption {
	if run.Zones == nil {
		return nil
	}
	zoneOf := map[string]string{}
	var out []ZoneAdoption
	for _, z := range run.Zones.Zones {
		za := ZoneAdoption{Zone: z}
		for _, n := range run.Nodes {
			if n.Zone == z && n.Mode != "seed" {
				za.Nodes = append(za.Nodes, n.Name)
				zoneOf[n.Name] = z
			}
		}
		slices.Sort(za.Nodes)
		out = append(out, za)
	}
	type key struct {
		height int64
		node   string
	}
	commit := map[key]int64{} // each node's earliest commit of a height
	firstAt := map[int64]int64{}
	for _, r := range rows {
		if (first != 0 && r.Height < first) || (last != 0 && r.Height > last) {
			continue
		}
		if f, ok := firstAt[r.Height]; !ok || r.At < f {
			firstAt[r.Height] = r.At
		}
		if _, ok := zoneOf[r.Node]; !ok {
			continue
		}
		k := key{r.Height, r.Node}
		if t, ok := commit[k]; !ok || r.At < t {
			commit[k] = r.At
		}
	}
	heights := make([]int64, 0, len(firstAt))
	for h := range firstAt {
		heights = append(heights, h)
	}
	slices.Sort(heights)
	for i := range out {
		var reach, all []float64
		for _, h := range heights {
			earliest, latest, seen := int64(0), int64(0), 0
			for _, n := range out[i].Nodes {
				t, ok := commit[key{h, n}]
				if !ok {
					continue
				}
				if seen == 0 || t < earliest {
					earliest = t
				}
				latest = max(latest, t)
				seen++
			}
			if seen == 0 {
				continue
			}
			reach = append(reach, float64(earliest-firstAt[h]))
			if seen == len(out[i].Nodes) {
				all = append(all, float64(latest-firstAt[h]))
			}
		}
		out[i].Reach, out[i].All = Describe(reach), Describe(all)
	}
	return out
}

// PairRoundTrip is the measured and the matrix's round trip between two
// zones.
type PairRoundTrip struct {
	From, To string  // zones; From's nodes dialled To's
	MatrixMs float64 // one-way From → To plus To → From
	N        int     // connections measured
	MinMs    float64 // smallest measured
	MedianMs float64 // median of the node pairs' medians
}

// ZoneRoundTrips sums run.Zones.RoundTrips up per ordered pair of
// different zones, in the zones' order, next to the matrix's round trip.
func ZoneRoundTrips(run results.Run) []PairRoundTrip {
	if run.Zones == nil {
		return nil
	}
	zoneOf := map[string]string{}
	for _, n := range run.Nodes {
		zoneOf[n.Name] = n.Zone
	}
	type acc struct {
		n       int
		min     float64
		medians []float64
	}
	by := map[[2]string]*acc{}
	for _, rt := range run.Zones.RoundTrips {
		a, b := zoneOf[rt.From], zoneOf[rt.To]
		if a == "" || b == "" || a == b {
			continue
		}
		k := [2]string{a, b}
		if by[k] == nil {
			by[k] = &acc{min: rt.MinMs}
		}
		by[k].n += rt.N
		by[k].min = min(by[k].min, rt.MinMs)
		by[k].medians = append(by[k].medians, rt.MedianMs)
	}
	var out []PairRoundTrip
	for k, a := range by {
		ab, _ := run.Zones.Delay(k[0], k[1])
		ba, _ := run.Zones.Delay(k[1], k[0])
		out = append(out, PairRoundTrip{From: k[0], To: k[1], MatrixMs: ab + ba, N: a.n, MinMs: a.min,
			MedianMs: Describe(a.medians).Percentile(50)})
	}
	rank := func(z string) int { return slices.Index(run.Zones.Zones, z) }
	slices.SortFunc(out, func(a, b PairRoundTrip) int {
		return cmp.Or(cmp.Compare(rank(a.From), rank(b.From)), cmp.Compare(rank(a.To), rank(b.To)))
	})
	return out
}
