package cometbft

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
)

// ValidatorKey is a node's validator key, from priv_validator_key.json.
type ValidatorKey struct {
	Address []byte // 20 bytes
	Key     ed25519.PrivateKey
}

// ReadValidatorKey reads the validator key of the node home: an ed25519
// key (tendermint/PrivKeyEd25519, the 64-byte seed and public key) and its
// address; other key types are refused.
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
	if pv.PrivKey.Type != "tendermint/PrivKeyEd25519" {
		return ValidatorKey{}, fmt.Errorf("%s: key type %q, want tendermint/PrivKeyEd25519", path, pv.PrivKey.Type)
	}
	key, err := base64.StdEncoding.DecodeString(pv.PrivKey.Value)
	if err != nil || len(key) != ed25519.PrivateKeySize {
		return ValidatorKey{}, fmt.Errorf("%s: priv_key is not a base64 ed25519 key of %d bytes", path, ed25519.PrivateKeySize)
	}
	addr, err := hex.DecodeString(pv.Address)
	if err != nil || len(addr) != 20 {
		return ValidatorKey{}, fmt.Errorf("%s: address %q is not 20 bytes of hex", path, pv.Address)
	}
	return ValidatorKey{Address: addr, Key: ed25519.PrivateKey(key)}, nil
}
