// Package compare judges a candidate against a baseline: runs, repeats of
// runs, or sweeps cell by cell.
//
// LoadRun reads what a comparison needs from a run directory (figures
// recomputed with this cometlab's definitions, the distributions behind
// them, settings, time series); LoadSide gathers the repeats of one
// setup. Sides compares each candidate with the baseline metric by
// metric: Δ, Δ %, a confidence interval and a test (Welch's t over
// repeats; within single runs a cluster bootstrap and Mann–Whitney for a
// distribution's figures, a two-proportion test for counts) and a Verdict
// against Thresholds (a default percentage, per-metric overrides from a
// thresholds file). Runs and Sweeps do the same from directories; Sweeps
// matches the cells of sweeps by id and hands each cell's Result to the
// caller as it is made.
//
// Everything but the loaders (LoadRun, LoadSide, Runs, Sweeps) is pure.
// The files a comparison writes are named in package results; package
// report writes them.
package compare
