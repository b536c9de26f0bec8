package cometbft

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
)

// ValidatorKey is a node's validator key, from priv_validator_key.json.
type ValidatorKey struct {
	Address []byte // 20 bytes
	// Type is the key's CometBFT key type ([KeyEd25519], …) and Priv its
	// bytes as the file holds them.
	Type string
	Priv []byte
}

// privKeyTypes maps the JSON type names of private keys (the crypto
// packages' PrivKeyName) to their key types.
var privKeyTypes = map[string]string{
	"tendermint/PrivKeyEd25519":      KeyEd25519,
	"tendermint/PrivKeySecp256k1":    KeySecp256k1,
	"tendermint/PrivKeySecp256k1eth": KeySecp256k1Eth,
	"cometbft/PrivKeyBls12_381":      KeyBLS12381,
	"cometbft/PrivKeyMlDsa65":        KeyMLDSA65,
}

// ReadValidatorKey reads the validator key of the node home: its type (one
// of the key types of [Lines]) and bytes, and its address; an unknown key
// type is refused.
func ReadValidatorKey(home string) (ValidatorKey, error) {
	path := PrivValidatorKeyFile(home)
	b, err := os.ReadFile(path)
	if err != nil {
		return ValidatorKey{}, err
	}
	var pv struct {
		Address string  `json:"address"`
		PrivKey keyJSON `json:"priv_key"`
	}
	if err := json.Unmarshal(b, &pv); err != nil {
		return ValidatorKey{}, fmt.Errorf("%s: %w", path, err)
	}
	typ, ok := privKeyTypes[pv.PrivKey.Type]
	if !ok {
		return ValidatorKey{}, fmt.Errorf("%s: unknown private key type %q", path, pv.PrivKey.Type)
	}
	key, err := base64.StdEncoding.DecodeString(pv.PrivKey.Value)
	if err != nil || len(key) == 0 {
		return ValidatorKey{}, fmt.Errorf("%s: priv_key is not a base64 %s key", path, typ)
	}
	addr, err := hex.DecodeString(pv.Address)
	if err != nil || len(addr) != 20 {
		return ValidatorKey{}, fmt.Errorf("%s: address %q is not 20 bytes of hex", path, pv.Address)
	}
	return ValidatorKey{Address: addr, Type: typ, Priv: key}, nil
}
