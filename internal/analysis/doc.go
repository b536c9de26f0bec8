// Package analysis turns a run directory's records into figures: pure
// statistics (mean, sample standard deviation, percentiles, fixed-width
// time windows), the metric dictionary that names every figure cometlab
// reports, and Summarize, which reconciles the send log with the chain and
// computes a run's summary.
//
// Everything here but Analyze is pure: values in, values out, no I/O and no
// clock. Analyze is the edge that reads a run directory (package results)
// and writes its summary.json.
//
// Conventions: times are Unix nanoseconds as in the run directory; a figure
// that cannot be computed (no data, or a division by zero) is left out of
// Summary.Metrics and a Note says why, so summary.json never holds NaN or
// Inf.
package analysis
