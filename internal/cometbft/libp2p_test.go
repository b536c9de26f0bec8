package cometbft

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// TestLibP2PID checks the peer id against `cometbft show-node-id
// --libp2p` of v0.40.0 on the same node_key.json, and that another key
// gives another id.
func TestLibP2PID(t *testing.T) {
	for _, c := range []struct{ key, want string }{
		{"ZlOrkboLWR8RnOM2YiI1m8pPcKwi0HagBiruthhdlBAjuW2tl4zoGtzncROPC7zKJGHnBYDKHxDhBd99Y2eoYw==", "12D3KooWCDpS1knBbPNoxd2Bb6HDMP9h3qSKL8PqQpCk883wUDjQ"},
		{"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==", "12D3KooW9pNAk8aiBuGVQtWRdbkLmo5qVL3e2h5UxbN2Nz9ttwiw"},
	} {
		home := t.TempDir()
		if err := os.MkdirAll(filepath.Join(home, "config"), 0o755); err != nil {
			t.Fatal(err)
		}
		nk := fmt.Sprintf(`{"priv_key":{"type":"tendermint/PrivKeyEd25519","value":%q}}`, c.key)
		if err := os.WriteFile(NodeKeyFile(home), []byte(nk), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := LibP2PID(home)
		if err != nil || got != c.want {
			t.Errorf("LibP2PID of %s… = %q, %v; want %q", c.key[:8], got, err, c.want)
		}
	}
}

// TestLibP2PFact checks Line.LibP2P against the line's config.toml: a
// line has libp2p exactly when p2p.libp2p.enabled was added on its way
// from the oldest line; and LibP2PProblem refuses the others by name.
func TestLibP2PFact(t *testing.T) {
	for _, l := range Lines() {
		has := false
		for p, ok := l, true; ok; p, ok = LineByPrefix(p.Parent) {
			if slices.Contains(p.ConfigAdded, "p2p.libp2p.enabled") {
				has = true
				break
			}
		}
		if l.LibP2P != has {
			t.Errorf("%s: LibP2P %v, but its config.toml has p2p.libp2p.enabled: %v", l.Prefix, l.LibP2P, has)
		}
		if msg := LibP2PProblem(l.Proven); (msg == "") != has {
			t.Errorf("%s: LibP2PProblem %q", l.Prefix, msg)
		}
	}
}

// TestWriteConfigLibP2P writes libp2p nodes' config.toml from v0.40.0's
// default (the mesh, the mesh through per-link relays, listed seeds and
// peers) and checks the [p2p.libp2p] section: enabled, the peer exchange
// off, no persistent_peers or seeds, and the bootstrap peers with each
// peer's address, libp2p id and persistence (a seed that is also a
// persistent peer is persistent, listed once).
func TestWriteConfigLibP2P(t *testing.T) {
	relay := func(from, to Home) (string, error) { return fmt.Sprintf("relay-%s-%s:1", from.Name, to.Name), nil }
	bp := func(host, id string, persistent bool) map[string]any {
		return map[string]any{"host": host, "id": id, "persistent": persistent}
	}
	mesh := []NodeSpec{{Name: "v1", Mode: ModeValidator}, {Name: "v2", Mode: ModeValidator}, {Name: "v3", Mode: ModeValidator}}
	listed := []NodeSpec{{Name: "v1", Mode: ModeValidator, Seeds: []string{"v3"}, PersistentPeers: []string{"v2", "v3"}},
		{Name: "v2", Mode: ModeValidator, Seeds: []string{"v3"}}, {Name: "v3", Mode: ModeValidator}}
	for _, c := range []struct {
		name  string
		spec  Spec
		nodes []NodeSpec
		want  map[string][]any
	}{
		{"mesh", Spec{LibP2P: true}, mesh, map[string][]any{
			"v1": {bp("127.0.0.1:1001", "lp-v2", true), bp("127.0.0.1:1002", "lp-v3", true)},
			"v3": {bp("127.0.0.1:1000", "lp-v1", true), bp("127.0.0.1:1001", "lp-v2", true)},
		}},
		{"relayed", Spec{LibP2P: true, Relay: relay}, mesh, map[string][]any{
			"v2": {bp("relay-v2-v1:1", "lp-v1", true), bp("relay-v2-v3:1", "lp-v3", true)},
		}},
		{"listed", Spec{LibP2P: true, Listed: true}, listed, map[string][]any{
			"v1": {bp("127.0.0.1:1002", "lp-v3", true), bp("127.0.0.1:1001", "lp-v2", true)},
			"v2": {bp("127.0.0.1:1002", "lp-v3", false)},
			"v3": {},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.spec.Nodes = c.nodes
			homes := configHomes(t, c.nodes)
			for i := range homes {
				homes[i].LibP2PID = "lp-" + homes[i].Name
			}
			for i, n := range c.nodes {
				if err := writeConfig(c.spec, n, homes, i); err != nil {
					t.Fatalf("node %s: %v", n.Name, err)
				}
			}
			for i, n := range c.nodes {
				want, ok := c.want[n.Name]
				if !ok {
					continue
				}
				got := readLibP2P(t, homes[i])
				if !got.P2P.LibP2P.Enabled || got.P2P.PEX || got.P2P.Persistent != "" || got.P2P.Seeds != "" {
					t.Errorf("node %s: p2p %+v, want libp2p enabled, pex off, no persistent_peers or seeds", n.Name, got.P2P)
				}
				if !reflect.DeepEqual(got.P2P.LibP2P.Bootstrap, want) {
					t.Errorf("node %s: bootstrap_peers %v, want %v", n.Name, got.P2P.LibP2P.Bootstrap, want)
				}
			}
		})
	}
}

// libp2pConfig is what TestWriteConfigLibP2P reads back.
type libp2pConfig struct {
	P2P struct {
		Seeds      string `toml:"seeds"`
		Persistent string `toml:"persistent_peers"`
		PEX        bool   `toml:"pex"`
		LibP2P     struct {
			Enabled   bool  `toml:"enabled"`
			Bootstrap []any `toml:"bootstrap_peers"`
		} `toml:"libp2p"`
	} `toml:"p2p"`
}

func readLibP2P(t *testing.T, h Home) libp2pConfig {
	t.Helper()
	b, err := os.ReadFile(ConfigFile(h.Dir))
	if err != nil {
		t.Fatal(err)
	}
	var cfg libp2pConfig
	if err := toml.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.P2P.LibP2P.Bootstrap == nil {
		cfg.P2P.LibP2P.Bootstrap = []any{}
	}
	return cfg
}
