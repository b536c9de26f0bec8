// Package links owns the user-space relays every p2p connection between
// the nodes of a local testnet goes through, so that cometlab can cut a
// node's links (a disconnect) with its process running: one loopback
// listener per directed peer link (node A dials B's relay for A→B, which
// dials B), and a node's persistent_peers name its relays instead of the
// peers. Cut closes every relayed connection of a node and refuses new
// ones until Restore. Bytes pass through unchanged, after a one-way delay
// per ordered pair of nodes when one is set (SetDelay), varied by a
// jitter (SetJitter). Each relayed connection's opening exchange is timed
// (RoundTrips), which measures the round trip the delays make. Matrix
// holds the one-way delays between zones; AWS is CometBFT's matrix of 13
// AWS regions, and ParseMatrix reads a user's CSV of the same form; the
// manifest's [zones] table names one. A relay can pace each direction to a
// bandwidth (SetBandwidth); Bandwidth holds the capacities between zones
// (a default and per-pair values).
//
// Where nodes learn addresses through the peer exchange, a relay per
// directed link cannot be named by the learner: AddInbound opens one relay
// in front of a node that every node dials (the address the node
// advertises), and each connection's dialler is found in /proc
// (SetDiallers names the node processes), so the same per-pair delays,
// bandwidths and cuts apply.
//
// libp2p nodes (QUIC over UDP) go through datagram relays (udp.go): AddUDP
// opens one in front of a node, which it advertises; each datagram's
// sender is named by its source address (a libp2p node sends from its
// listener), and one from no node's listener is dropped and counted. The
// same delays, jitter, bandwidths, cuts and partitions apply per datagram;
// UDPStats counts the bytes relayed per ordered pair.
package links
