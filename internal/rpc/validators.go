package rpc

import (
	"context"
	"fmt"
	"strconv"
)

// validatorsPerPage is the largest page /validators serves.
const validatorsPerPage = 100

// Validator is one member of a validator set.
type Validator struct {
	Address string // upper-case hex
	Power   int64
}

// Validators returns the addresses of the validator set at height, in the
// set's order (the order of a commit's signatures), reading every page.
func (c *Client) Validators(ctx context.Context, height int64) ([]string, error) {
	set, err := c.ValidatorSet(ctx, height)
	if err != nil {
		return nil, err
	}
	addrs := make([]string, len(set))
	for i, v := range set {
		addrs[i] = v.Address
	}
	return addrs, nil
}

// ValidatorSet returns the validator set at height with the voting
// powers, in the set's order (a validator's index is its place), reading
// every page.
func (c *Client) ValidatorSet(ctx context.Context, height int64) ([]Validator, error) {
	var set []Validator
	for page := 1; ; page++ {
		var r struct {
			Validators []struct {
				Address string `json:"address"`
				Power   Int64  `json:"voting_power"`
			} `json:"validators"`
			Total Int64 `json:"total"`
		}
		err := c.Call(ctx, "validators", map[string]any{"height": strconv.FormatInt(height, 10),
			"page": strconv.Itoa(page), "per_page": strconv.Itoa(validatorsPerPage)}, &r)
		if err != nil {
			return nil, fmt.Errorf("validators at %d: %w", height, err)
		}
		for _, v := range r.Validators {
			set = append(set, Validator{Address: v.Address, Power: int64(v.Power)})
		}
		if len(r.Validators) == 0 || int64(len(set)) >= int64(r.Total) {
			return set, nil
		}
	}
}
