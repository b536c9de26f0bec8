package manifest

import (
	"strings"
	"testing"
)

func init() {
	cfg := map[string]any{"p2p.libp2p.scaler.max_workers": int64(64), "p2p.libp2p.limits.mode": "disabled"}
	goodManifests["libp2p.good.toml"] = Resolved{
		Name: "default", CometBFTVersion: "v0.40.0", App: "kvstore", LogLevel: "state:info,*:error", Links: "direct", Topology: "mesh",
		Config: cfg, Load: defaultLoad, KeyType: "ed25519", LibP2P: true,
		Nodes: []Node{
			{Name: "validator01", Mode: ModeValidator, Power: 1, Version: "v0.40.0", Config: cfg},
			{Name: "validator02", Mode: ModeValidator, Power: 1, Version: "v0.40.0", Config: cfg},
		},
	}
	badManifests["libp2p.bad.toml"] = []string{
		`libp2p.bad.toml:1:1: libp2p: v0.38.26 has no libp2p networking ([p2p.libp2p] came with v0.39) (node validator02)`,
	}
	badManifests["libp2p-config.bad.toml"] = []string{
		`node.validator01.config.p2p.libp2p.enabled: is written by cometlab: a testnet's nodes run one transport, set by the libp2p key`,
	}
}

// TestSetLibP2P: libp2p is a setting a sweep or an A/B side varies
// (libp2p against CometBFT's p2p), checked when the manifest resolves.
func TestSetLibP2P(t *testing.T) {
	m := Default()
	if err := m.Set("libp2p", "true"); err != nil {
		t.Fatal(err)
	}
	r, err := m.Resolve()
	if err != nil || !r.LibP2P {
		t.Fatalf("libp2p %v (%v), want true", r.LibP2P, err)
	}
	if err := m.Set("cometbft_version", "v1.0.1"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Resolve(); err == nil || !strings.Contains(err.Error(), "v1.0.1 has no libp2p networking") {
		t.Fatalf("v1.0.1 with libp2p: %v, want refused", err)
	}
	if err := m.Set("libp2p", "maybe"); err == nil {
		t.Fatal("libp2p=maybe taken")
	}
}
