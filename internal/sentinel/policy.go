package sentinel

// Class is what the sentinel does with a method.
type Class int

// The method classes.
const (
	Refused   Class = iota // unsafe or unknown: -32601, HTTP 403
	Broadcast              // broadcast_tx_*: admitted through the queue
	ReadOnly               // proxied under the read limit
	Subscribe              // websocket-only event methods, proxied on a websocket
)

// readOnly are the node's routes that change nothing (CometBFT's
// rpc/core/routes.go, v0.34 to v1.x). check_tx runs CheckTx without adding
// the tx to the mempool.
var readOnly = map[string]bool{
	"health": true, "status": true, "net_info": true, "blockchain": true, "genesis": true,
	"genesis_chunked": true, "block": true, "block_by_hash": true, "block_results": true,
	"commit": true, "header": true, "header_by_hash": true, "check_tx": true, "tx": true,
	"tx_search": true, "block_search": true, "validators": true, "dump_consensus_state": true,
	"consensus_state": true, "consensus_params": true, "unconfirmed_txs": true,
	"num_unconfirmed_txs": true, "abci_query": true, "abci_info": true,
}

// Classify returns the class of method. Everything not named here —
// unsafe_*, dial_seeds, dial_peers, broadcast_evidence and any unknown
// name — is Refused.
func Classify(method string) Class {
	switch method {
	case "broadcast_tx_async", "broadcast_tx_sync", "broadcast_tx_commit":
		return Broadcast
	case "subscribe", "unsubscribe", "unsubscribe_all":
		return Subscribe
	}
	if readOnly[method] {
		return ReadOnly
	}
	return Refused
}
