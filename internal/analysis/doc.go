// Package analysis turns one run directory's records into figures: pure
// statistics (mean, sample standard deviation, percentiles, fixed-width
// time windows), the metric dictionary that names every figure cometlab
// reports, and Summarize, which reconciles the send log with the chain and
// computes a run's summary.
//
// Besides the chain (blocks.csv, txs.csv) it summarises what every node
// did while the load ran: the Prometheus series of metrics.csv, read once
// into a SeriesSet of per-(node, series) time series (mempool, peers,
// rounds, block processing and step durations), the process resources of
// resources.csv (RSS, CPU, data-directory size, load1), and block adoption
// from adoption.csv (AnalyzeAdoption: the time until 50 … 100 % of the
// nodes committed each block, and each node's lag behind the first). What
// went wrong in the run itself — rejected, missing or duplicated
// transactions, mempools not back to empty, nodes that fell behind, gaps
// in a node's series — becomes Summary.Anomalies.
//
// Everything here but Analyze, ReadInput, ReadFiles and ReadSeries is
// pure: values in, values out, no I/O and no clock. Those are the edge that
// reads a run directory (package results) and writes its summary.json.
// Judging runs against a saturation criterion is package saturation's;
// comparing runs, package compare's.
//
// Conventions: times are Unix nanoseconds as in the run directory; a figure
// that cannot be computed (no data, or a division by zero) is left out of
// Summary.Metrics and a Note says why, so summary.json never holds NaN or
// Inf.
package analysis
