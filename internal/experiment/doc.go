// Package experiment orchestrates cometlab's work by wiring the other
// packages: one run (testnet up, load, read-back, analysis, report), load
// against an endpoint cometlab did not start (Load), a sweep over a grid
// of load settings and manifest keys (Sweep, ResumeSweep), a saturation
// search (Saturate, ResumeSaturate), an A/B experiment in rounds (AB,
// ResumeAB), a fresh read-back of a run's chain (ReadBack), metrics.csv
// read from a Prometheus server (ReadPrometheus), and a testnet kept up
// for manual use (Up, Down).
//
// A local testnet is brought up by one function (startLocal, localnet.go),
// which refuses first what the mode cannot honour (checkLocal), and used
// through one handle (localNet) by run, sweep cells and search steps
// (fresh or shared), ab and testnet up. A run is a pipeline of phases
// (phases.go: plan, collect, send, drain, read back, end) built by one of
// two constructors (pipeline.go): newNetPipeline for a local testnet,
// newChainPipeline for a chain cometlab does not run (Load), sharing one
// core; what is optional — the death watch, a sentinel, perturbations,
// rotation, evidence, the disk guard, the progress line, a Prometheus
// read-back — is a hook (hooks.go), and only a hook's plan, in the first
// phase, may change the run's plan. Every mode that starts or watches
// nodes takes one Env, and every mode that loads one Collect (env.go);
// what a chain cometlab does not run cannot honour of it is refused by
// checkChain. A run's problems are typed (problems.go) and its status
// follows from their kinds.
package experiment
