package sentinel

import (
	"encoding/json"
	"strconv"
)

// addPending adds the broadcasts the sentinel has admitted but the node has
// not yet answered to a node's num_unconfirmed_txs reply (n_txs, total and
// total_bytes): to a client they are accepted and not yet confirmed, so a
// client that waits for the mempool to drain (cometlab load's read-back
// does) waits for the sentinel's queue too. A reply it cannot read is
// returned as it is.
func (s *Sentinel) addPending(body []byte) []byte {
	n, b := s.pending.Load(), s.pendingBytes.Load()
	if n == 0 {
		return body
	}
	var rep struct {
		JSONRPC string                     `json:"jsonrpc"`
		ID      json.RawMessage            `json:"id"`
		Result  map[string]json.RawMessage `json:"result"`
		Error   json.RawMessage            `json:"error,omitempty"`
	}
	if json.Unmarshal(body, &rep) != nil || rep.Result == nil {
		return body
	}
	add := func(k string, v int64) {
		var s string
		if json.Unmarshal(rep.Result[k], &s) != nil {
			return
		}
		have, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return
		}
		rep.Result[k] = json.RawMessage(strconv.Quote(strconv.FormatInt(have+v, 10)))
	}
	add("n_txs", n)
	add("total", n)
	add("total_bytes", b)
	out, err := json.Marshal(rep)
	if err != nil {
		return body
	}
	return out
}
