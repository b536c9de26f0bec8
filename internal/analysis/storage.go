package analysis

import "math"

// pruningFigures puts each node's block store base (the lowest height it
// still stores, v1.0's state_block_store_base_height) and flags a run
// whose app asked for pruning (the e2e app's retain_blocks) that ran long
// enough to prune but where no node did.
func pruningFigures(in Input, set *SeriesSet, b *builder, nodes []string) {
	base := math.NaN()
	seen := false
	for _, n := range nodes {
		s := set.One(n, "state_block_store_base_height")
		if s == nil {
			continue
		}
		seen = true
		v := maxOf(s.V)
		b.putNode(n, "block_store_base_height", v)
		if !(v <= base) {
			base = v
		}
	}
	if seen {
		b.put("block_store_base_height", base, "no sample of state_block_store_base_height")
	}
	retain, _ := in.Run.AppConfig["retain_blocks"].(float64)
	if r, ok := in.Run.AppConfig["retain_blocks"].(int64); ok {
		retain = float64(r)
	}
	if retain <= 0 || in.Run.LastHeight <= int64(retain)+10 {
		return
	}
	switch {
	case !seen:
		b.note("app.retain_blocks = %.0f: whether blocks were pruned is not checked (this release exposes no state_block_store_base_height)", retain)
	case !(base > 1):
		b.anomaly("app.retain_blocks = %.0f and the chain reached height %d, but no node pruned a block (state_block_store_base_height stayed at %.0f)",
			retain, in.Run.LastHeight, base)
	}
}
