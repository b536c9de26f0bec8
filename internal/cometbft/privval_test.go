package cometbft

import (
	"bytes"
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

// TestReadValidatorKey reads keys in priv_validator_key.json's format,
// and refuses an unknown key type, a key that is not base64 and a bad
// address.
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
		{"secp256k1", file("tendermint/PrivKeySecp256k1", good, addr), ""},
		{"sr25519", file("tendermint/PrivKeySr25519", good, addr), `unknown private key type "tendermint/PrivKeySr25519"`},
		{"not base64", file("tendermint/PrivKeyEd25519", "%%", addr), "not a base64 ed25519 key"},
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
			want := map[string]string{"good": KeyEd25519, "secp256k1": KeySecp256k1}[tc.name]
			if err != nil || !bytes.Equal(key, k.Priv) || k.Type != want || strings.ToUpper(hex.EncodeToString(k.Address)) != addr {
				t.Errorf("got %x %s %x (%v)", k.Address, k.Type, k.Priv, err)
			}
		})
	}
}
