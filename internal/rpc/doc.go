// Package rpc is a thin JSON-RPC client for the few CometBFT endpoints
// cometlab uses — status, block, num_unconfirmed_txs over HTTP and
// subscribe over websocket — written against the JSON shapes that stay the
// same from v0.34 to v1.x, so that one client serves every release.
package rpc
