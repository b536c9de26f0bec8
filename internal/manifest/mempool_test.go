package manifest

import (
	"path/filepath"
	"testing"
)

func init() {
	node := func(name, mempool string, adaptive bool) Node {
		return Node{Name: name, Mode: ModeValidator, Power: 1, Version: "v0.40.0", Config: map[string]any{}, Mempool: mempool, AdaptiveSync: adaptive}
	}
	goodManifests["mempool.good.toml"] = Resolved{
		Name: "default", CometBFTVersion: "v0.40.0", App: "e2e", AppConfig: map[string]any{"vote_extensions_enable_height": int64(1)},
		LogLevel: "state:info,*:error", Links: "direct", Topology: "mesh", Config: map[string]any{}, Load: defaultLoad,
		Mempool: "app", AdaptiveSync: true,
		Nodes: []Node{node("validator01", "app", true), node("validator02", "app", true), node("validator03", "", true), node("validator04", "nop", false)},
	}
	badManifests["mempool-kvstore.bad.toml"] = []string{
		`mempool-kvstore.bad.toml:1:1: mempool: the kvstore has no app-side mempool: its InsertTx and ReapTxs are abci.BaseApplication's`,
	}
	badManifests["mempool-release.bad.toml"] = []string{
		`mempool-release.bad.toml:3:1: mempool: mempool "app": v0.38.26 has only the flood, nop mempool`,
		`mempool-release.bad.toml:4:1: adaptive_sync: v0.38.26 has no blocksync.adaptive_sync (it came with v0.39.0`,
	}
	badManifests["mempool-nop.bad.toml"] = []string{
		`mempool-nop.bad.toml:1:1: mempool: CometBFT refuses the nop mempool with consensus.create_empty_blocks = false`,
		`mempool-nop.bad.toml: load.target: node "validator01" runs the nop mempool, where broadcast_tx fails`,
	}
	badManifests["mempool-config.bad.toml"] = []string{
		`mempool-config.bad.toml:4:1: config."mempool.type": set by the manifest's mempool key`,
		`mempool-config.bad.toml:5:1: config."blocksync.adaptive_sync": set by the manifest's adaptive_sync key`,
	}
	badManifests["mempool-socket.bad.toml"] = []string{
		`mempool-socket.bad.toml:2:1: mempool: mempool "app" with an app over a socket: v0.39.4's ABCI socket client lacks InsertTx and ReapTxs`,
		`mempool-socket.bad.toml:7:1: node.validator02.mempool: unknown mempool "bogus" (want flood, app, nop)`,
	}
	badManifests["mempool-binary.bad.toml"] = []string{
		`mempool-binary.bad.toml:2:1: adaptive_sync: adaptive sync needs a release cometlab knows (v0.39 or v0.40): cometbft_binary's release is unknown`,
		`mempool-binary.bad.toml:5:1: node.validator01.mempool: mempool "nop" needs a release cometlab knows`,
	}
}

// TestMempoolResolve: the testnet's mempool and adaptive_sync keys reach
// every node, a node's own win, and the resolved manifest says the same.
func TestMempoolResolve(t *testing.T) {
	m, err := Load(filepath.Join(fixtures, "mempool.good.toml"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		mempool  string
		adaptive bool
	}{
		"validator01": {"app", true}, "validator02": {"app", true}, "validator03": {"", true}, "validator04": {"nop", false},
	}
	for _, n := range r.Nodes {
		if w := want[n.Name]; n.Mempool != w.mempool || n.AdaptiveSync != w.adaptive {
			t.Errorf("%s: mempool %q adaptive %v, want %q %v", n.Name, n.Mempool, n.AdaptiveSync, w.mempool, w.adaptive)
		}
		if _, set := n.Config["mempool.type"]; set {
			t.Errorf("%s: mempool.type in the resolved config (the testnet spec writes it)", n.Name)
		}
	}
	checkRoundTrip(t, r)
}

// TestSetMempool: mempool and adaptive_sync are settings a sweep or an
// A/B side varies (adaptive sync against plain block sync).
func TestSetMempool(t *testing.T) {
	cases := []struct {
		key, value string
		ok         bool
	}{
		{"adaptive_sync", "true", true},
		{"adaptive_sync", "yes", false},
		{"mempool", "nop", true}, // resolves (the load target then fails)
	}
	for _, c := range cases {
		t.Run(c.key+"="+c.value, func(t *testing.T) {
			m := Default()
			if err := m.Set(c.key, c.value); (err == nil) != c.ok {
				t.Fatalf("Set: %v, want ok %v", err, c.ok)
			}
		})
	}
	m := Default()
	if err := m.Set("adaptive_sync", "true"); err != nil {
		t.Fatal(err)
	}
	r, err := m.Resolve()
	if err != nil || !r.Nodes[0].AdaptiveSync {
		t.Fatalf("adaptive_sync=true: %v, node adaptive %v", err, r.Nodes[0].AdaptiveSync)
	}
}
