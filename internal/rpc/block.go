package rpc

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Block is the part of a block cometlab reads.
type Block struct {
	Height    int64
	Time      time.Time
	Proposer  string   // hex address
	LastRound int32    // round at which the previous block was committed
	Txs       [][]byte // raw transactions
	TxCount   int      // len(Txs) as fetched (kept when Txs is dropped)
	TxBytes   int64    // sum of len(Txs)
	// LastCommit holds the precommits for the previous height that the
	// block carries, in the validator set's order (an absent one has no
	// address: [Client.Validators] names it).
	LastCommit []Vote
	Evidence   []Evidence
}

// BlockIDFlag says what a validator's precommit in a commit was for
// (CometBFT's types.BlockIDFlag, the same numbers in v0.34–v1.x).
type BlockIDFlag uint8

// The flags of a commit signature.
const (
	FlagAbsent BlockIDFlag = 1 // no precommit arrived in time for the commit
	FlagCommit BlockIDFlag = 2 // precommit for the committed block
	FlagNil    BlockIDFlag = 3 // precommit for nil
)

// String returns "absent", "commit", "nil" or the number.
func (f BlockIDFlag) String() string {
	switch f {
	case FlagAbsent:
		return "absent"
	case FlagCommit:
		return "commit"
	case FlagNil:
		return "nil"
	}
	return strconv.Itoa(int(f))
}

// Vote is one validator's entry in a block's last commit.
type Vote struct {
	Flag      BlockIDFlag
	Validator string    // hex address; "" when absent
	Time      time.Time // the precommit's timestamp; zero when absent
}

// Evidence is one piece of evidence of misbehaviour a block carries.
type Evidence struct {
	Type       string   // "DuplicateVoteEvidence" or "LightClientAttackEvidence" (the JSON type without "tendermint/")
	Height     int64    // of the misbehaviour: the votes' height, or the attack's common height
	Validators []string // addresses (upper-case hex) of the validators it accuses
}

// evidenceJSON is a piece of evidence as /block encodes it (amino JSON:
// a type name and a value), with the fields of both kinds.
type evidenceJSON struct {
	Type  string `json:"type"`
	Value struct {
		VoteA *struct {
			Height           Int64  `json:"height"`
			ValidatorAddress string `json:"validator_address"`
		} `json:"vote_a"`
		CommonHeight        Int64 `json:"CommonHeight"`
		ByzantineValidators []struct {
			Address string `json:"address"`
		} `json:"ByzantineValidators"`
	} `json:"value"`
}

func (e *evidenceJSON) evidence() Evidence {
	ev := Evidence{Type: strings.TrimPrefix(e.Type, "tendermint/")}
	v := &e.Value
	if v.VoteA != nil {
		ev.Height = int64(v.VoteA.Height)
		ev.Validators = []string{v.VoteA.ValidatorAddress}
		return ev
	}
	ev.Height = int64(v.CommonHeight)
	for _, b := range v.ByzantineValidators {
		ev.Validators = append(ev.Validators, b.Address)
	}
	return ev
}

// Block fetches the block at height.
func (c *Client) Block(ctx context.Context, height int64) (Block, error) {
	b, err := c.raw(ctx, "block", map[string]any{"height": strconv.FormatInt(height, 10)})
	if err != nil {
		return Block{}, err
	}
	blk, err := ParseBlock(b)
	if err != nil {
		if strings.Contains(err.Error(), "must be less than or equal to the current blockchain height") {
			return Block{}, fmt.Errorf("block %d from %s: %w", height, c.base, ErrNoBlock)
		}
		return Block{}, fmt.Errorf("block %d from %s: %w", height, c.base, err)
	}
	return blk, nil
}

var txsKey = []byte(`"txs":[`)

// ParseBlock decodes a JSON-RPC response to /block. The transactions, which
// make up nearly all of the bytes, are cut out and decoded by hand so that
// encoding/json only walks the small rest.
func ParseBlock(b []byte) (Block, error) {
	var blk Block
	rest := b
	if i := bytes.Index(b, txsKey); i >= 0 {
		start := i + len(txsKey)
		end, txs, n, err := scanTxs(b[start:])
		if err != nil {
			return Block{}, err
		}
		blk.Txs, blk.TxCount, blk.TxBytes = txs, len(txs), n
		// Replace the array by an empty one for the JSON decoder.
		rest = make([]byte, 0, len(b)-end+2)
		rest = append(rest, b[:start]...)
		rest = append(rest, b[start+end:]...)
	}
	var r struct {
		Result *struct {
			Block struct {
				Header struct {
					Height   Int64     `json:"height"`
					Time     time.Time `json:"time"`
					Proposer string    `json:"proposer_address"`
				} `json:"header"`
				LastCommit struct {
					Round      int32 `json:"round"`
					Signatures []struct {
						Flag      BlockIDFlag `json:"block_id_flag"`
						Validator string      `json:"validator_address"`
						Time      time.Time   `json:"timestamp"`
					} `json:"signatures"`
				} `json:"last_commit"`
				Evidence struct {
					Evidence []evidenceJSON `json:"evidence"`
				} `json:"evidence"`
			} `json:"block"`
		} `json:"result"`
		Error *Error `json:"error"`
	}
	if err := json.Unmarshal(rest, &r); err != nil {
		return Block{}, fmt.Errorf("decode block: %w", err)
	}
	if r.Error != nil {
		return Block{}, r.Error
	}
	if r.Result == nil {
		return Block{}, fmt.Errorf("decode block: no result")
	}
	h := r.Result.Block.Header
	blk.Height, blk.Time, blk.Proposer = int64(h.Height), h.Time, h.Proposer
	lc := r.Result.Block.LastCommit
	blk.LastRound = lc.Round
	for _, v := range lc.Signatures {
		if v.Flag < FlagAbsent || v.Flag > FlagNil {
			return Block{}, fmt.Errorf("decode block: last commit: block_id_flag %d", v.Flag)
		}
		if v.Flag == FlagAbsent {
			v.Validator, v.Time = "", time.Time{}
		}
		blk.LastCommit = append(blk.LastCommit, Vote{Flag: v.Flag, Validator: v.Validator, Time: v.Time})
	}
	for i := range r.Result.Block.Evidence.Evidence {
		blk.Evidence = append(blk.Evidence, r.Result.Block.Evidence.Evidence[i].evidence())
	}
	return blk, nil
}

// scanTxs reads a JSON array of base64 strings that starts right after its
// '['. It returns the offset of the closing ']', the decoded transactions
// and their total size.
func scanTxs(b []byte) (end int, txs [][]byte, total int64, err error) {
	i := 0
	for {
		for i < len(b) && (b[i] == ' ' || b[i] == ',' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
			i++
		}
		if i >= len(b) {
			return 0, nil, 0, fmt.Errorf("decode block: unterminated txs array")
		}
		if b[i] == ']' {
			return i, txs, total, nil
		}
		if b[i] != '"' {
			return 0, nil, 0, fmt.Errorf("decode block: unexpected %q in txs array", b[i])
		}
		j := bytes.IndexByte(b[i+1:], '"')
		if j < 0 {
			return 0, nil, 0, fmt.Errorf("decode block: unterminated tx string")
		}
		s := b[i+1 : i+1+j]
		tx := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
		n, derr := base64.StdEncoding.Decode(tx, s)
		if derr != nil {
			return 0, nil, 0, fmt.Errorf("decode block: tx %d: %w", len(txs), derr)
		}
		txs = append(txs, tx[:n])
		total += int64(n)
		i += j + 2
	}
}
