package analysis

import (
	"cmp"
	"math"
	"slices"

	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/stats"
)

// mib is 2^20 bytes.
const mib = 1 << 20

// NodeResources is one node's process samples, in time order: from
// resources.csv, or, for a run without it, from the node's own
// process_resident_memory_bytes and process_cpu_seconds_total series.
type NodeResources struct {
	Node      string
	T         []int64   // Unix ns
	CPU       []float64 // % of one core; NaN when unknown (a first sample from metrics)
	RSS       []float64 // bytes
	OpenFiles []float64 // nil when unknown
	Data      []float64 // data-directory bytes; nil when unknown
}

// resourceRows groups resources.csv rows by node, in time order.
func resourceRows(rows []results.Resource) map[string]*NodeResources {
	out := map[string]*NodeResources{}
	sorted := slices.Clone(rows)
	slices.SortStableFunc(sorted, func(a, b results.Resource) int { return cmp.Compare(a.Time, b.Time) })
	for i := range sorted {
		r := &sorted[i]
		n := out[r.Node]
		if n == nil {
			n = &NodeResources{Node: r.Node}
			out[r.Node] = n
		}
		n.T = append(n.T, r.Time)
		n.CPU = append(n.CPU, r.CPU)
		n.RSS = append(n.RSS, float64(r.RSS))
		n.OpenFiles = append(n.OpenFiles, float64(r.OpenFiles))
		n.Data = append(n.Data, float64(r.DataBytes))
	}
	return out
}

// ResourceSeries returns the process samples of each of nodes that has
// some (in that order), and whether they came from metrics.csv's process_*
// series because the run has no resources.csv rows.
func ResourceSeries(in Input, nodes []string) (out []NodeResources, fromMetrics bool) {
	if len(in.Resources) > 0 {
		per := resourceRows(in.Resources)
		for _, n := range nodes {
			if r := per[n]; r != nil {
				out = append(out, *r)
			}
		}
		return out, false
	}
	for _, n := range nodes {
		rss := in.Metrics.One(n, "process_resident_memory_bytes")
		if rss == nil || len(rss.T) == 0 {
			continue
		}
		r := NodeResources{Node: n, T: rss.T, RSS: rss.V}
		cpu := make([]float64, len(rss.T))
		for i := range cpu {
			cpu[i] = math.NaN()
		}
		if c := in.Metrics.One(n, "process_cpu_seconds_total"); c != nil {
			// % of one core between consecutive samples, placed on the
			// RSS sample of the same scrape.
			at := map[int64]float64{}
			for i := 1; i < len(c.T); i++ {
				if dv, dt := c.V[i]-c.V[i-1], c.T[i]-c.T[i-1]; dv >= 0 && dt > 0 {
					at[c.T[i]] = dv / (float64(dt) / results.NsPerS) * 100
				}
			}
			for i, t := range rss.T {
				if v, ok := at[t]; ok {
					cpu[i] = v
				}
			}
		}
		r.CPU = cpu
		out = append(out, r)
	}
	return out, len(out) > 0
}

// Load1 returns the host's load1 series from resources.csv: the samples of
// the node with the most rows (every row carries the same host figure).
func Load1(rows []results.Resource) (t []int64, v []float64) {
	count := map[string]int{}
	best := ""
	for i := range rows {
		n := rows[i].Node
		count[n]++
		if count[n] > count[best] || (count[n] == count[best] && n < best) {
			best = n
		}
	}
	for i := range rows {
		if rows[i].Node == best {
			t = append(t, rows[i].Time)
			v = append(v, rows[i].Load1)
		}
	}
	if !slices.IsSorted(t) {
		idx := make([]int, len(t))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(t[a], t[b]) })
		t2, v2 := make([]int64, len(t)), make([]float64, len(t))
		for i, j := range idx {
			t2[i], v2[i] = t[j], v[j]
		}
		t, v = t2, v2
	}
	return t, v
}

// resourceFigures puts the process and host figures: per process, and
// run-wide over the nodes (external app processes have their own rows but
// do not enter the run-wide figures).
func resourceFigures(in Input, b *builder, nodes []string, from, to int64) {
	per, fromMetrics := ResourceSeries(in, nodes)
	if len(per) == 0 {
		if len(in.Resources) == 0 && in.Metrics != nil && in.Metrics.Kept > 0 {
			b.note("no resources.csv rows and no process_resident_memory_bytes series: resource figures not computed")
		}
		return
	}
	if fromMetrics {
		b.note("resources.csv has no rows: RSS and CPU taken from the nodes' process_* metrics (no data-directory size, open files or load1)")
	}
	type agg struct {
		max      float64
		means    []float64
		have     bool
		isMaxAgg bool
	}
	run := map[string]*agg{}
	put := func(node, id string, v float64, maxAgg bool) {
		if math.IsNaN(v) {
			return
		}
		b.putNode(node, id, v)
		if IsAppProcess(node) { // run-wide figures are the nodes'
			return
		}
		a := run[id]
		if a == nil {
			a = &agg{max: math.Inf(-1), isMaxAgg: maxAgg}
			run[id] = a
		}
		a.max = max(a.max, v)
		a.means = append(a.means, v)
		a.have = true
	}
	for _, r := range per {
		put(r.Node, "rss_max_mib", maxOf(r.RSS)/mib, true)
		if m, k := meanIn(r.T, r.RSS, from, to); k > 0 {
			put(r.Node, "rss_mean_mib", m/mib, false)
		}
		if m := meanNaN(r.T, r.CPU, from, to); !math.IsNaN(m) {
			put(r.Node, "cpu_mean_pct", m, false)
		}
		put(r.Node, "cpu_max_pct", maxOf(r.CPU), true)
		if r.OpenFiles != nil {
			put(r.Node, "open_files_max", maxOf(r.OpenFiles), true)
		}
		if r.Data != nil {
			put(r.Node, "data_dir_end_mib", lastOf(r.Data)/mib, true)
			put(r.Node, "data_dir_growth_mib", (lastOf(r.Data)-r.Data[0])/mib, true)
			put(r.Node, "data_dir_growth_mib_per_h", dataGrowthPerHour(r.T, r.Data, from, to), true)
		}
	}
	ids := make([]string, 0, len(run))
	for id := range run {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		a := run[id]
		if a.isMaxAgg {
			b.put(id, a.max, "")
		} else {
			b.put(id, stats.Mean(a.means), "")
		}
	}
	if len(in.Resources) > 0 {
		t, v := Load1(in.Resources)
		b.put("load1_max", maxOf(v), "no load1 sample")
		b.put("load1_mean", meanNaN(t, v, from, to), "no load1 sample during the load")
	}
}

// dataGrowthPerHour is the least-squares slope of a data directory's
// size (bytes) over the samples within [from, to] (Unix ns), in MiB per
// hour; NaN with fewer than two walks (distinct sizes) there. A slope, not last − first,
// so that a pruned store's saw-tooth counts as what it keeps on average.
func dataGrowthPerHour(t []int64, v []float64, from, to int64) float64 {
	// Between two walks of the directory the sampler repeats the last
	// size: a run of equal sizes is one measurement, at its first time,
	// and fewer than two measurements give no slope (not 0 MiB/h).
	var xs, ys []float64
	for i, x := range t {
		if x >= from && x <= to && !math.IsNaN(v[i]) && (len(ys) == 0 || v[i]/mib != ys[len(ys)-1]) {
			xs = append(xs, float64(x-from)/3600e9)
			ys = append(ys, v[i]/mib)
		}
	}
	l, ok := stats.FitLine(xs, ys)
	if !ok {
		return math.NaN()
	}
	return l.Slope
}

// meanNaN is meanIn leaving NaN values out.
func meanNaN(t []int64, v []float64, from, to int64) float64 {
	var sum float64
	n := 0
	for i, x := range t {
		if x >= from && x <= to && !math.IsNaN(v[i]) {
			sum += v[i]
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}
