package analysis

import (
	"math"

	"github.com/cometlab/cometlab/internal/stats"
)

// DisturbedPct is the threshold of a disturbed run: other work on the host
// (neither the testnet's processes nor cometlab) took on average more than
// this share of the host's cores during the load, in %. A quiet 2-core
// host running the default testnet measures under 3 %; one core of
// 2 taken by a busy loop for the whole load is 50 %.
const DisturbedPct = 10

// BusyLimitPct is the share of the host's cores (in %) a run may keep
// busy, the testnet, cometlab and other work together, and leave the
// nodes room: what other work may take before a run is disturbed is the
// headroom (100 − DisturbedPct). time_scale = "auto" chooses k by it.
const BusyLimitPct = 100 - DisturbedPct

// hostDictionary holds the figures of host.csv.
func hostDictionary() []Metric {
	src := "host.csv"
	return []Metric{
		{ID: "host_other_cpu_mean_pct", Title: "Host busy with other work", Unit: UnitPct, Better: Neutral, Group: GroupResources, Source: src,
			Definition: "Disturbance: the mean, over the load, of the host's CPU that went to neither the testnet's processes (nodes, apps) nor cometlab, in % of all the host's cores. Each 1-s sample is max(0, busy − testnet − cometlab) ÷ cores, busy being the time every CPU was neither idle, in iowait nor stolen (/proc/stat; exact with a tickless kernel, its tick-sampled user, system and interrupt columns only splitting it: niced work only when cometlab itself runs niced: work at a positive nice level yields the CPU to the testnet; the kernel does not split system time by nice level, so niced work is given the share of it it had of user time; interrupt time only where the kernel charges it to the interrupted task too) and the others their processes' utime + stime (/proc/<pid>/stat) over the same interval. Above " +
				"10 % (analysis.DisturbedPct) the run is marked disturbed: its figures may be slower than on a quiet host."},
		{ID: "host_other_cpu_max_pct", Title: "Host busy with other work, max", Unit: UnitPct, Better: Neutral, Group: GroupResources, Source: src,
			Definition: "The largest 1-s sample of the disturbance (see host_other_cpu_mean_pct) during the load, in % of all the host's cores."},
		{ID: "host_busy_mean_pct", Title: "Host busy", Unit: UnitPct, Better: Neutral, Group: GroupResources, Source: src,
			Definition: "Mean, over the load, of the host's busy CPU (user + system time of every CPU, as for host_other_cpu_mean_pct: the testnet, cometlab and other work together) in % of all the host's cores. Above 100 − 10 % (analysis.BusyLimitPct) the nodes queue for CPU: time_scale = \"auto\" chooses the smallest k that keeps a probe's prediction of it below that, and the report says when a run went above it anyway."},
		{ID: "host_steal_mean_pct", Title: "CPU steal mean", Unit: UnitPct, Better: Neutral, Group: GroupResources, Source: src,
			Definition: "Mean CPU time the hypervisor gave this virtual machine's CPUs to other guests during the load (/proc/stat steal), in % of all the host's cores; 0 on bare metal."},
		{ID: "harness_cpu_mean_pct", Title: "cometlab CPU mean", Unit: UnitPct, Better: Neutral, Group: GroupResources, Source: src,
			Definition: "Mean CPU use of cometlab's own process during the load (load generator, collectors, live read-back), in % of one core: the observer's own cost on the host it measures."},
		{ID: "harness_host_share_pct", Title: "cometlab share of the host", Unit: UnitPct, Better: Neutral, Group: GroupResources, Source: src,
			Definition: "Mean CPU use of cometlab's own process during the load in % of all the host's cores (harness_cpu_mean_pct ÷ cores): the share of the machine the observer took from what it measures."},
		{ID: "harness_rss_max_mib", Title: "cometlab RSS max", Unit: UnitMiB, Better: Neutral, Group: GroupResources, Source: "resources.csv",
			Definition: "Largest resident set size of cometlab's own process (its row \"cometlab\" in resources.csv, sampled as a node's), in MiB."},
	}
}

// hostFigures puts the figures of host.csv over the load window from…to
// (Unix ns); nothing without host.csv rows.
func hostFigures(in Input, b *builder, from, to int64) {
	var other, steal, harness, share, busy []float64
	peak := math.Inf(-1)
	for _, h := range in.Host {
		if h.Time < from || h.Time > to || h.Cores <= 0 {
			continue
		}
		o := 100 * h.Other() / float64(h.Cores)
		other, steal, harness = append(other, o), append(steal, 100*h.Steal/float64(h.Cores)), append(harness, 100*h.Harness)
		share = append(share, 100*h.Harness/float64(h.Cores))
		// host.csv keeps 3 decimals: a sample read back equals one in memory
		busy = append(busy, 100*math.Round(1000*h.Busy)/1000/float64(h.Cores))
		peak = max(peak, o)
	}
	if len(other) == 0 {
		if len(in.Host) > 0 {
			b.note("host.csv has no sample during the load: no disturbance figures")
		}
		return
	}
	b.put("host_other_cpu_mean_pct", stats.Mean(other), "")
	b.put("host_other_cpu_max_pct", peak, "")
	b.put("host_busy_mean_pct", stats.Mean(busy), "")
	b.put("host_steal_mean_pct", stats.Mean(steal), "")
	b.put("harness_cpu_mean_pct", stats.Mean(harness), "")
	b.put("harness_host_share_pct", stats.Mean(share), "")
}

// harnessFigures puts cometlab's own figures of resources.csv.
func harnessFigures(in Input, b *builder) {
	rss := -1.0
	for i := range in.Resources {
		if r := &in.Resources[i]; IsHarnessProcess(r.Node) {
			rss = max(rss, float64(r.RSS))
		}
	}
	if rss >= 0 {
		b.put("harness_rss_max_mib", rss/mib, "")
	}
}

// Disturbance says how busy the run's host was with other work during the
// load (host_other_cpu_mean_pct, % of its cores) and whether that passes
// DisturbedPct; known is false for a run without host.csv.
func Disturbance(s Summary) (pct float64, disturbed, known bool) {
	pct, known = s.Metrics["host_other_cpu_mean_pct"]
	return pct, known && pct > DisturbedPct, known
}
