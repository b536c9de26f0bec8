package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/stats"
)

// The sections of report.md about what every node did while the load ran.

// plot writes the plot file's image and caption (the plot's definition,
// then extra), or why there is no plot.
func (m mdWriter) plot(file, extra string) {
	r, ok := m.plots[file]
	if !ok {
		return
	}
	if r.err != nil {
		m.f("*No plot of %s: %s.*\n\n", strings.ToLower(r.spec.title[:1])+r.spec.title[1:], r.err)
		return
	}
	m.f("![%s](%s)\n\n", r.spec.title, r.path())
	caption := r.spec.def
	if extra != "" {
		caption = strings.TrimSuffix(caption, ".") + "; " + extra + "."
	}
	if note, ok := spreadNotes()[file]; ok && m.many {
		caption += " " + note
	}
	m.f("%s\n\n", caption)
}

func (m mdWriter) anomalies(s analysis.Summary) {
	m.f("## Anomalies\n\n")
	if len(s.Anomalies) == 0 {
		m.f("None: every sent transaction was committed once, the mempools were empty after the load, every node committed every block and no node's series has a gap.\n\n")
		return
	}
	for _, a := range s.Anomalies {
		m.f("- %s\n", a)
	}
	m.f("\n")
}

func (m mdWriter) throughput(s analysis.Summary) {
	m.f("## Throughput\n\n")
	m.f("%s transactions committed, %s tx/s on average over 1-second windows (max %s); %s blocks, %s per second on average.\n\n",
		bareValue(s, "committed_txs"), bareValue(s, "tps_mean"), bareValue(s, "tps_max"), bareValue(s, "blocks"), bareValue(s, "blocks_per_s_mean"))
	m.plot("tps.png", "")
	m.plot("block_rate.png", "")
	m.plot("total_txs_rate.png", "")
}

func (m mdWriter) mempool(s analysis.Summary, in *analysis.Input) {
	m.f("## Mempool\n\n")
	if v, ok := s.Metrics["mempool_size_end_txs"]; ok {
		if v == 0 {
			m.f("Every mempool was back to empty at the end of the run (mempool growth did not outlive the load).\n\n")
		} else {
			m.f("**The mempools still held %s transactions at the end of the run**: growth that did not return to zero (see Anomalies).\n\n", groupDigits(v))
		}
	}
	src := mempoolSource(in.Mempool)
	m.plot("mempool_size.png", fmt.Sprintf("%s; peak total of the scrapes %s", src, metricValue(s, "mempool_total_max_txs")))
	m.plot("avg_mempool_size.png", fmt.Sprintf("%s; of the scrapes, mean during the load %s, largest node sample %s", src,
		metricValue(s, "mempool_size_mean_txs"), metricValue(s, "mempool_size_max_txs")))
	m.nodeTable(s, "Mempool", analysis.RunNodes(*in), []string{"mempool_size_max_txs", "mempool_size_mean_txs", "mempool_size_end_txs",
		"mempool_rejected_txs", "mempool_failed_txs", "mempool_evicted_txs"})
}

func (m mdWriter) consensus(s analysis.Summary, in *analysis.Input) {
	m.f("## Peers and consensus\n\n")
	m.plot("peers.png", "")
	m.f("%s of %s blocks were committed after round 0 (highest commit round: %s).\n\n",
		bareValue(s, "blocks_multi_round"), bareValue(s, "blocks"), bareValue(s, "rounds_max"))
	m.plot("rounds.png", "")
	m.plot("block_interval.png", "")
	m.plot("block_size.png", fmt.Sprintf("%s transactions per block on average", bareValue(s, "block_txs_mean")))
	m.plot("block_processing.png", "")
	m.plot("step_duration.png", "")
	nodes := analysis.RunNodes(*in)
	m.stepTable(in, nodes)
	m.nodeTable(s, "Peers and consensus", nodes, []string{"peers_min", "block_processing_time_mean_ms", "round_duration_mean_ms", "height_behind_max"})
}

// stepTable writes the mean duration of each consensus step: one column
// per node up to 8 nodes, else the mean, min and max over nodes.
func (m mdWriter) stepTable(in *analysis.Input, nodes []string) {
	if in.Metrics == nil {
		return
	}
	d := &plotData{in: in, nodes: nodes}
	means, steps := d.stepMeans()
	if len(steps) == 0 {
		return
	}
	byStep := map[string][]stepMean{}
	for _, sm := range means {
		byStep[sm.step] = append(byStep[sm.step], sm)
	}
	ms := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) + " ms" }
	var head []string
	var rows [][]string
	if len(nodes) <= 8 {
		head = append([]string{"step"}, nodes...)
		for _, st := range steps {
			row := []string{st}
			for i := range nodes {
				cell := "—"
				for _, sm := range byStep[st] {
					if sm.node == i {
						cell = ms(sm.ms)
					}
				}
				row = append(row, cell)
			}
			rows = append(rows, row)
		}
	} else {
		head = []string{"step", "mean over nodes", "min", "max"}
		for _, st := range steps {
			var v []float64
			for _, sm := range byStep[st] {
				v = append(v, sm.ms)
			}
			rows = append(rows, []string{st, ms(stats.Mean(v)), ms(stats.Min(v)), ms(stats.Max(v))})
		}
	}
	m.f("Mean duration of each consensus step:\n\n")
	m.table(head, "l"+strings.Repeat("r", len(head)-1), rows)
}

func (m mdWriter) resources(s analysis.Summary, in *analysis.Input) {
	m.f("## Resources\n\n")
	m.plot("memory.png", "")
	m.plot("cpu.png", "")
	m.plot("load1.png", fmt.Sprintf("max %s, mean during the load %s", metricValue(s, "load1_max"), metricValue(s, "load1_mean")))
	m.plot("storage.png", "")
	m.nodeTable(s, "Resources", analysis.RunProcesses(*in), []string{"rss_max_mib", "rss_mean_mib", "cpu_mean_pct", "cpu_max_pct", "open_files_max", "data_dir_end_mib", "data_dir_growth_mib"})
	m.harness(s)
}

// harness states cometlab's own share of the machine, so that an observer
// effect is visible.
func (m mdWriter) harness(s analysis.Summary) {
	if _, ok := s.Metrics["harness_cpu_mean_pct"]; !ok {
		return
	}
	m.f("cometlab itself (load generator, collectors, read-back) used %s of one core on average during the load: %s of the host's CPU",
		metricValue(s, "harness_cpu_mean_pct"), metricValue(s, "harness_host_share_pct"))
	if _, ok := s.Metrics["harness_rss_max_mib"]; ok {
		m.f("; its RSS reached %s (its row `cometlab` in resources.csv)", metricValue(s, "harness_rss_max_mib"))
	}
	m.f(".")
	if share := s.Metrics["harness_host_share_pct"]; share > analysis.DisturbedPct {
		m.f(" That is above %d %% of the machine: the observer competes with the nodes, and their figures may be slower for it.", analysis.DisturbedPct)
	}
	m.f("\n\n")
}

// adoption writes "Block adoption", with the heights plot unless the
// events section has it.
func (m mdWriter) adoption(s analysis.Summary, in *analysis.Input, run results.Run, heights bool) {
	m.f("## Block adoption\n\n")
	m.f("How fast each block reached the nodes: for every block, the time from the first node's commit (the reference: every node's commit is timed by the same clock, the host running cometlab) " +
		"until 50, 80, 90 … 100 %% of the nodes had committed it, as in Cardano's end-to-end propagation table; " +
		"and, for comparison, the same measured from the block's BFT commit time (the header time of block H+1).\n\n")
	if heights {
		m.plot("heights.png", "")
	}
	m.plot("adoption_cdf.png", "")
	if _, ok := s.Metrics["adoption_blocks"]; !ok {
		return
	}
	n := len(analysis.AnalyzeAdoption(in.Adoption, nil, analysis.AdoptionNodes(run), run.FirstHeight, run.LastHeight).Nodes)
	var rows [][]string
	for _, f := range analysis.AdoptionFractions() {
		id := fmt.Sprintf("adoption_p%d", int(f*100+0.5))
		bft := "—"
		if _, ok := analysis.Lookup(strings.Replace(id, "adoption_", "adoption_bft_", 1) + "_ms"); ok {
			bft = metricValue(s, strings.Replace(id, "adoption_", "adoption_bft_", 1)+"_ms")
		}
		rows = append(rows, []string{fmt.Sprintf("%.2f adoption", f), fmt.Sprintf("%d of %d", analysis.NodesFor(f, n), n),
			metricValue(s, id+"_ms"), metricValue(s, id+"_p99_ms"), bft})
	}
	m.f("Over %s blocks (%s not committed by every node):\n\n", bareValue(s, "adoption_blocks"), bareValue(s, "adoption_incomplete_blocks"))
	m.table([]string{"adoption", "nodes", "mean", "p99", "mean from BFT time"}, "lrrrr", rows)
	m.f("Each node's lag behind the first node to commit a block, and the heights it was not seen committing:\n\n")
	m.nodeTable(s, "Block adoption", analysis.RunNodes(*in), []string{"adoption_lag_mean_ms", "adoption_lag_p99_ms", "adoption_lag_max_ms", "adoption_missing_heights"})
}
