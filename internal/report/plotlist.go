package report

import (
	"bytes"
	"runtime"
	"slices"
	"sync"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
)

// plotSpec is one plot of the report: its file under plots/, what it
// shows (for the caption and the data dictionary), and how to draw it.
type plotSpec struct {
	file   string // name inside plots/
	title  string
	unit   string // of the y axis (x is time since load start unless said)
	source string
	def    string
	draw   func(d *plotData) ([]byte, error)
}

// plotSpecs returns every plot of the report, in report order. It is data,
// one literal a plot (its file, title, unit, source, definition and how it
// is drawn), and stays one function so that the list reads whole.
func plotSpecs() []plotSpec {
	const ms = "metrics.csv: "
	return []plotSpec{
		{"autopsy.png", "Block intervals, slow heights by cause", "ms", "blocks.csv, summary.json (autopsy)",
			"Each height's interval (header time of H+1 − header time of H) at its commit time, grey; the slow heights (autopsy.csv) as dots coloured by their verdict's cause (docs/autopsy.md).",
			(*plotData).autopsyPlot},
		{"latency.png", "Block latency per transaction", "s", "txs.csv",
			"One point per committed transaction (duplicates left out): x = send time since load start, y = block latency (commit time of its block, the header time of block H+1, − send time); the red dashed line is the mean. CometBFT's QA latency plot. Past 262,144 transactions, every 2^k-th is drawn (the smallest k that keeps at most 262,144), plus the highest point of each of 1,024 columns of the load window, so spikes stay visible.",
			func(d *plotData) ([]byte, error) {
				if slices.Contains(d.in.Missing, results.TxsFile) {
					return nil, noData(results.TxsFile + " not found")
				}
				var b bytes.Buffer
				if err := latencyPNG(&b, d.run, d.agg, d.w, d.h, d.latencyMarks()); err != nil {
					return nil, noData("no committed transaction with a commit time")
				}
				return b.Bytes(), nil
			}},
		{"latency_hist.png", "Block latency distribution", "transactions per bin", "txs.csv",
			"Histogram of the block latency of the committed transactions in 60 bins from the smallest to the largest (x in s), with vertical lines at the mean (red) and at p50, p90 and p99.",
			(*plotData).latencyHist},
		{"latency_cdf.png", "Latency CDF", "fraction of transactions", "txs.csv, adoption.csv",
			"Cumulative distribution of block latency and of observed latency (the target node's commit of the block − send time): the fraction of transactions whose latency is at most x s. Dotted lines at 0.50 and 0.99.",
			(*plotData).latencyCDF},
		{"tps.png", "Committed transactions per second", "tx/s", "blocks.csv",
			"The run's transactions committed in each 1-second window from the load start (each block counted at its commit time, the header time of the next block), as tm-bench counts them (runs longer than 10 minutes: the mean over wider windows, about 600 in all); the red dashed line is tps_mean and the grey dashed one the offered load c × r.",
			(*plotData).tps},
		{"clients_tps.png", "Committed transactions per second, per client", "tx/s", "txs.csv, run.json",
			"For a load of several clients ([[load.client]]): each client's transactions committed per second in 5-second windows from the load start (by the commit time of their block; wider windows past 10 minutes, at most 120), on a log scale, with its offered rate (connections × rate) dashed in the same colour. A client served fairly commits what it offers; windows without a commit break the line.",
			(*plotData).clientsTPS},
		{"lanes_latency.png", "Block latency per mempool lane", "fraction of the lane's committed transactions", "txs.csv, run.json load.lanes",
			"For a load over mempool lanes ([load] lane_weights, v2.0's e2e app): for each lane (one colour, highest priority first in the legend), the fraction of its committed transactions (y) whose block latency was at most x ms, from its percentiles 0 to 100. A transaction's lane is the one the generator picked from its connection and sequence number by the lanes' weights.",
			(*plotData).lanesLatency},
		{"trend_tps.png", "Committed tx/s over the load, fitted", "tx/s", "blocks.csv",
			"The committed tx/s of each window of the load (30 to 120 equal windows, 10 s each, wider past 20 minutes; each block counted at its commit time), the least-squares line through them (red dashed; slope per minute ± its 95 % interval) and the means of the first and last 10 % of the windows. Only for loads of at least 5 minutes.",
			func(d *plotData) ([]byte, error) {
				return d.trendPlot("Committed tx/s over the load", "tx/s", false)
			}},
		{"trend_latency.png", "Block latency over the load, fitted", "ms", "txs.csv, blocks.csv",
			"The mean block latency of each window's committed transactions (windows as in trend_tps.png), the least-squares line through them and the means of the first and last 10 %. Only for loads of at least 5 minutes.",
			func(d *plotData) ([]byte, error) {
				return d.trendPlot("Block latency over the load", "ms", true)
			}},
		{"block_rate.png", "Blocks per minute, per node", "blocks/min", "adoption.csv (or " + ms + "cometbft_consensus_height)",
			"For each node, at each of its commits, the number of blocks it committed over the trailing 10 seconds divided by the time between the first and last of those commits, × 60 (blocks per minute; the seeds' block_rate plot, whose Prometheus rate(…[20s]) is twice as wide): a window that starts and ends on commits, so the line changes only when the block interval does. Where a node commits nothing for over 5 s (a halt, the node down) the rate is drawn every second as its commits in the trailing 10 s ÷ 10 s: it falls to 0 within 10 s of the last commit and climbs back after the next. The red dashed line is the average over nodes. Runs without adoption.csv: the scraped consensus height's rate over 20 s at each scrape, whose window edges cross commits at the beat of the scrape and block intervals (a ripple of 3 blocks/min that is sampling).",
			func(d *plotData) ([]byte, error) {
				return d.perMinute("Blocks produced per minute, per node", "blocks/min", "consensus_height")
			}},
		{"total_txs_rate.png", "Transactions per minute, per node", "txs/min", "adoption.csv, blocks.csv (or " + ms + "cometbft_consensus_total_txs)",
			"For each node, at each of its commits, the transactions of the blocks it committed over the trailing 10 seconds divided by the time between the first and last of those commits, × 60 (transactions per minute; the seeds' total_txs_rate plot), windows on commits and halts as in block_rate.png; the red dashed line is the average over nodes. Runs without adoption.csv: the scraped cometbft_consensus_total_txs's rate over 20 s, which steps by one block's transactions × 3 as its window's edges cross commits (sampling, not a change of rate).",
			func(d *plotData) ([]byte, error) {
				return d.perMinute("Transactions processed per minute, per node", "txs/min", "consensus_total_txs")
			}},
		{"mempool_size.png", "Mempool size, stacked over nodes", "transactions", results.MempoolFile + " (or " + ms + "cometbft_mempool_size)",
			"Every node's mempool stacked, so the top edge is the number of transactions in all mempools (the seeds' cumulative mempool plot); each node's band has its colour. A point is a node's mempool right after it committed a height (mempool.csv: its num_unconfirmed_txs, asked as soon as its commit was heard), one per node and height, at the time of the height's first sample: what each block left behind, not the fill between blocks; a height a node has no row for leaves its band out. Runs without mempool.csv: the sizes scraped from metrics.csv on a common grid at the scrape interval, which beats against the block interval.",
			(*plotData).mempoolStacked},
		{"avg_mempool_size.png", "Average mempool size", "transactions", results.MempoolFile + " (or " + ms + "cometbft_mempool_size)",
			"Average over nodes of the mempool size (red dashed, the seeds' avg_mempool_size), and the largest node's size: per height, of the nodes' mempools right after they committed it (mempool.csv), or, for runs without mempool.csv, at each scrape.",
			(*plotData).mempoolAverage},
		{"peers.png", "Peers", "peers", ms + "cometbft_p2p_peers",
			"Each node's number of peers; the red dashed line is the average over nodes.",
			(*plotData).peers},
		{"rounds.png", "Consensus rounds per height", "round", ms + "cometbft_consensus_rounds, blocks.csv",
			"Each node's current consensus round (0 = the height's first round), and a red cross for each block of blocks.csv committed in a later round, at its commit time.",
			(*plotData).rounds},
		{"block_interval.png", "Block interval", "s", "blocks.csv",
			"Header time(H+1) − header time(H) for consecutive heights, at the commit time of H; the red dashed line is the mean.",
			func(d *plotData) ([]byte, error) {
				return d.blockSeries("Block interval", "s between blocks", "block interval", func(i int) (float64, bool) {
					if i == 0 || d.blocks[i-1].Height+1 != d.blocks[i].Height {
						return 0, false
					}
					return float64(d.blocks[i].Time-d.blocks[i-1].Time) / 1e9, true
				})
			}},
		{"block_size.png", "Block size", "KiB", "blocks.csv",
			"Summed size of each block's transactions in KiB, at the block's commit time; the red dashed line is the mean.",
			func(d *plotData) ([]byte, error) {
				return d.blockSeries("Block size (transactions' bytes)", "KiB per block", "block size", func(i int) (float64, bool) {
					return float64(d.blocks[i].Bytes) / 1024, true
				})
			}},
		{"block_processing.png", "Block processing time", "ms", ms + "cometbft_state_block_processing_time_sum, _count",
			"Each node's mean block processing time over the trailing 20 seconds at each scrape: increase of the histogram's _sum ÷ increase of its _count (the series is in milliseconds despite its name); the red dashed line is the average over nodes.",
			(*plotData).blockProcessing},
		{"step_duration.png", "Consensus step duration", "ms", ms + "cometbft_consensus_step_duration_seconds_sum, _count (label step)",
			"Mean duration of each consensus step per node over the whole scrape: increase of _sum ÷ increase of _count for each value of the step label, which names the step that ended (NewHeight includes the timeout_commit wait). The table after the plot gives the same means.",
			(*plotData).stepDurations},
		{"memory.png", "Resident memory", "MiB", "resources.csv (or metrics.csv: process_resident_memory_bytes)",
			"Each node's resident set size in MiB; the red dashed line is the average over nodes (the seeds' memory and avg_memory plots).",
			func(d *plotData) ([]byte, error) {
				return d.resources("Resident set size", "MiB", 1.0/(1<<20), true, func(r *analysis.NodeResources) []float64 { return r.RSS })
			}},
		{"cpu.png", "CPU per node", "% of one core", results.CommitCPUFile + " (or resources.csv, or metrics.csv: process_cpu_seconds_total)",
			"Each node process's CPU use in % of one core (200 = two cores busy); the red dashed line is the average over nodes. A point is the CPU the process used between two consecutive commits of its node, read from /proc when each commit was heard (commitcpu.csv), at the later commit: the work of one block interval, so the line follows the blocks and cannot beat against them. Runs without commitcpu.csv (deployed nodes, older runs): the CPU between the fixed-interval samples of resources.csv, which hold one commit's work or none as they beat against the block interval — dips on every node at once every few seconds are that beat, not idle time.",
			(*plotData).cpu},
		{"load1.png", "Host load1", "load average", "resources.csv",
			"The host's 1-minute load average (/proc/loadavg), CometBFT's QA measure of CPU load, against the number of CPUs (dashed).",
			(*plotData).load1},
		{"storage.png", "Data-directory size", "MiB", "resources.csv",
			"Each node's data directory size on disk in MiB (block store, state, indexer, WAL): the storage footprint over time, as in CometBFT's storage report.",
			func(d *plotData) ([]byte, error) {
				return d.resources("Data directory size on disk", "MiB", 1.0/(1<<20), false, func(r *analysis.NodeResources) []float64 { return r.Data })
			}},
		{"msg_bytes.png", "Bytes sent per tx by message type", "bytes per committed tx", "summary.json (" + ms + "cometbft_p2p_message_send_bytes_total{message_type})",
			"One bar per node: the bytes it sent to its peers per committed transaction (p2p_sent_bytes_per_tx), stacked by p2p message type (p2p_sent_bytes_per_tx_<type>), the types the run sent most at the bottom; only for runs whose nodes count bytes by message type.",
			(*plotData).msgBytesPlot},
		{"heights.png", "Height of every node", "height", "adoption.csv",
			"Each node's committed height at the time it committed it (adoption.csv, the host's clock): where the lines part, a node fell behind; the slope of a line coming back is its catch-up (block-sync) rate.",
			(*plotData).heights},
		{"adoption_cdf.png", "Block adoption CDF", "fraction of blocks", "adoption.csv, blocks.csv",
			"For each adoption fraction (Cardano's cdf0.50 … cdf1.00), the fraction of blocks (y) that that fraction of the nodes had committed within x ms of the first node's commit; fractions needing the same number of nodes share a curve. The grey dashed curve measures 1.00 adoption from the BFT commit time (header time of H+1) instead.",
			(*plotData).adoptionCDF},
		{"zone_adoption_cdf.png", "Block adoption per zone", "fraction of blocks", "adoption.csv, run.json zones",
			"For a testnet with [zones]: for each zone (one colour), the fraction of the run's blocks (y) that had reached the zone within x ms of the block's first commit on any node, its first node solid and all its nodes dashed (every commit timed by the clock of the host running cometlab). A zone whose node was the first to commit a block counts 0 ms for it.",
			(*plotData).zoneAdoptionCDF},
	}
}

// plotResult is a drawn plot, or why it could not be drawn.
type plotResult struct {
	spec plotSpec
	png  []byte
	err  error
}

// path returns the plot's path inside the run directory, slash separated
// as Markdown links are.
func (r plotResult) path() string { return results.PlotsDir + "/" + r.spec.file }

// drawPlots draws every plot, GOMAXPROCS at a time.
func drawPlots(d *plotData) map[string]plotResult {
	specs := plotSpecs()
	res := make([]plotResult, len(specs))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, sp := range specs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			png, err := sp.draw(d)
			res[i] = plotResult{spec: sp, png: png, err: err}
		})
	}
	wg.Wait()
	out := map[string]plotResult{}
	for _, r := range res {
		out[r.spec.file] = r
	}
	return out
}
