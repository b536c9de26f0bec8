package analysis

import (
	"github.com/cometlab/cometlab/internal/results"
)

// BlockLatencies returns the block latency (commit time − send time, ns)
// of each committed transaction with a commit time, duplicates left out,
// in the order of txs: the sample of the block_latency_* figures.
func BlockLatencies(txs []results.Tx) []float64 {
	out := make([]float64, 0, len(txs))
	for i := range txs {
		if t := &txs[i]; !t.Duplicate && t.CommitTime != 0 {
			out = append(out, float64(t.Latency()))
		}
	}
	return out
}

// ObservedLatencies returns the observed latency (the target node's
// commit of the height, adoption.csv − send time, ns) of each committed
// transaction, duplicates left out, whose height the target was seen
// committing: the sample of the observed_latency_* figures.
func ObservedLatencies(in Input) []float64 {
	at := map[int64]int64{}
	for i := range in.Adoption {
		if a := &in.Adoption[i]; a.Node == in.Run.Target {
			if t, ok := at[a.Height]; !ok || a.At < t {
				at[a.Height] = a.At
			}
		}
	}
	if len(at) == 0 {
		return nil
	}
	out := make([]float64, 0, len(in.Txs))
	for i := range in.Txs {
		t := &in.Txs[i]
		if a, ok := at[t.Height]; ok && !t.Duplicate {
			out = append(out, float64(a-t.Sent))
		}
	}
	return out
}
