package analysis

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/stats"
)

// AdoptionFractions returns the fractions of the nodes for which block
// adoption is reported: Cardano's cdf0.50, cdf0.80, … cdf1.00.
func AdoptionFractions() []float64 {
	return []float64{0.50, 0.80, 0.90, 0.92, 0.94, 0.96, 0.98, 1.00}
}

// adoptionID returns the dictionary-id stem of fraction f: "p50" … "p100".
func adoptionID(f float64) string {
	return fmt.Sprintf("p%d", int(math.Round(f*100)))
}

// NodesFor returns how many of n nodes make up the fraction f of them:
// ⌈f·n⌉ (with a little tolerance for rounding), at least 1. With 4 nodes
// the fractions 0.80 … 1.00 all need every node.
func NodesFor(f float64, n int) int {
	return max(1, int(math.Ceil(f*float64(n)-1e-9)))
}

// BlockAdoption is when each node committed one height.
type BlockAdoption struct {
	Height int64
	// Commit is the BFT commit time: the header time of block Height+1
	// (blocks.csv), Unix ns; 0 when unknown.
	Commit int64
	// At holds the local commit times of the nodes that committed the
	// height (adoption.csv, the clock of the host running cometlab),
	// ascending, Unix ns.
	At []int64
}

// Reached returns the time (Unix ns) by which k nodes had committed the
// block, and false when fewer ever did.
func (b *BlockAdoption) Reached(k int) (int64, bool) {
	if k < 1 || k > len(b.At) {
		return 0, false
	}
	return b.At[k-1], true
}

// NodeAdoption is one node's record over the adoption window.
type NodeAdoption struct {
	Node    string
	Heights int     // heights of the window it committed
	Missing []int64 // heights of the window some node committed and it did not, ascending
	Last    int64   // highest height it committed; 0 when none
	// Lag is the distribution of its commit time − the first node's
	// commit time over the heights it committed, in ns.
	Lag Distribution
}

// AdoptionStats is how blocks spread over the nodes: the primary
// reference is the first node's local commit (all times on the same
// clock); BFT commit times (blocks.csv) are the secondary reference.
type AdoptionStats struct {
	Nodes  []NodeAdoption  // expected nodes in the order given, then others seen, sorted
	Blocks []BlockAdoption // heights of the window at least one node committed, ascending
}

// N returns the number of nodes, the denominator of the fractions.
func (a *AdoptionStats) N() int { return len(a.Nodes) }

// AnalyzeAdoption computes block adoption from the rows of adoption.csv,
// for heights first … last (0 means unbounded) that at least one node
// committed. nodes are the nodes expected to commit every block (the
// validators and full nodes, not seeds); nodes seen in rows but not listed
// are added. A node's repeated rows for one height count once, the
// earliest. blocks gives the BFT commit times. It is pure and runs in
// O(r log r) for r rows.
func AnalyzeAdoption(rows []results.Adoption, blocks []results.Block, nodes []string, first, last int64) AdoptionStats {
	idx := map[string]int{}
	var names []string
	for _, n := range nodes {
		if _, ok := idx[n]; !ok {
			idx[n] = len(names)
			names = append(names, n)
		}
	}
	var extra []string
	in := make([]results.Adoption, 0, len(rows))
	for _, r := range rows {
		if (first != 0 && r.Height < first) || (last != 0 && r.Height > last) {
			continue
		}
		in = append(in, r)
		if _, ok := idx[r.Node]; !ok {
			idx[r.Node] = -1
			extra = append(extra, r.Node)
		}
	}
	slices.Sort(extra)
	for _, n := range extra {
		idx[n] = len(names)
		names = append(names, n)
	}
	slices.SortFunc(in, func(a, b results.Adoption) int {
		return cmp.Or(cmp.Compare(a.Height, b.Height), cmp.Compare(a.At, b.At), strings.Compare(a.Node, b.Node))
	})
	commit := map[int64]int64{}
	for i := range blocks {
		if blocks[i].CommitTime != 0 {
			commit[blocks[i].Height] = blocks[i].CommitTime
		}
	}

	st := AdoptionStats{Nodes: make([]NodeAdoption, len(names))}
	lags := make([][]float64, len(names))
	seen := make([]bool, len(names))
	for a := 0; a < len(in); {
		h := in[a].Height
		b := a
		for b < len(in) && in[b].Height == h {
			b++
		}
		clear(seen)
		blk := BlockAdoption{Height: h, Commit: commit[h], At: make([]int64, 0, b-a)}
		for _, r := range in[a:b] {
			i := idx[r.Node]
			if seen[i] {
				continue
			}
			seen[i] = true
			blk.At = append(blk.At, r.At)
			lags[i] = append(lags[i], float64(r.At-in[a].At))
			st.Nodes[i].Heights++
			st.Nodes[i].Last = max(st.Nodes[i].Last, h)
		}
		for i, ok := range seen {
			if !ok {
				st.Nodes[i].Missing = append(st.Nodes[i].Missing, h)
			}
		}
		st.Blocks = append(st.Blocks, blk)
		a = b
	}
	for i, n := range names {
		st.Nodes[i].Node = n
		st.Nodes[i].Lag = DescribeSorted(sortFloats(lags[i]))
	}
	return st
}

// Spreads returns, for fraction f, the time in ns from the first node's
// commit until ⌈f·N⌉ nodes had committed it, for each block that got
// there, and how many blocks did not.
func (a *AdoptionStats) Spreads(f float64) (ns []float64, short int) {
	k := NodesFor(f, a.N())
	for i := range a.Blocks {
		b := &a.Blocks[i]
		if t, ok := b.Reached(k); ok {
			ns = append(ns, float64(t-b.At[0]))
		} else {
			short++
		}
	}
	return ns, short
}

// SpreadsBFT is Spreads measured from the block's BFT commit time (the
// header time of the next block) instead of the first node's commit;
// blocks without a known commit time are left out. Values may be negative
// when a node commits before the BFT time (its clock, or the median of the
// validators' clocks, is ahead).
func (a *AdoptionStats) SpreadsBFT(f float64) []float64 {
	k := NodesFor(f, a.N())
	var ns []float64
	for i := range a.Blocks {
		b := &a.Blocks[i]
		if t, ok := b.Reached(k); ok && b.Commit != 0 {
			ns = append(ns, float64(t-b.Commit))
		}
	}
	return ns
}

// AdoptionNodes returns the nodes expected to commit every block: the
// run's nodes except seeds.
func AdoptionNodes(run results.Run) []string {
	var out []string
	for _, n := range run.Nodes {
		if n.Mode != "seed" {
			out = append(out, n.Name)
		}
	}
	return out
}

// adoption puts the block adoption figures.
func adoption(in Input, b *builder, noAdoption, noBlocks bool) {
	if noAdoption {
		return
	}
	st := AnalyzeAdoption(in.Adoption, in.Blocks, AdoptionNodes(in.Run), in.Run.FirstHeight, in.Run.LastHeight)
	b.put("adoption_blocks", float64(len(st.Blocks)), "")
	if len(st.Blocks) == 0 {
		b.note("adoption.csv has no row in the run's height range: block adoption not computed")
		return
	}
	for _, f := range AdoptionFractions() {
		ns, _ := st.Spreads(f)
		d := DescribeSorted(sortFloats(ns))
		why := fmt.Sprintf("no block was committed by %d of the %d nodes", NodesFor(f, st.N()), st.N())
		b.put("adoption_"+adoptionID(f)+"_ms", d.Mean/results.NsPerMs, why)
		b.put("adoption_"+adoptionID(f)+"_p99_ms", d.Percentile(99)/results.NsPerMs, why)
	}
	_, short := st.Spreads(1)
	b.put("adoption_incomplete_blocks", float64(short), "")
	if !noBlocks {
		const why = "no adopted block has a BFT commit time in blocks.csv"
		b.put("adoption_bft_first_ms", stats.Mean(st.SpreadsBFT(0))/results.NsPerMs, why)
		b.put("adoption_bft_p50_ms", stats.Mean(st.SpreadsBFT(0.5))/results.NsPerMs, why)
		b.put("adoption_bft_p100_ms", stats.Mean(st.SpreadsBFT(1))/results.NsPerMs, why)
	}

	var all []float64
	var missing, behind int
	worst := math.NaN()
	for _, n := range st.Nodes {
		all = append(all, n.Lag.sorted...)
		b.putNode(n.Node, "adoption_missing_heights", float64(len(n.Missing)))
		missing += len(n.Missing)
		if len(n.Missing) > 0 {
			behind++
		}
		if n.Lag.N == 0 {
			continue
		}
		b.putNode(n.Node, "adoption_lag_mean_ms", n.Lag.Mean/results.NsPerMs)
		b.putNode(n.Node, "adoption_lag_p99_ms", n.Lag.Percentile(99)/results.NsPerMs)
		b.putNode(n.Node, "adoption_lag_max_ms", n.Lag.Max/results.NsPerMs)
		if !(n.Lag.Max <= worst) {
			worst = n.Lag.Max
		}
	}
	d := Describe(all)
	b.put("adoption_lag_mean_ms", d.Mean/results.NsPerMs, "no adoption row")
	b.put("adoption_lag_p99_ms", d.Percentile(99)/results.NsPerMs, "no adoption row")
	b.put("adoption_lag_max_ms", worst/results.NsPerMs, "no adoption row")
	b.put("adoption_missing_heights", float64(missing), "")
	b.put("nodes_behind", float64(behind), "")

	lo, hi := st.Blocks[0].Height, st.Blocks[len(st.Blocks)-1].Height
	for _, n := range st.Nodes {
		if len(n.Missing) == 0 || Ephemeral(in.Events, n.Node) {
			continue
		}
		last := "none"
		if n.Last != 0 {
			last = fmt.Sprint(n.Last)
		}
		b.anomaly("%s was not seen committing %d of the %d heights %d … %d that other nodes committed (%s); its last height was %s",
			n.Node, len(n.Missing), len(st.Blocks), lo, hi, heightRanges(n.Missing, 4), last)
	}
}

// heightRanges writes ascending heights as ranges ("5–9, 12"), at most
// max ranges followed by "…".
func heightRanges(hs []int64, limit int) string {
	var parts []string
	for i := 0; i < len(hs); {
		j := i
		for j+1 < len(hs) && hs[j+1] == hs[j]+1 {
			j++
		}
		if len(parts) == limit {
			parts = append(parts, "…")
			break
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d–%d", hs[i], hs[j]))
		} else {
			parts = append(parts, fmt.Sprint(hs[i]))
		}
		i = j + 1
	}
	if len(hs) == 1 {
		return "height " + parts[0]
	}
	return "heights " + strings.Join(parts, ", ")
}
