package rpc

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
)

// AppInfo is the part of /abci_info cometlab reads: the app's last
// committed height and its app hash then.
type AppInfo struct {
	LastBlockHeight int64
	// LastBlockAppHash is upper-case hex, as CometBFT writes hashes
	// elsewhere (the RPC sends these bytes in base64).
	LastBlockAppHash string
}

// ABCIInfo calls /abci_info.
func (c *Client) ABCIInfo(ctx context.Context) (AppInfo, error) {
	var r struct {
		Response struct {
			LastBlockHeight  Int64  `json:"last_block_height"`
			LastBlockAppHash string `json:"last_block_app_hash"`
		} `json:"response"`
	}
	if err := c.Call(ctx, "abci_info", nil, &r); err != nil {
		return AppInfo{}, err
	}
	b, err := base64.StdEncoding.DecodeString(r.Response.LastBlockAppHash)
	if err != nil {
		return AppInfo{}, fmt.Errorf("abci_info from %s: last_block_app_hash: %w", c.base, err)
	}
	return AppInfo{LastBlockHeight: int64(r.Response.LastBlockHeight), LastBlockAppHash: strings.ToUpper(hex.EncodeToString(b))}, nil
}
