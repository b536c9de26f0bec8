// Package compare judges a candidate against a baseline: runs, repeats of
// runs, or sweeps cell by cell.
//
// LoadRun reads what a comparison needs from a run directory (figures
// recomputed with this cometlab's definitions, the distributions behind
// them, settings, time series); LoadSide gathers the repeats of one
// setup. Sides compares each candidate with the baseline metric by
// metric: Δ, Δ %, a confidence interval and a test (Welch's t over
// repeats; within single runs a cluster bootstrap and Mann–Whitney for a
// distribution's figures, a two-proportion test for counts; over repeats
// a count of events — slow heights, rejected transactions — as a rate
// per height or transaction, rate.go) and a Verdict against Thresholds (a
// default percentage, per-metric overrides from a thresholds file). Runs and Sweeps do the same from directories; Sweeps
// matches the cells of sweeps by id and hands each cell's Result to the
// caller as it is made.
//
// The QA method's verdicts (qa.go, qa_rounds.go): JudgeQA gives each
// figure its verdict from the 10 % rule as published (QARule) beside
// significance (QASignificance); QAFigures records them; QAMoreRounds
// takes ab's sequential look (package sequential) at the undecided
// figures and says whether another round is wanted, ApplyQALook gives
// them the look's decisions or "undecided after N rounds".
//
// Everything but the loaders (LoadRun, LoadSide, Runs, Sweeps) is pure.
// The files a comparison writes are named in package results; package
// report writes them.
package compare
