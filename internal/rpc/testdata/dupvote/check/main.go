// Command check is how testdata/dupvote was checked against CometBFT's
// own code (see ../README.md): it decodes an evidence file with
// CometBFT's JSON decoder, runs ValidateBasic and VerifyDuplicateVote
// against a validator set of the key's validator (index 1 of 4, power
// 1), and prints the sign bytes of vote A.
package main

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"os"

	"github.com/cometbft/cometbft/crypto"
	cmted "github.com/cometbft/cometbft/crypto/ed25519"
	"github.com/cometbft/cometbft/evidence"
	cmtjson "github.com/cometbft/cometbft/libs/json"
	"github.com/cometbft/cometbft/types"
)

func main() {
	b, err := os.ReadFile(os.Args[1])
	if err != nil {
		panic(err)
	}
	var ev types.Evidence
	if err := cmtjson.Unmarshal(b, &ev); err != nil {
		panic(err)
	}
	if err := ev.ValidateBasic(); err != nil {
		panic(err)
	}
	dve := ev.(*types.DuplicateVoteEvidence)
	priv := cmted.PrivKey(ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize)))
	vals := []*types.Validator{types.NewValidator(priv.PubKey(), 1)}
	for i := 0; i < 3; i++ {
		vals = append(vals, types.NewValidator(cmted.GenPrivKey().PubKey(), 1))
	}
	set := types.NewValidatorSet(vals)
	idx, _ := set.GetByAddress(priv.PubKey().Address())
	fmt.Println("index", idx, "power", dve.ValidatorPower, "total", dve.TotalVotingPower, "time", dve.Timestamp)
	if err := evidence.VerifyDuplicateVote(dve, "cometlab-test", set); err != nil {
		panic(err)
	}
	fmt.Println("verified; sign bytes of vote A:", hex.EncodeToString(types.VoteSignBytes("cometlab-test", dve.VoteA.ToProto())))
	var _ crypto.PubKey = priv.PubKey()
}
