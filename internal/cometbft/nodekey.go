package cometbft

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
)

// keyJSON is a key in CometBFT's JSON form ({type, value}).
type keyJSON struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

// nodeID derives the p2p id from config/node_key.json: the hex of the first
// 20 bytes of SHA-256 of the ed25519 public key, as CometBFT's
// p2p.PubKeyToID does.
func nodeID(home string) (string, error) {
	pub, err := nodePubKey(home)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(pub)
	return hex.EncodeToString(sum[:20]), nil
}

// nodePubKey reads the node's ed25519 public key from
// config/node_key.json: the second half of its 64-byte private key.
func nodePubKey(home string) ([]byte, error) {
	var nk struct {
		PrivKey keyJSON `json:"priv_key"`
	}
	b, err := os.ReadFile(NodeKeyFile(home))
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &nk); err != nil {
		return nil, fmt.Errorf("node_key.json: %w", err)
	}
	priv, err := base64.StdEncoding.DecodeString(nk.PrivKey.Value)
	if err != nil || len(priv) != 64 {
		return nil, fmt.Errorf("node_key.json: want a 64-byte ed25519 key")
	}
	return priv[32:], nil
}
