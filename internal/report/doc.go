// Package report presents a run: a text table of its key figures for the
// terminal (Table), and report.md with its plots in the run directory
// (Write), the form CometBFT's QA reports take — the experiment, a results
// table, the block-latency scatter plot, the accounting of every sent
// transaction, and a data dictionary generated from analysis.Dictionary.
//
// Reports are recomputed from the run directory's files alone, and the
// same files always give the same report.md (no clock, no host details but
// those in run.json), so reports can be compared and golden-tested.
package report
