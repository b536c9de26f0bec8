package cometbft

import (
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// TestKeyTypeProblem: a release without the key type is refused with what
// it has, when its line got the type, and the type's name for its tag.
func TestKeyTypeProblem(t *testing.T) {
	for _, tc := range []struct{ version, key, want string }{
		{"v0.40.0", KeyMLDSA65, ""},
		{"v0.40.0", KeyBLS12381, "v0.40.0's validators of this type never commit: crypto/encoding's PubKeyToProto"},
		{"v1.0.1", KeyBLS12381, ""},
		{"v0.38.26", KeyMLDSA65, ""},
		{"v0.38.20", KeyMLDSA65, "v0.38.20 has only ed25519, secp256k1 (ml_dsa_65 came with v0.38.26)"},
		{"v0.38.26", KeyBLS12381, "v0.38.26 has only ed25519, secp256k1, ml_dsa_65"},
		{"v0.34.33", KeySecp256k1Eth, "v0.34.33 has only ed25519, secp256k1"},
		{"v1.0.1", KeyMLDSA65, "v1.0.1 has only ed25519, secp256k1, bls12_381"},
		{"v0.40.0", "bls12381", `v0.40.0 has only ed25519, secp256k1, secp256k1eth, bls12_381, ml_dsa_65; the key type is "bls12_381" (bls12381 is its build tag)`},
		{"v9.0.0", KeyEd25519, "no release line"},
	} {
		if got := KeyTypeProblem(tc.version, tc.key); !strings.Contains(got, tc.want) || (tc.want == "") != (got == "") {
			t.Errorf("KeyTypeProblem(%s, %s) = %q, want %q", tc.version, tc.key, got, tc.want)
		}
	}
	if got := strings.Join(AllKeyTypes(), " "); got != "ed25519 bls12_381 ml_dsa_65 secp256k1 secp256k1eth" {
		t.Errorf("AllKeyTypes() = %s", got)
	}
}

// TestKeygenSource: the keygen's main.go is Go, imports the line's module
// and has a case for each key type the release has, the tagged ones only
// when built with the tag.
func TestKeygenSource(t *testing.T) {
	for _, tc := range []struct {
		version, tags string
		has, hasNot   []string
	}{
		{"v0.34.33", "", []string{`"github.com/tendermint/tendermint/crypto/secp256k1"`, `case "secp256k1":`, `case "ed25519":`}, []string{"mldsa65", "bls12381", "cometbft/cometbft"}},
		{"v0.38.20", "", []string{`case "secp256k1":`}, []string{"mldsa65"}},
		{"v0.38.26", "", []string{`"github.com/cometbft/cometbft/crypto/mldsa65"`, `case "ml_dsa_65":`}, []string{"bls12381"}},
		{"v0.40.0", "", []string{`case "secp256k1eth":`, `case "ml_dsa_65":`}, []string{"bls12381"}},
		{"v0.40.0", "bls12381", []string{`case "bls12_381":`, "bls12381.GenPrivKey()"}, nil},
	} {
		src, err := keygenSource(tc.version, tc.tags)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := parser.ParseFile(token.NewFileSet(), "main.go", src, 0); err != nil {
			t.Errorf("%s %s: %v\n%s", tc.version, tc.tags, err, src)
		}
		for _, w := range tc.has {
			if !strings.Contains(string(src), w) {
				t.Errorf("%s %s: no %s in\n%s", tc.version, tc.tags, w, src)
			}
		}
		for _, w := range tc.hasNot {
			if strings.Contains(string(src), w) {
				t.Errorf("%s %s: %s in\n%s", tc.version, tc.tags, w, src)
			}
		}
	}
}

// TestProgramForKey: a tagged key type's programs get the tag, cgo and a
// name of their own; the others stay as they are.
func TestProgramForKey(t *testing.T) {
	bls := KeyType{Name: KeyBLS12381, Tag: "bls12381", CGO: true}
	for _, tc := range []struct {
		prog Program
		key  KeyType
		want Program
	}{
		{NodeProgram, bls, Program{Name: "cometbft-bls12381", Pkg: "cmd/cometbft", Tags: "bls12381", CGO: true}},
		{ClockSkewProgram, bls, Program{Name: "cometbft-clock-skew-bls12381", Pkg: "cmd/cometbft", Tags: "clock_skew,bls12381", CGO: true}},
		{KeygenProgram, bls, Program{Name: "cometlab-keygen-bls12381", Pkg: "cmd/cometlab-keygen", Tags: "bls12381", CGO: true, Own: true}},
		{NodeProgram, KeyType{Name: KeyMLDSA65}, NodeProgram},
		{NodeProgram, KeyType{Name: KeySecp256k1Eth, Tag: "secp256k1eth"}, Program{Name: "cometbft-secp256k1eth", Pkg: "cmd/cometbft", Tags: "secp256k1eth"}},
		{NodeProgram.ForKey(bls), bls, NodeProgram.ForKey(bls)},
	} {
		if got := tc.prog.ForKey(tc.key); got != tc.want {
			t.Errorf("%s.ForKey(%s) = %+v, want %+v", tc.prog.Name, tc.key.Name, got, tc.want)
		}
	}
}
