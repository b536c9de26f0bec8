package cometbft

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadValidatorKey reads a key in priv_validator_key.json's format,
// and refuses another key type, a short key and a bad address.
func TestReadValidatorKey(t *testing.T) {
	key := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	sum := sha256.Sum256(key.Public().(ed25519.PublicKey))
	addr := strings.ToUpper(hex.EncodeToString(sum[:20]))
	file := func(typ, value, address string) string {
		return fmt.Sprintf(`{"address":%q,"pub_key":{"type":"tendermint/PubKeyEd25519","value":""},"priv_key":{"type":%q,"value":%q}}`, address, typ, value)
	}
	good := base64.StdEncoding.EncodeToString(key)
	for _, tc := range []struct{ name, text, err string }{
		{"good", file("tendermint/PrivKeyEd25519", good, addr), ""},
		{"secp256k1", file("tendermint/PrivKeySecp256k1", good, addr), `key type "tendermint/PrivKeySecp256k1"`},
		{"short", file("tendermint/PrivKeyEd25519", good[:20], addr), "not a base64 ed25519 key"},
		{"address", file("tendermint/PrivKeyEd25519", good, "XYZ"), `address "XYZ" is not 20 bytes`},
		{"json", "{", "unexpected end"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			if err := os.MkdirAll(filepath.Join(home, "config"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(PrivValidatorKeyFile(home), []byte(tc.text), 0o600); err != nil {
				t.Fatal(err)
			}
			k, err := ReadValidatorKey(home)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil || !key.Equal(k.Key) || strings.ToUpper(hex.EncodeToString(k.Address)) != addr {
				t.Errorf("got %x %x (%v)", k.Address, k.Key, err)
			}
		})
	}
}
