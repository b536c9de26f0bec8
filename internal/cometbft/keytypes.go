package cometbft

import (
	"fmt"
	"slices"
	"strings"
)

// KeyType is a validator key type of a release line.
type KeyType struct {
	// Name is CometBFT's name of the type (the crypto package's KeyType),
	// as the manifest's key_type and the genesis's pub_key_types take it:
	// "ed25519", "secp256k1", "secp256k1eth", "bls12_381", "ml_dsa_65".
	Name string
	// Since is the line's first release that has the type; "" when every
	// release of the line has it.
	Since string
	// Tag is the build tag the node binary needs for the type ("" for
	// none): crypto/bls12381 is a stub without the bls12381 tag (and
	// v2.0's crypto/secp256k1eth without the secp256k1eth tag).
	Tag string
	// CGO: the tag's code needs cgo and a C compiler (bls12381: blst's C
	// sources).
	CGO bool
	// Halts says why validators of this type never commit on the line's
	// releases, a bug of the release ("" when they do): cometlab refuses
	// the type there, and TestKeyTypes checks that it halts so.
	Halts string
}

// Key type names (CometBFT's).
const (
	KeyEd25519      = "ed25519"
	KeySecp256k1    = "secp256k1"
	KeySecp256k1Eth = "secp256k1eth"
	KeyBLS12381     = "bls12_381"
	KeyMLDSA65      = "ml_dsa_65"
)

// KeyTypesOf returns the key types release version has (a line's types
// whose Since is not after it), or nil for a release of no known line.
func KeyTypesOf(version string) []KeyType {
	l, err := LineOf(version)
	if err != nil {
		return nil
	}
	var out []KeyType
	for _, k := range l.KeyTypes {
		if k.Since == "" || !Older(version, k.Since) {
			out = append(out, k)
		}
	}
	return out
}

// KeyTypeOf returns key type name of release version, and whether the
// release has it.
func KeyTypeOf(version, name string) (KeyType, bool) {
	ks := KeyTypesOf(version)
	i := slices.IndexFunc(ks, func(k KeyType) bool { return k.Name == name })
	if i < 0 {
		return KeyType{}, false
	}
	return ks[i], true
}

// KeyTypeProblem says why release version cannot run validators of key
// type name ("" when it can): `v0.38.20 has only ed25519, secp256k1
// (ml_dsa_65 came with v0.38.26)`, or why its validators of the type halt.
func KeyTypeProblem(version, name string) string {
	if k, ok := KeyTypeOf(version, name); ok {
		if k.Halts != "" {
			return fmt.Sprintf("%s's validators of this type never commit: %s", version, k.Halts)
		}
		return ""
	}
	l, err := LineOf(version)
	if err != nil {
		return err.Error()
	}
	var has []string
	for _, k := range KeyTypesOf(version) {
		has = append(has, k.Name)
	}
	msg := fmt.Sprintf("%s has only %s", version, strings.Join(has, ", "))
	for _, k := range l.KeyTypes {
		if k.Name == name && k.Since != "" {
			msg += fmt.Sprintf(" (%s came with %s)", name, k.Since)
		}
	}
	if name == "bls12381" && slices.ContainsFunc(l.KeyTypes, func(k KeyType) bool { return k.Name == KeyBLS12381 }) {
		msg += fmt.Sprintf("; the key type is %q (bls12381 is its build tag)", KeyBLS12381)
	}
	return msg
}

// AllKeyTypes returns every key type name some line has, ed25519 first,
// the others sorted.
func AllKeyTypes() []string {
	var out []string
	for _, l := range Lines() {
		for _, k := range l.KeyTypes {
			if !slices.Contains(out, k.Name) {
				out = append(out, k.Name)
			}
		}
	}
	slices.Sort(out[1:])
	return out
}
