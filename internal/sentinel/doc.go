// Package sentinel is a transaction gateway in front of one CometBFT node's
// JSON-RPC: it speaks the node's JSON-RPC over HTTP (POST, batch, GET with
// params) and websocket, limits each client with a token bucket and a cap
// on open connections, queues admitted transactions fairly (one bounded
// queue per client, served by deficit round robin), feeds them to the node
// at the pace an AIMD controller derives from the node's mempool and
// commit rate, and refuses explicitly — HTTP 429 with Retry-After and a
// JSON-RPC error naming the limit — whatever it does not admit. With a
// spool directory, accepted transactions survive a restart.
//
// The pure cores are FairQueue (deficit round robin), Pacer (AIMD) and the
// request parser (ParseRequests); Sentinel wires them to the network.
package sentinel
