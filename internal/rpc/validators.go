package rpc

import (
	"context"
	"fmt"
	"strconv"
)

// validatorsPerPage is the largest page /validators serves.
const validatorsPerPage = 100

// Validators returns the addresses of the validator set at height, in the
// set's order (the order of a commit's signatures), reading every page.
func (c *Client) Validators(ctx context.Context, height int64) ([]string, error) {
	var addrs []string
	for page := 1; ; page++ {
		var r struct {
			Validators []struct {
				Address string `json:"address"`
			} `json:"validators"`
			Total Int64 `json:"total"`
		}
		err := c.Call(ctx, "validators", map[string]any{"height": strconv.FormatInt(height, 10),
			"page": strconv.Itoa(page), "per_page": strconv.Itoa(validatorsPerPage)}, &r)
		if err != nil {
			return nil, fmt.Errorf("validators at %d: %w", height, err)
		}
		for _, v := range r.Validators {
			addrs = append(addrs, v.Address)
		}
		if len(r.Validators) == 0 || int64(len(addrs)) >= int64(r.Total) {
			return addrs, nil
		}
	}
}
