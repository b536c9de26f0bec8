package rpc

import "context"

// MempoolSize returns what the node's mempool holds: its transactions and
// their summed size in bytes (num_unconfirmed_txs's total and
// total_bytes).
func (c *Client) MempoolSize(ctx context.Context) (txs, bytes int64, err error) {
	var r struct {
		Total      Int64 `json:"total"`
		TotalBytes Int64 `json:"total_bytes"`
	}
	err = c.Call(ctx, "num_unconfirmed_txs", nil, &r)
	return int64(r.Total), int64(r.TotalBytes), err
}
