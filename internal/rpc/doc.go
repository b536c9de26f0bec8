// Package rpc is a thin JSON-RPC client for the few CometBFT endpoints
// cometlab uses — status, block, num_unconfirmed_txs over HTTP and
// subscribe over websocket — written against the JSON shapes that stay the
// same from v0.34 to v1.x, so that one client serves every release; and
// duplicate-vote evidence forged and signed with a validator's key (Key:
// ed25519, secp256k1, secp256k1eth, ml_dsa_65).
package rpc
