package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
)

// TxResult is the app's verdict on one committed transaction
// (/block_results' txs_results, as FinalizeBlock or DeliverTx returned
// it): code 0 is success; any other code is the app's failure, named by
// its codespace (a Cosmos SDK module, "sdk" for the SDK's own errors).
type TxResult struct {
	Code      uint32
	Codespace string
	GasWanted int64
	GasUsed   int64
	Log       string
}

// BlockResults fetches the app's results of the transactions of block
// height, in the block's order.
func (c *Client) BlockResults(ctx context.Context, height int64) ([]TxResult, error) {
	b, err := c.raw(ctx, "block_results", map[string]any{"height": strconv.FormatInt(height, 10)})
	if err != nil {
		return nil, err
	}
	rs, err := ParseBlockResults(b)
	if err != nil {
		return nil, fmt.Errorf("block_results %d from %s: %w", height, c.base, err)
	}
	return rs, nil
}

// ParseBlockResults decodes a JSON-RPC response to /block_results (every
// release from v0.34: the transactions' results are txs_results).
func ParseBlockResults(b []byte) ([]TxResult, error) {
	var r struct {
		Result *struct {
			TxsResults []struct {
				Code      uint32 `json:"code"`
				Codespace string `json:"codespace"`
				GasWanted Int64  `json:"gas_wanted"`
				GasUsed   Int64  `json:"gas_used"`
				Log       string `json:"log"`
			} `json:"txs_results"`
		} `json:"result"`
		Error *Error `json:"error"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	if r.Error != nil {
		return nil, r.Error
	}
	if r.Result == nil {
		return nil, fmt.Errorf("no result")
	}
	out := make([]TxResult, len(r.Result.TxsResults))
	for i, t := range r.Result.TxsResults {
		out[i] = TxResult{Code: t.Code, Codespace: t.Codespace, GasWanted: int64(t.GasWanted), GasUsed: int64(t.GasUsed), Log: t.Log}
	}
	return out, nil
}
