// Package experiment orchestrates cometlab's work by wiring the other
// packages: one run (testnet up, load, read-back, analysis, report), load
// against an endpoint cometlab did not start (Load), a sweep over a grid
// of load settings and manifest keys (Sweep, ResumeSweep), a saturation
// search (Saturate, ResumeSaturate), an A/B experiment in rounds (AB,
// ResumeAB), a fresh read-back of a run's chain (ReadBack), metrics.csv
// read from a Prometheus server (ReadPrometheus), and a testnet kept up
// for manual use (Up, Down).
//
// Every run begins the same way: an id, its run directory and the defaults
// of the options all runs share. A sweep or search runs each of its runs
// on a fresh testnet or, with reuse, on a testnet shared by consecutive
// runs.
package experiment
