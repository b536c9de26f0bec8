// Package report presents a run: a text table of its key figures for the
// terminal (Table), and, in the run directory (Write), report.md with its
// plots under plots/ and report.html, the same report as one
// self-contained page. It opens with the run's answer (glance: committed,
// throughput, latency, the saturation verdict by the default criterion,
// the anomalies with the worst named) and the saturation checks; then the
// sections of CometBFT's QA reports, with Cardano's block adoption: the
// anomalies, latency (the scatter plot, a histogram and CDFs), throughput
// (tx/s, and blocks and transactions per minute per node), mempool
// (stacked over nodes and the average), peers and consensus (rounds, block
// interval and size, block processing time, step durations), resources
// (RSS, CPU, load1, data-directory size), block adoption, the accounting
// of every sent transaction, every figure grouped, and two appendices: the
// experiment (load, testnet, nodes, host, timeline, resolved manifest) and
// a data dictionary of every figure (generated from analysis.Dictionary)
// and every plot (plotSpecs). Every table has a header row, and the HTML
// autolinks URLs but not emails (a node's P2P address id@host:port is
// none).
//
// The same kit writes the reports over several runs: a sweep (WriteSweep:
// the saturation table and the latency–throughput curve), a saturation
// search (WriteSaturate: the path, the criterion and the outcome), and
// comparisons (WriteCompare: Δ tables and overlays of the distributions
// and time series; WriteSweepCompare: the overview of a sweep comparison),
// and the QA report (WriteQA: the pass/fail table, the setup and plan,
// the saturation tables, each test's figures with their unit, n, Δ, Δ %,
// interval, p, the 10 % rule and significance beside the verdict, the
// issues and autopsy, and a data dictionary of the figures it shows).
//
// Plots use gonum.org/v1/plot in one style: axes with units, one colour
// per node with a legend, the average over nodes as a red dashed line,
// time as seconds since the load start with the load window shaded. A plot
// without data is left out and the report says why (a missing file or
// series, a node without samples), never failing the report. Past 12
// nodes (manyNodes) the per-node plots draw the spread over the nodes
// (median, p25–p75 and min–max bands) and the 3 worst nodes by name, and
// the per-node tables are summarised (quantiles and worst nodes), the
// full tables going to an appendix; every run's per-node figures are
// also written to node_figures.csv.
//
// Reports are recomputed from the run directory's files alone, and the
// same files always give the same report.md (no clock, no host details but
// those in run.json), so reports can be compared and golden-tested.
package report
