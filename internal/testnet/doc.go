// Package testnet runs node processes: start, health (every node
// advancing), stop (SIGTERM, then SIGKILL after a grace period), per-node
// logs. It never leaves an orphan: nodes started by Start die with the
// cometlab process (Pdeathsig) even if it is killed, and Stop reaps them.
package testnet
