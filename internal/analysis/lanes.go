package analysis

import (
	"github.com/cometlab/cometlab/internal/payload"
	"github.com/cometlab/cometlab/internal/results"
)

// LaneSummary is one mempool lane of a load (run.json load.lanes): the
// transactions that asked for it and their block latency. A lane's
// transactions are known from their connection and sequence number, as
// the generator picked them (payload.LanePicker).
type LaneSummary struct {
	ID       string `json:"id"`
	Priority int64  `json:"priority,omitempty"`
	Weight   uint64 `json:"weight"`
	// Sent and Committed count the lane's transactions (duplicates left
	// out of Committed).
	Sent      int64 `json:"sent_txs"`
	Committed int64 `json:"committed_txs"`
	// Block latencies in ms of its committed transactions; absent when
	// none.
	BlockP50 *float64 `json:"block_latency_p50_ms,omitempty"`
	BlockP95 *float64 `json:"block_latency_p95_ms,omitempty"`
	BlockP99 *float64 `json:"block_latency_p99_ms,omitempty"`
}

// laneLatency is one lane's counts and latencies (ns) in TxAggregates.
type laneLatency struct {
	sent, committed int64
	block           Sketch
}

// initLanes readies the per-lane aggregates of a load with lanes.
func (a *TxAggregates) initLanes(l results.Load) {
	if len(l.Lanes) == 0 {
		return
	}
	ws := make([]payload.LaneWeight, len(l.Lanes))
	for i, ln := range l.Lanes {
		ws[i] = payload.LaneWeight{ID: ln.ID, Weight: ln.Weight}
	}
	a.lanePick, a.lanes = payload.NewLanePicker(ws), make([]laneLatency, len(l.Lanes))
}

// laneOf returns the aggregates of the lane of (conn, seq), nil without
// lanes.
func (a *TxAggregates) laneOf(conn int, seq uint64) *laneLatency {
	if len(a.lanes) == 0 || conn < 0 {
		return nil
	}
	if i := a.lanePick.Index(uint64(conn), seq); i >= 0 {
		return &a.lanes[i]
	}
	return nil
}

// laneSummaries returns the lanes of run's load with their figures, nil
// without lanes.
func laneSummaries(a *TxAggregates, run results.Run) []LaneSummary {
	var out []LaneSummary
	for i, ln := range run.Load.Lanes {
		s := LaneSummary{ID: ln.ID, Priority: ln.Priority, Weight: ln.Weight}
		if i < len(a.lanes) {
			l := &a.lanes[i]
			s.Sent, s.Committed = l.sent, l.committed
			s.BlockP50, s.BlockP95, s.BlockP99 = sketchMs(&l.block, 50), sketchMs(&l.block, 95), sketchMs(&l.block, 99)
		}
		out = append(out, s)
	}
	return out
}

// sketchMs returns percentile p of the latencies (ns) of s in ms, nil
// when s is empty.
func sketchMs(s *Sketch, p float64) *float64 {
	if s.N() == 0 {
		return nil
	}
	v := s.Percentile(p) / results.NsPerMs
	return &v
}

// LaneLatency returns percentile p (0–100) of the block latencies (ns) of
// lane i's committed transactions (run.json load.lanes order); false when
// it has none.
func (a *TxAggregates) LaneLatency(i int, p float64) (float64, bool) {
	if i < 0 || i >= len(a.lanes) || a.lanes[i].block.N() == 0 {
		return 0, false
	}
	return a.lanes[i].block.Percentile(p), true
}
