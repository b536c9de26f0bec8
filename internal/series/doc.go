// Package series runs series of runs and the modes built on them: a sweep
// over a grid of load settings and manifest keys (Sweep, ResumeSweep), a
// saturation search (Saturate, ResumeSaturate) and an A/B experiment in
// rounds (AB, ResumeAB), each with its record and report rewritten after
// every run, so that an interrupted series resumes where it stopped.
//
// Every series goes through one runner (series.go, runner.go): each run
// is an experiment.Runs run (a fresh testnet, or one shared testnet),
// judged by the series' saturation criterion into an Outcome, under one
// disturbance policy (a run whose host was busy with other work is
// measured again, once, within a budget) and one safety verdict (Safety:
// a run that broke safety ends the series with exit code 5). Once is a
// series of one run, for a mode that needs a single measured run under
// the same policy (the QA's rolling upgrade).
package series
