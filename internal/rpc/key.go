package rpc

import (
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"slices"

	"github.com/cloudflare/circl/sign/mldsa/mldsa65"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
	"golang.org/x/crypto/sha3"
)

// Key is a validator's private key as priv_validator_key.json holds it:
// its CometBFT key type and bytes.
type Key struct {
	// Type is CometBFT's key type name ("ed25519", "secp256k1",
	// "ml_dsa_65", …).
	Type string
	// Priv is the private key's bytes: ed25519 the 64-byte seed and
	// public key, secp256k1 the 32-byte scalar, ml_dsa_65 the 4,032-byte
	// packed private key of FIPS 204.
	Priv []byte
}

// SignKeyTypes returns the key types [Key.Sign] signs with, with the
// libraries CometBFT signs with: ed25519 (the standard library),
// secp256k1 and secp256k1eth (decred's secp256k1; golang.org/x/crypto's
// Keccak-256) and ml_dsa_65 (cloudflare/circl). Not bls12_381: CometBFT
// signs it with blst, C code behind a build tag.
func SignKeyTypes() []string { return []string{"ed25519", "ml_dsa_65", "secp256k1", "secp256k1eth"} }

// CanSign reports whether [Key.Sign] signs with keys of the type.
func CanSign(keyType string) bool { return slices.Contains(SignKeyTypes(), keyType) }

// Sign signs msg as the key type's CometBFT PrivKey.Sign does: ed25519;
// secp256k1 an ECDSA signature of SHA-256(msg), R‖S in 64 bytes with a
// low S (crypto/secp256k1); secp256k1eth one of Keccak-256(msg), R‖S‖V in
// 65 bytes, V the recovery id 0 or 1 (crypto/secp256k1eth); ml_dsa_65 ML-DSA-65 in pure mode with an empty
// context, deterministic (crypto/mldsa65).
func (k Key) Sign(msg []byte) ([]byte, error) {
	switch k.Type {
	case "ed25519":
		if len(k.Priv) != ed25519.PrivateKeySize {
			return nil, fmt.Errorf("ed25519 key of %d bytes, want %d", len(k.Priv), ed25519.PrivateKeySize)
		}
		return ed25519.Sign(ed25519.PrivateKey(k.Priv), msg), nil
	case "secp256k1", "secp256k1eth":
		if len(k.Priv) != secp256k1.PrivKeyBytesLen {
			return nil, fmt.Errorf("%s key of %d bytes, want %d", k.Type, len(k.Priv), secp256k1.PrivKeyBytesLen)
		}
		if k.Type == "secp256k1" {
			sum := sha256.Sum256(msg)
			sig := ecdsa.SignCompact(secp256k1.PrivKeyFromBytes(k.Priv), sum[:], false)
			return sig[1:], nil // without the recovery code
		}
		h := sha3.NewLegacyKeccak256()
		h.Write(msg)
		sig := ecdsa.SignCompact(secp256k1.PrivKeyFromBytes(k.Priv), h.Sum(nil), false) // 27+V ‖ R ‖ S
		return append(sig[1:], sig[0]-27), nil
	case "ml_dsa_65":
		if len(k.Priv) != mldsa65.PrivateKeySize {
			return nil, fmt.Errorf("ml_dsa_65 key of %d bytes, want %d", len(k.Priv), mldsa65.PrivateKeySize)
		}
		var sk mldsa65.PrivateKey
		if err := sk.UnmarshalBinary(k.Priv); err != nil {
			return nil, fmt.Errorf("ml_dsa_65 key: %w", err)
		}
		sig := make([]byte, mldsa65.SignatureSize)
		if err := mldsa65.SignTo(&sk, msg, nil, false, sig); err != nil {
			return nil, fmt.Errorf("ml_dsa_65: %w", err)
		}
		return sig, nil
	}
	return nil, fmt.Errorf("cannot sign with a %s key (cometlab signs with %v)", k.Type, SignKeyTypes())
}
