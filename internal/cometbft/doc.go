// Package cometbft owns everything version-specific about CometBFT:
// fetching a node binary for a release (go install into a per-version
// cache), generating node homes (genesis, keys, config.toml per node and per
// version), and what differs between release lines.
package cometbft
