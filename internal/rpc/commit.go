package rpc

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
)

// blockHash is what a block hash is: 32 bytes of hex.
var blockHash = regexp.MustCompile(`^[0-9A-Fa-f]{64}$`)

// CommitHash returns the hash of the block at height from /commit (its
// signed header's commit's block_id), the trust hash a state sync starts
// from.
func (c *Client) CommitHash(ctx context.Context, height int64) (string, error) {
	var r struct {
		SignedHeader struct {
			Header struct {
				Height Int64 `json:"height"`
			} `json:"header"`
			Commit struct {
				BlockID struct {
					Hash string `json:"hash"`
				} `json:"block_id"`
			} `json:"commit"`
		} `json:"signed_header"`
	}
	if err := c.Call(ctx, "commit", map[string]any{"height": strconv.FormatInt(height, 10)}, &r); err != nil {
		return "", fmt.Errorf("commit %d from %s: %w", height, c.base, err)
	}
	h := r.SignedHeader.Commit.BlockID.Hash
	if int64(r.SignedHeader.Header.Height) != height || !blockHash.MatchString(h) {
		return "", fmt.Errorf("commit %d from %s: header height %d, block hash %q", height, c.base, r.SignedHeader.Header.Height, h)
	}
	return h, nil
}
