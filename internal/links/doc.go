// Package links owns the user-space relays every p2p connection between
// the nodes of a local testnet goes through, so that cometlab can cut a
// node's links (a disconnect) with its process running: one loopback
// listener per directed peer link (node A dials B's relay for A→B, which
// dials B), and a node's persistent_peers name its relays instead of the
// peers. Cut closes every relayed connection of a node and refuses new
// ones until Restore. Bytes pass through unchanged.
package links
