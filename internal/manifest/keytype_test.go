package manifest

import (
	"strings"
	"testing"
)

func init() {
	nodes := []Node{
		{Name: "validator01", Mode: ModeValidator, Power: 1, Version: "v0.40.0", Config: map[string]any{}},
		{Name: "validator02", Mode: ModeValidator, Power: 1, Version: "v0.38.26", Config: map[string]any{}},
	}
	goodManifests["keytype.good.toml"] = Resolved{
		Name: "default", CometBFTVersion: "v0.40.0", App: "kvstore", LogLevel: "state:info,*:error", Links: "direct", Topology: "mesh",
		Config: map[string]any{}, Nodes: nodes, Load: defaultLoad, Evidence: 1, KeyType: "ml_dsa_65",
	}
	badManifests["keytype.bad.toml"] = []string{
		`keytype.bad.toml:2:1: key_type: "ml_dsa_65": v0.38.20 has only ed25519, secp256k1 (ml_dsa_65 came with v0.38.26)`,
	}
	badManifests["keytype-unknown.bad.toml"] = []string{
		`keytype-unknown.bad.toml:1:1: key_type: unknown key type "bls12381" (want one of ed25519, bls12_381, ml_dsa_65, secp256k1, secp256k1eth); the key type is "bls12_381" (bls12381 is its build tag)`,
	}
	badManifests["keytype-halts.bad.toml"] = []string{
		`keytype-halts.bad.toml:1:1: key_type: "bls12_381": v0.40.0's validators of this type never commit: crypto/encoding's PubKeyToProto takes a bls12381.PubKey value`,
	}
	badManifests["keytype-empty.bad.toml"] = []string{
		`keytype-empty.bad.toml:1:1: key_type: must not be empty (want one of ed25519, bls12_381, ml_dsa_65, secp256k1, secp256k1eth)`,
	}
	badManifests["keytype-evidence.bad.toml"] = []string{
		`keytype-evidence.bad.toml:3:1: evidence: cannot forge duplicate-vote evidence signed with bls12_381 (cometlab signs with ed25519, ml_dsa_65, secp256k1, secp256k1eth)`,
	}
	badManifests["keytype-mixed.bad.toml"] = []string{
		`keytype-mixed.bad.toml:1:1: key_type: "secp256k1eth": v0.39.4 has only ed25519, secp256k1, bls12_381 (node full01)`,
	}
	badManifests["keytype-binary.bad.toml"] = []string{
		`keytype-binary.bad.toml:2:1: key_type: "secp256k1": cometbft_binary's release is unknown, and cometlab makes secp256k1 keys with a program built from the release's own source: ed25519 only`,
	}
	badManifests["keytype-upgrade.bad.toml"] = []string{
		`keytype-upgrade.bad.toml:7:1: perturb.validator04.to: key_type "ml_dsa_65": v0.39.4 has only ed25519, secp256k1, bls12_381`,
	}
	badManifests["keytype-hosts.bad.toml"] = []string{
		"keytype-hosts.bad.toml:2:1: key_type: \"bls12_381\": its nodes are built with cgo (the bls12381 tag), linked to this machine's C library; `cometlab deploy` ships static binaries only",
	}
}

// TestSetKeyType: key_type is a setting a sweep or an A/B side varies,
// checked when the manifest resolves.
func TestSetKeyType(t *testing.T) {
	m := Default()
	if err := m.Set("key_type", "ml_dsa_65"); err != nil {
		t.Fatal(err)
	}
	r, err := m.Resolve()
	if err != nil || r.KeyType != "ml_dsa_65" {
		t.Fatalf("key type %q (%v), want ml_dsa_65", r.KeyType, err)
	}
	if err := m.Set("key_type", "sr25519"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Resolve(); err == nil || !strings.Contains(err.Error(), `unknown key type "sr25519"`) {
		t.Errorf("sr25519: %v, want an unknown key type", err)
	}
}
