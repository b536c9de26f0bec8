// Package resultstest holds what tests share and cometlab itself does not
// use.
//
// Synthetic, deterministic run-directory records for tests and benchmarks
// of analysis and report: what a testnet's nodes would have exposed while a
// given chain was produced (metrics.csv, resources.csv, adoption.csv), a
// run held in memory (Synthetic), and whole run directories of any size
// (WriteRun).
//
// The test harness: the one -update flag of the test binaries (Updating),
// the golden-file check (Golden), the generated sections of the docs'
// pages (Section), the runner of the data-driven cases of testdata/*.txt
// (RunFiles), and WriteFile, WriteCSV, GzipFile and CopyRun for test setup
// that must not drop its errors.
package resultstest
