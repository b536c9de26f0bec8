// Package history owns the history index: every run, sweep, saturation
// search and A/B experiment directory, indexed in one SQLite file
// (modernc.org/sqlite, pure Go) so that runs of months can be listed,
// filtered and followed as series, and a new run judged against the runs
// before it.
//
// The run directories stay the source of truth. Read and Walk turn
// directories into Run values (a sweep's cells, a search's steps and an
// A/B experiment's runs are runs too, each linked to its parent); Index
// stores them (Add, Rebuild) and answers queries (Runs). What is computed
// from runs is pure and takes values: Series groups runs by SeriesKey
// (manifest, load, host fingerprint, app), MakeTrend orders one figure of
// one series by release or time and asks a Detector for its change points,
// and Judge decides whether a new run is a regression against its series
// (the gate).
package history
