// Package experiment orchestrates cometlab's work by wiring the other
// packages: one run (testnet up, load, read-back, analysis, report), load
// against an existing endpoint, and a testnet kept up for manual use.
package experiment
