// Package cometbft owns everything version-specific about CometBFT:
// fetching a node binary for a release (go install into a per-version
// cache), generating node homes (genesis, keys, config.toml per node and per
// version), what differs between release lines, and which config.toml keys
// cometlab sets per run (RunSpecificConfigKeys).
package cometbft
