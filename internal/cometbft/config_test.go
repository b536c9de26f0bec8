package cometbft

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// p2pSection is what TestWriteConfigP2P reads back from a node's
// config.toml.
type p2pSection struct {
	Seeds, Peers []string
	PEX, Seed    bool
	In, Out      int64
	External     string
}

// TestWriteConfigP2P writes every node's config.toml from v0.40.0's
// default for a mesh, a listed seeds topology, the same through inbound
// relays each node advertises, listed peers through relays and an
// override of the peer limits, and checks the p2p section of each:
// seeds, persistent_peers, pex, seed_mode and the peer limits (CometBFT's
// 40 in, 10 out unless overridden).
func TestWriteConfigP2P(t *testing.T) {
	nodes := []NodeSpec{{Name: "v1", Mode: ModeValidator}, {Name: "v2", Mode: ModeValidator}, {Name: "v3", Mode: ModeValidator}, {Name: "s1", Mode: ModeSeed}}
	listed := func(over map[string]any) []NodeSpec {
		out := make([]NodeSpec, len(nodes))
		for i, n := range nodes {
			n.Config = over
			if n.Mode == ModeSeed {
				n.PersistentPeers = nil
			} else {
				n.Seeds = []string{"s1"}
			}
			out[i] = n
		}
		out[1].PersistentPeers = []string{"v1"}
		return out
	}
	advertise := func(to Home) (string, error) { return "adv-" + to.Name + ":1", nil }
	relay := func(from, to Home) (string, error) { return fmt.Sprintf("relay-%s-%s:1", from.Name, to.Name), nil }
	for _, c := range []struct {
		name  string
		spec  Spec
		nodes []NodeSpec
		want  map[string]p2pSection
	}{
		{"mesh", Spec{}, nodes, map[string]p2pSection{
			"v1": {Seeds: []string{"s1"}, Peers: []string{"v2", "v3"}, PEX: true, In: 40, Out: 10},
			"v3": {Seeds: []string{"s1"}, Peers: []string{"v1", "v2"}, PEX: true, In: 40, Out: 10},
			"s1": {Peers: []string{"v1", "v2", "v3"}, PEX: true, Seed: true, In: 40, Out: 10},
		}},
		{"listed seeds", Spec{Listed: true}, listed(nil), map[string]p2pSection{
			"v1": {Seeds: []string{"s1"}, PEX: true, In: 40, Out: 10},
			"v2": {Seeds: []string{"s1"}, Peers: []string{"v1"}, PEX: true, In: 40, Out: 10},
			"s1": {PEX: true, Seed: true, In: 40, Out: 10},
		}},
		{"listed limits overridden", Spec{Listed: true}, listed(map[string]any{"p2p.max_num_inbound_peers": int64(7), "p2p.max_num_outbound_peers": int64(3)}),
			map[string]p2pSection{"v3": {Seeds: []string{"s1"}, PEX: true, In: 7, Out: 3}}},
		{"listed advertised", Spec{Listed: true, Advertise: advertise}, listed(nil), map[string]p2pSection{
			"v2": {Seeds: []string{"id-s1@adv-s1:1"}, Peers: []string{"id-v1@adv-v1:1"}, PEX: true, In: 40, Out: 10, External: "adv-v2:1"},
			"s1": {PEX: true, Seed: true, In: 40, Out: 10, External: "adv-s1:1"},
		}},
		{"listed relayed", Spec{Listed: true, Relay: relay}, []NodeSpec{
			{Name: "v1", Mode: ModeValidator, PersistentPeers: []string{"v2"}},
			{Name: "v2", Mode: ModeValidator, PersistentPeers: []string{"v1"}},
		}, map[string]p2pSection{
			"v1": {Peers: []string{"id-v2@relay-v1-v2:1"}, In: 40, Out: 10},
			"v2": {Peers: []string{"id-v1@relay-v2-v1:1"}, In: 40, Out: 10},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.spec.Nodes = c.nodes
			homes := configHomes(t, c.nodes)
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
				if got := readP2P(t, homes[i], homes); !reflect.DeepEqual(got, want) {
					t.Errorf("node %s: p2p %+v, want %+v", n.Name, got, want)
				}
			}
		})
	}
}

// TestWriteConfigUnknownPeer checks that a listed peer that is not a node
// is an error, not a silently dropped peer.
func TestWriteConfigUnknownPeer(t *testing.T) {
	nodes := []NodeSpec{{Name: "v1", Mode: ModeValidator, Seeds: []string{"nobody"}}}
	homes := configHomes(t, nodes)
	err := writeConfig(Spec{Listed: true, Nodes: nodes}, nodes[0], homes, 0)
	if err == nil || !strings.Contains(err.Error(), `no node named "nobody"`) {
		t.Fatalf("error %v, want no node named \"nobody\"", err)
	}
}

// configHomes makes one home per node holding v0.40.0's default
// config.toml, with id "id-NAME" and port 1000+i.
func configHomes(t *testing.T, nodes []NodeSpec) []Home {
	t.Helper()
	return configHomesFrom(t, nodes, "testdata/config_v0.40.0.toml")
}

// configHomesFrom is configHomes with the config.toml at path.
func configHomesFrom(t *testing.T, nodes []NodeSpec, path string) []Home {
	t.Helper()
	def, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	homes := make([]Home, len(nodes))
	for i, n := range nodes {
		dir := filepath.Join(t.TempDir(), n.Name)
		if err := os.MkdirAll(filepath.Join(dir, "config"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(ConfigFile(dir), def, 0o644); err != nil {
			t.Fatal(err)
		}
		homes[i] = Home{Name: n.Name, Mode: n.Mode, Dir: dir, ID: "id-" + n.Name, P2PPort: 1000 + i, RPCPort: 2000 + i, MetricsPort: 3000 + i}
	}
	return homes
}

// readP2P reads a written config.toml's p2p section, naming the peers
// that are nodes of homes by name (others stay as written).
func readP2P(t *testing.T, h Home, homes []Home) p2pSection {
	t.Helper()
	b, err := os.ReadFile(ConfigFile(h.Dir))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		P2P struct {
			Seeds      string `toml:"seeds"`
			Persistent string `toml:"persistent_peers"`
			PEX        bool   `toml:"pex"`
			SeedMode   bool   `toml:"seed_mode"`
			In         int64  `toml:"max_num_inbound_peers"`
			Out        int64  `toml:"max_num_outbound_peers"`
			External   string `toml:"external_address"`
		} `toml:"p2p"`
	}
	if err := toml.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	names := func(list string) []string {
		var out []string
		for _, a := range strings.Split(list, ",") {
			if a == "" {
				continue
			}
			name := a
			for _, o := range homes {
				if a == o.P2PAddr() {
					name = o.Name
				}
			}
			out = append(out, name)
		}
		return out
	}
	p := cfg.P2P
	return p2pSection{Seeds: names(p.Seeds), Peers: names(p.Persistent), PEX: p.PEX, Seed: p.SeedMode, In: p.In, Out: p.Out, External: p.External}
}
