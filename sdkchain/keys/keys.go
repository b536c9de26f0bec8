// Package keys derives the chain's keys from a seed, so that the genesis
// that funds accounts and the signer that spends from them agree without
// a keyring: load account i and validator i's operator each get a
// secp256k1 key made from the SHA-256 of the seed, a role and i.
package keys

import (
	"fmt"

	"github.com/cosmos/cosmos-sdk/crypto/keys/secp256k1"
	sdk "github.com/cosmos/cosmos-sdk/types"
)

// Account returns load account i's key.
func Account(seed string, i int) *secp256k1.PrivKey {
	return secp256k1.GenPrivKeyFromSecret(fmt.Appendf(nil, "cometlab-sdk/%s/account/%d", seed, i))
}

// Operator returns validator i's operator key (the account that stakes
// and signs its gentx).
func Operator(seed string, i int) *secp256k1.PrivKey {
	return secp256k1.GenPrivKeyFromSecret(fmt.Appendf(nil, "cometlab-sdk/%s/operator/%d", seed, i))
}

// Address returns the account address of key.
func Address(key *secp256k1.PrivKey) sdk.AccAddress {
	return sdk.AccAddress(key.PubKey().Address())
}
