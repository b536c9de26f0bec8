// Package testnet runs node processes: start, health (every node
// advancing: WaitAdvanced, which also serves nodes on other hosts), stop (SIGTERM, then SIGKILL after a grace period), per-node
// logs, and stopping by pid the nodes of a testnet that an earlier cometlab
// left running on purpose (NodeRunning, StopPIDs). It never leaves an
// orphan: Stop reaps the nodes it started, and on Linux they die with the
// cometlab process (Pdeathsig) even if it is killed. Other Unix systems
// have no parent-death signal: there a cometlab killed by SIGKILL leaves
// its nodes running (sys_other.go).
package testnet
