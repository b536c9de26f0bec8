package rpc_test

import (
	"bytes"
	"testing"

	dcrsecp "github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
	"golang.org/x/crypto/sha3"

	"github.com/cometbft/cometbft/crypto"
	"github.com/cometbft/cometbft/crypto/mldsa65"
	"github.com/cometbft/cometbft/crypto/secp256k1"

	"github.com/cometlab/cometlab/internal/rpc"
)

// TestKeySign checks Key.Sign against CometBFT's own crypto (v0.38.26,
// which has secp256k1 and ml_dsa_65; ed25519 is checked by
// TestDuplicateVoteJSON's files): a signature made from the bytes of a
// CometBFT private key verifies with CometBFT's public key, and not for
// another message.
func TestKeySign(t *testing.T) {
	mldsa, err := mldsa65.GenPrivKey()
	if err != nil {
		t.Fatal(err)
	}
	for _, priv := range []crypto.PrivKey{secp256k1.GenPrivKey(), mldsa} {
		t.Run(priv.Type(), func(t *testing.T) {
			if !rpc.CanSign(priv.Type()) {
				t.Fatalf("CanSign(%q) is false", priv.Type())
			}
			msg := []byte("a vote's sign bytes")
			sig, err := rpc.Key{Type: priv.Type(), Priv: priv.Bytes()}.Sign(msg)
			if err != nil {
				t.Fatal(err)
			}
			if !priv.PubKey().VerifySignature(msg, sig) {
				t.Errorf("CometBFT does not verify the %d-byte signature", len(sig))
			}
			if priv.PubKey().VerifySignature([]byte("another message"), sig) {
				t.Error("the signature verifies another message")
			}
		})
	}
	for _, kt := range []string{"bls12_381", "sr25519"} {
		if rpc.CanSign(kt) {
			t.Errorf("CanSign(%q) is true", kt)
		}
		if _, err := (rpc.Key{Type: kt, Priv: make([]byte, 32)}).Sign(nil); err == nil {
			t.Errorf("%s: signed", kt)
		}
	}
}

// TestKeySignSecp256k1Eth checks the secp256k1eth signature's layout
// (CometBFT v0.38 has no such type to check it with; real nodes of v0.40
// accept it, TestKeyTypes): R‖S‖V over Keccak-256 of the message, from
// which the key's public key is recovered.
func TestKeySignSecp256k1Eth(t *testing.T) {
	priv := bytes.Repeat([]byte{9}, 32)
	msg := []byte("a vote's sign bytes")
	sig, err := rpc.Key{Type: "secp256k1eth", Priv: priv}.Sign(msg)
	if err != nil {
		t.Fatal(err)
	}
	if len(sig) != 65 || sig[64] > 1 {
		t.Fatalf("signature of %d bytes, V %d: want 65 bytes, V 0 or 1", len(sig), sig[len(sig)-1])
	}
	h := sha3.NewLegacyKeccak256()
	h.Write(msg)
	pub, _, err := ecdsa.RecoverCompact(append([]byte{27 + sig[64]}, sig[:64]...), h.Sum(nil))
	if err != nil {
		t.Fatal(err)
	}
	if !pub.IsEqual(dcrsecp.PrivKeyFromBytes(priv).PubKey()) {
		t.Error("the signature recovers another public key")
	}
}
