package rpc

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
)

// precommitType is CometBFT's SignedMsgType of a precommit.
const precommitType = 2

// BlockID is a block's hash and its part set header, as a vote names it.
type BlockID struct {
	Hash      []byte // 32 bytes
	PartTotal uint32
	PartHash  []byte // 32 bytes
}

// DuplicateVote is duplicate-vote evidence: one validator's two
// precommits, round 0, for two different blocks at one height, as
// CometBFT's e2e runner forges them (test/e2e/runner/evidence.go). A node
// accepts it when the validator was in the set at Height with Power out
// of Total, and Time is the header time of block Height.
type DuplicateVote struct {
	ChainID   string
	Height    int64
	Time      time.Time
	Address   []byte // the validator's, 20 bytes
	Index     int32  // its index in the validator set at Height
	Power     int64
	Total     int64 // the set's voting power
	A, B      BlockID
	Key       Key  // the validator's, of a type [CanSign] takes
	SnakeCase bool // the release's JSON names the power and time fields in snake case (v1.0)
}

// VoteSignBytes returns the bytes a validator signs for its precommit for
// block id: CometBFT's types.VoteSignBytes, the CanonicalVote protobuf
// (type, sfixed64 height and round, block id, timestamp, chain id; proto3
// leaves zero scalars out), length-delimited. The same bytes in v0.34–v1.x.
func (d *DuplicateVote) VoteSignBytes(id BlockID) []byte {
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.VarintType)
	b = protowire.AppendVarint(b, precommitType)
	if d.Height != 0 {
		b = protowire.AppendTag(b, 2, protowire.Fixed64Type)
		b = protowire.AppendFixed64(b, uint64(d.Height))
	}
	// round (field 3) is 0
	var bid []byte
	if len(id.Hash) > 0 {
		bid = protowire.AppendTag(bid, 1, protowire.BytesType)
		bid = protowire.AppendBytes(bid, id.Hash)
	}
	bid = protowire.AppendTag(bid, 2, protowire.BytesType)
	bid = protowire.AppendBytes(bid, id.partSetHeader())
	b = protowire.AppendTag(b, 4, protowire.BytesType)
	b = protowire.AppendBytes(b, bid)
	var ts []byte
	if s := d.Time.Unix(); s != 0 {
		ts = protowire.AppendTag(ts, 1, protowire.VarintType)
		ts = protowire.AppendVarint(ts, uint64(s))
	}
	if n := d.Time.Nanosecond(); n != 0 {
		ts = protowire.AppendTag(ts, 2, protowire.VarintType)
		ts = protowire.AppendVarint(ts, uint64(n))
	}
	b = protowire.AppendTag(b, 5, protowire.BytesType)
	b = protowire.AppendBytes(b, ts)
	if d.ChainID != "" {
		b = protowire.AppendTag(b, 6, protowire.BytesType)
		b = protowire.AppendString(b, d.ChainID)
	}
	return append(binary.AppendUvarint(nil, uint64(len(b))), b...)
}

// partSetHeader is the (Canonical)PartSetHeader protobuf: total, hash.
func (id BlockID) partSetHeader() []byte {
	var b []byte
	if id.PartTotal != 0 {
		b = protowire.AppendTag(b, 1, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(id.PartTotal))
	}
	if len(id.PartHash) > 0 {
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		b = protowire.AppendBytes(b, id.PartHash)
	}
	return b
}

// key is a block id's order key, CometBFT's BlockID.Key(): the hash then
// the part set header's protobuf; evidence lists vote A's block first.
func (id BlockID) key() string { return string(id.Hash) + string(id.partSetHeader()) }

// MarshalJSON writes the evidence as broadcast_evidence takes it:
// CometBFT's JSON of a types.Evidence, {"type":
// "tendermint/DuplicateVoteEvidence", "value": {...}}, its votes signed
// with Key and ordered by block id.
func (d *DuplicateVote) MarshalJSON() ([]byte, error) {
	if len(d.Address) != 20 {
		return nil, fmt.Errorf("duplicate vote: want a 20-byte address, got %d bytes", len(d.Address))
	}
	a, b := d.A, d.B
	if a.key() > b.key() {
		a, b = b, a
	}
	total, power, ts := "TotalVotingPower", "ValidatorPower", "Timestamp"
	if d.SnakeCase {
		total, power, ts = "total_voting_power", "validator_power", "timestamp"
	}
	va, err := d.vote(a)
	if err != nil {
		return nil, err
	}
	vb, err := d.vote(b)
	if err != nil {
		return nil, err
	}
	value := map[string]any{"vote_a": va, "vote_b": vb, total: strconv.FormatInt(d.Total, 10),
		power: strconv.FormatInt(d.Power, 10), ts: d.Time.UTC().Format(time.RFC3339Nano)}
	return json.Marshal(map[string]any{"type": "tendermint/DuplicateVoteEvidence", "value": value})
}

// vote is one signed precommit in CometBFT's JSON.
func (d *DuplicateVote) vote(id BlockID) (map[string]any, error) {
	sig, err := d.Key.Sign(d.VoteSignBytes(id))
	if err != nil {
		return nil, fmt.Errorf("duplicate vote: %w", err)
	}
	upper := func(b []byte) string { return strings.ToUpper(hex.EncodeToString(b)) }
	return map[string]any{
		"type": precommitType, "height": strconv.FormatInt(d.Height, 10), "round": 0,
		"block_id":          map[string]any{"hash": upper(id.Hash), "parts": map[string]any{"total": id.PartTotal, "hash": upper(id.PartHash)}},
		"timestamp":         d.Time.UTC().Format(time.RFC3339Nano),
		"validator_address": upper(d.Address), "validator_index": d.Index,
		"signature": base64.StdEncoding.EncodeToString(sig),
	}, nil
}

// BroadcastEvidence submits evidence (a JSON value such as a
// [DuplicateVote]) with broadcast_evidence and returns its hash as the
// node reports it; the node checks it before it takes it.
func (c *Client) BroadcastEvidence(ctx context.Context, evidence json.Marshaler) (string, error) {
	var r struct {
		Hash string `json:"hash"`
	}
	if err := c.Call(ctx, "broadcast_evidence", map[string]any{"evidence": evidence}, &r); err != nil {
		return "", err
	}
	return r.Hash, nil
}
