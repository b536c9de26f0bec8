package analysis

import (
	"math"
	"slices"

	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/stats"
)

// Rotation figures: ephemeral nodes that start, block-sync from the
// network and report being caught up (caught-up events of events.csv).

// CatchUp is one ephemeral node's sync, from its start to its caught-up
// event.
type CatchUp struct {
	Node string `json:"node"`
	// StartS is the node's start since the load start; CatchUpS the time
	// from it to the caught-up event.
	StartS   float64 `json:"start_s"`
	CatchUpS float64 `json:"catch_up_s"`
	// StartHeight is the network's height when the node started (the
	// highest height the other nodes had committed, adoption.csv);
	// Height the network's height when it caught up.
	StartHeight int64 `json:"start_height"`
	Height      int64 `json:"height"`
	// BlocksPerS is Height ÷ CatchUpS: a node syncing from genesis
	// fetched and executed that many blocks per second.
	BlocksPerS float64 `json:"blocks_per_s"`
}

// CatchUps returns each caught-up event of ev paired with the latest
// start of its node before it, in time order; start is the load start
// (Unix ns).
func CatchUps(ev []results.Event, adoption []results.Adoption, start int64) []CatchUp {
	ev = sortedEvents(ev)
	var byNode map[string][]results.Adoption
	tips := map[string]tipFunc{}
	tip := func(node string) tipFunc {
		if t, ok := tips[node]; ok {
			return t
		}
		if byNode == nil {
			byNode = map[string][]results.Adoption{}
			for _, a := range adoption {
				byNode[a.Node] = append(byNode[a.Node], a)
			}
		}
		tips[node] = newTip(byNode, node)
		return tips[node]
	}
	started := map[string]int64{}
	var out []CatchUp
	for _, e := range ev {
		switch e.Kind {
		case results.EventStart:
			started[e.Node] = e.At
		case results.EventCaughtUp:
			from, ok := started[e.Node]
			if !ok {
				continue
			}
			delete(started, e.Node)
			tf := tip(e.Node)
			c := CatchUp{Node: e.Node, StartS: float64(from-start) / 1e9, CatchUpS: float64(e.At-from) / 1e9,
				StartHeight: tf.at(from), Height: tf.at(e.At)}
			if c.CatchUpS > 0 {
				c.BlocksPerS = float64(c.Height) / c.CatchUpS
			}
			out = append(out, c)
		}
	}
	return out
}

// RotationStats are the summary figures of a rotation's catch-ups.
type RotationStats struct {
	N                   int
	Mean, P50, P99, Max float64 // catch-up time, s
	BlocksPerSMean      float64
	SlopeMSPerHeight    float64 // least-squares slope of catch-up time (ms) on the start height; NaN with fewer than 2 distinct heights
}

// SummarizeCatchUps returns the summary figures of cs.
func SummarizeCatchUps(cs []CatchUp) RotationStats {
	st := RotationStats{N: len(cs), Mean: math.NaN(), P50: math.NaN(), P99: math.NaN(), Max: math.NaN(), BlocksPerSMean: math.NaN(), SlopeMSPerHeight: math.NaN()}
	if len(cs) == 0 {
		return st
	}
	ts, rates, hs := make([]float64, len(cs)), make([]float64, len(cs)), make([]float64, len(cs))
	for i, c := range cs {
		ts[i], rates[i], hs[i] = c.CatchUpS, c.BlocksPerS, float64(c.StartHeight)
	}
	st.Mean, st.BlocksPerSMean = stats.Mean(ts), stats.Mean(rates)
	sorted := slices.Clone(ts)
	slices.Sort(sorted)
	st.P50, st.P99, st.Max = stats.Percentile(sorted, 50), stats.Percentile(sorted, 99), sorted[len(sorted)-1]
	if l, ok := stats.FitLine(hs, ts); ok {
		st.SlopeMSPerHeight = l.Slope * 1000
	}
	return st
}

// Ephemeral reports whether node is a rotation's ephemeral node, one with a
// caught-up event: it is stopped and wiped between its lives, so falling
// behind or missing heights is what it does, not an anomaly.
func Ephemeral(ev []results.Event, node string) bool {
	for i := range ev {
		if ev[i].Node == node && ev[i].Kind == results.EventCaughtUp {
			return true
		}
	}
	return false
}
