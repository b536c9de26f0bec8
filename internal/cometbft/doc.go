// Package cometbft owns everything version-specific about CometBFT:
// fetching a node binary for a release (built once into a per-version
// cache, with go install or, where go install cannot, from the release's
// module source built as the main module; a release that cannot be built
// is refused with the reason and the nearest one that can), building a
// CometBFT source tree or a release with patches the same way (cached by
// the code's hash, the tree's release line read from its version file:
// tree.go, source.go, sourcebuild.go), listing the
// known releases and their status, generating node homes (genesis, keys,
// config.toml per node and per version; validator keys of other types
// than ed25519 made by cometlab's keygen, built in the release's source;
// programs built with a key type's build tag and cgo), and the facts of
// each release
// line: what differs between lines and which lines can share a network, and
// which config.toml keys cometlab sets per run (RunSpecificConfigKeys).
package cometbft
