package collect

import (
	"context"
	"strings"

	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/rpc"
)

// nameAbsent fills in the addresses of the absent votes of blk's last
// commit (which carries none) from the validator set at the commit's
// height, whose order the commit's signatures follow. It costs one request
// per block with an absent vote and none otherwise; when the set cannot be
// read or does not match the commit, the votes stay unnamed.
func nameAbsent(ctx context.Context, c *rpc.Client, blk *rpc.Block) {
	absent := false
	for _, v := range blk.LastCommit {
		absent = absent || v.Flag == rpc.FlagAbsent
	}
	if !absent || blk.Height < 2 {
		return
	}
	vals, err := c.Validators(ctx, blk.Height-1)
	if err != nil || len(vals) != len(blk.LastCommit) {
		return
	}
	for i := range blk.LastCommit {
		if blk.LastCommit[i].Flag == rpc.FlagAbsent {
			blk.LastCommit[i].Validator = vals[i]
		}
	}
}

// writeVotes writes the precommits for block b (votes, from the next
// block's last commit) and returns how many absent ones are unnamed.
func writeVotes(cfg WalkConfig, b rpc.Block, votes []rpc.Vote) (unnamed int64) {
	if cfg.Precommits == nil {
		return 0
	}
	for _, v := range votes {
		p := results.Precommit{Height: b.Height, Validator: v.Validator, Flag: v.Flag.String()}
		p.Node = cfg.Names[strings.ToUpper(v.Validator)]
		if v.Flag != rpc.FlagAbsent {
			p.OffsetMs = float64(v.Time.Sub(b.Time).Microseconds()) / 1e3
		}
		if v.Validator == "" {
			unnamed++
		}
		cfg.Precommits.Write(&p)
	}
	return unnamed
}
