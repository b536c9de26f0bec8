package analysis

import (
	"cmp"
	"math"
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
	// Blocks is the number of heights of the window any node committed:
	// the blocks Reach and All would count if the zone had committed
	// them all.
	Blocks int
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
		out[i].Reach, out[i].All, out[i].Blocks = Describe(reach), Describe(all), len(heights)
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
// different zones, in the zones' order, next to the matrix's round trip; a
// time-scaled run's measured round trips are turned into model time.
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
	scale := run.Scale() // the relays measure the host's time; the matrix is the model's
	var out []PairRoundTrip
	for k, a := range by {
		ab, _ := run.Zones.Delay(k[0], k[1])
		ba, _ := run.Zones.Delay(k[1], k[0])
		out = append(out, PairRoundTrip{From: k[0], To: k[1], MatrixMs: ab + ba, N: a.n, MinMs: a.min / scale,
			MedianMs: Describe(a.medians).Percentile(50) / scale})
	}
	rank := func(z string) int { return slices.Index(run.Zones.Zones, z) }
	slices.SortFunc(out, func(a, b PairRoundTrip) int {
		return cmp.Or(cmp.Compare(rank(a.From), rank(b.From)), cmp.Compare(rank(a.To), rank(b.To)))
	})
	return out
}

// heightTimes is the earliest commit (Unix ns) of each height lo … lo +
// len(at) − 1 by a set of nodes: 0 where none of them committed it.
type heightTimes struct {
	lo int64
	at []int64
}

// newHeightTimes returns the earliest commit of each height by the nodes
// for which in is true, from adoption.csv's rows.
func newHeightTimes(rows []results.Adoption, in func(node string) bool) heightTimes {
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for i := range rows {
		if r := &rows[i]; in(r.Node) {
			lo, hi = min(lo, r.Height), max(hi, r.Height)
		}
	}
	if lo > hi {
		return heightTimes{}
	}
	h := heightTimes{lo: lo, at: make([]int64, hi-lo+1)}
	for i := range rows {
		if r := &rows[i]; in(r.Node) && (h.at[r.Height-lo] == 0 || r.At < h.at[r.Height-lo]) {
			h.at[r.Height-lo] = r.At
		}
	}
	return h
}

// empty reports whether none of the nodes committed any height.
func (h heightTimes) empty() bool { return len(h.at) == 0 }

// of returns the earliest commit of height, and false when none of the
// nodes committed it.
func (h heightTimes) of(height int64) (int64, bool) {
	i := height - h.lo
	if i < 0 || i >= int64(len(h.at)) || h.at[i] == 0 {
		return 0, false
	}
	return h.at[i], true
}

// zoneLatency gathers the latency seen from one zone.
type zoneLatency struct {
	zone   string
	target bool
	at     heightTimes // the zone's first commit of each height
	lat    Sketch
}

// newZoneLatencies returns one zoneLatency per zone of run.Zones, in its
// order; nil without zones.
func newZoneLatencies(run results.Run, adoption []results.Adoption) []zoneLatency {
	if run.Zones == nil {
		return nil
	}
	zoneOf := map[string]string{}
	for _, n := range run.Nodes {
		zoneOf[n.Name] = n.Zone
	}
	out := make([]zoneLatency, len(run.Zones.Zones))
	for i, z := range run.Zones.Zones {
		out[i] = zoneLatency{zone: z, target: zoneOf[run.Target] == z,
			at: newHeightTimes(adoption, func(node string) bool { return zoneOf[node] == z })}
	}
	return out
}

// ZoneLatency is the latency of the load's transactions seen from one zone
// of a zoned testnet: the time from a transaction's send until the zone's
// first node committed its block (adoption.csv, the clock of the host that
// sent it), what a client in that zone watching its nearest node would
// see. The observed latency is the same seen from the target alone.
type ZoneLatency struct {
	Zone   string
	Target bool // the load target is in the zone
	// Latency holds the latencies in ns of the committed transactions
	// (duplicates left out) whose height one of the zone's nodes was seen
	// committing.
	Latency Distribution
}

// ZoneLatencies returns the latency seen from each zone of a zoned run,
// in the zones' order; nil without zones. Call it after Seal.
func (a *TxAggregates) ZoneLatencies() []ZoneLatency {
	var out []ZoneLatency
	for i := range a.zones {
		z := &a.zones[i]
		out = append(out, ZoneLatency{Zone: z.zone, Target: z.target, Latency: z.lat.Describe()})
	}
	return out
}
