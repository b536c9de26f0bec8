package analysis

import (
	"math"
	"slices"

	"github.com/cometlab/cometlab/internal/results"
)

// MempoolByHeight puts mempool.csv's rows on a grid of heights: one column
// per height that any of nodes sampled, in height order, at the time of
// its earliest sample (at, Unix ns), with vals[i][k] the transactions in
// nodes[i]'s mempool right after it committed heights[k] (NaN where it has
// no row; of two rows for the same node and height, the earlier).
func MempoolByHeight(rows []results.MempoolSample, nodes []string) (heights, at []int64, vals [][]float64) {
	type key struct {
		h int64
		n int
	}
	first := map[key]results.MempoolSample{}
	col := map[int64]int64{} // height → earliest sample
	for _, r := range rows {
		i := slices.Index(nodes, r.Node)
		if i < 0 {
			continue
		}
		if old, ok := first[key{r.Height, i}]; !ok || r.At < old.At {
			first[key{r.Height, i}] = r
		}
		if t, ok := col[r.Height]; !ok || r.At < t {
			col[r.Height] = r.At
		}
	}
	for h := range col {
		heights = append(heights, h)
	}
	slices.Sort(heights)
	vals = make([][]float64, len(nodes))
	for i := range nodes {
		vals[i] = make([]float64, len(heights))
		for k, h := range heights {
			vals[i][k] = math.NaN()
			if r, ok := first[key{h, i}]; ok {
				vals[i][k] = float64(r.Txs)
			}
		}
	}
	for _, h := range heights {
		at = append(at, col[h])
	}
	return heights, at, vals
}
