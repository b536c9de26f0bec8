package analysis

import (
	"cmp"
	"slices"

	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/stats"
)

// throughput puts expected_txs, throughput_ratio and committed_tps.
// lastCommit is the last commit time of a run transaction (Unix ns, 0 if
// none) and start the load start (0 if unknown).
func throughput(in Input, b *builder, committed int64, start, lastCommit int64) {
	expected := in.Run.Load.ExpectedTxs()
	b.put("expected_txs", float64(expected), "")
	if expected > 0 {
		b.put("throughput_ratio", float64(committed)/float64(expected), "")
	} else {
		b.note("throughput_ratio not computed: the expected load c × r × duration is 0")
	}

	// span = max(load duration, last commit − load start), in s.
	span := in.Run.Load.DurationS
	if start != 0 && lastCommit > start {
		span = max(span, float64(lastCommit-start)/results.NsPerS)
	}
	if span > 0 {
		b.put("committed_tps", float64(committed)/span, "")
	} else {
		b.note("committed_tps not computed: neither a load duration nor a commit after the load start")
	}
}

// RunBlocks returns the blocks in run.json's height range (all of them
// when the range is not set), in height order.
func (in Input) RunBlocks() []results.Block {
	first, last := in.Run.FirstHeight, in.Run.LastHeight
	var out []results.Block
	for _, k := range in.Blocks {
		if (first != 0 && k.Height < first) || (last != 0 && k.Height > last) {
			continue
		}
		out = append(out, k)
	}
	slices.SortStableFunc(out, func(a, b results.Block) int { return cmp.Compare(a.Height, b.Height) })
	return out
}

// blocks puts the blocks-and-consensus figures and the per-second (tm-bench)
// figures. Windows are 1 s wide from the load start; their number is
//
//	n = max(⌈duration⌉, ⌊(commit of the last block with a run tx − start) / 1 s⌋ + 1)
//
// so the last block holding a run transaction is always in a window. At a
// time scale k a window is one second of the model, k s of the host, and
// its count ÷k is per second of the host until ToModel turns it back, so
// that the spread and maximum are over the same windows as in real time.
func blocks(in Input, b *builder, start int64, noBlocks bool) {
	if noBlocks {
		return
	}
	ks := in.RunBlocks()
	b.put("blocks", float64(len(ks)), "")
	if len(ks) == 0 {
		b.note("blocks.csv has no block in the run's height range: block figures not computed")
		return
	}

	var rounds int32
	var intervals, intervalSum float64
	times := make([]int64, len(ks))
	txs := make([]float64, len(ks))
	var lastRun int64
	for i := range ks {
		k := &ks[i]
		rounds = max(rounds, k.Round)
		times[i] = k.Committed()
		txs[i] = float64(k.RunTxs)
		if k.RunTxs > 0 {
			lastRun = max(lastRun, times[i])
		}
		if i > 0 && ks[i-1].Height+1 == k.Height {
			intervals++
			intervalSum += float64(k.Time - ks[i-1].Time)
		}
	}
	b.put("rounds_max", float64(rounds), "")
	if intervals > 0 {
		b.put("block_interval_mean_s", intervalSum/intervals/results.NsPerS, "")
	} else {
		b.note("block_interval_mean_s not computed: no two consecutive heights")
	}

	if start == 0 {
		return
	}
	k := in.Run.Scale()
	sec := int64(results.NsPerS * k)
	n := int((int64(in.Run.Load.DurationS*results.NsPerS) + sec - 1) / sec)
	if lastRun >= start {
		n = max(n, int((lastRun-start)/sec)+1)
	}
	if n <= 0 {
		b.note("per-second figures not computed: no load duration and no block with a run transaction after the load start")
		return
	}
	tps := perHostSecond(WindowCounts(times, txs, start, sec, n), k)
	bps := perHostSecond(WindowCounts(times, nil, start, sec, n), k)
	const why = "fewer than two 1-second windows"
	b.put("tps_mean", stats.Mean(tps), "")
	b.put("tps_stddev", stats.StdDev(tps), why)
	b.put("tps_max", stats.Max(tps), "")
	b.put("blocks_per_s_mean", stats.Mean(bps), "")
	b.put("blocks_per_s_stddev", stats.StdDev(bps), why)
	b.put("blocks_per_s_max", stats.Max(bps), "")
}

// perHostSecond divides the counts of windows k s of the host long by k
// (in place): rates per second of the host, as every figure is until
// ToModel. vs itself at k = 1.
func perHostSecond(vs []float64, k float64) []float64 {
	if k != 1 {
		for i := range vs {
			vs[i] /= k
		}
	}
	return vs
}
