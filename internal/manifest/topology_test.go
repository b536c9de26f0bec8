package manifest

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
)

func init() {
	node := func(name, mode string, power int64, cfg map[string]any, seeds, peers []string) Node {
		return Node{Name: name, Mode: mode, Power: power, Version: "v0.40.0", Config: cfg, Seeds: seeds, PersistentPeers: peers}
	}
	none := map[string]any{}
	goodManifests["topology-seeds.good.toml"] = Resolved{
		Name: "default", CometBFTVersion: "v0.40.0", App: "kvstore", LogLevel: "state:info,*:error", Links: "direct", Topology: TopologySeeds,
		Config: none,
		Nodes: []Node{
			node("validator01", ModeValidator, 1, none, []string{"seed01", "seed02"}, nil),
			node("validator02", ModeValidator, 1, none, []string{"seed01", "seed02"}, nil),
			node("seed01", ModeSeed, 0, none, nil, []string{"seed02"}),
			node("seed02", ModeSeed, 0, none, nil, []string{"seed01"}),
		},
		Load: defaultLoad,
	}
	limits := map[string]any{"p2p.max_num_outbound_peers": int64(5)}
	goodManifests["topology-as-written.good.toml"] = Resolved{
		Name: "default", CometBFTVersion: "v0.40.0", App: "kvstore", LogLevel: "state:info,*:error", Links: "direct", Topology: TopologyAsWritten,
		Config: limits,
		Nodes: []Node{
			node("validator01", ModeValidator, 1, limits, []string{"seed01"}, nil),
			node("validator02", ModeValidator, 1, limits, []string{"seed01"}, []string{"validator01"}),
			// full01 lists no peer: every other node, as the e2e runner does.
			node("full01", ModeFull, 0, limits, nil, []string{"validator01", "validator02", "seed01"}),
			node("seed01", ModeSeed, 0, limits, nil, []string{"validator01", "validator02", "full01"}),
		},
		Load: defaultLoad,
	}
	nopex := map[string]any{"p2p.pex": false}
	goodManifests["topology-relay.good.toml"] = Resolved{
		Name: "default", CometBFTVersion: "v0.40.0", App: "kvstore", LogLevel: "state:info,*:error", Links: "relay", Topology: TopologyAsWritten,
		Config: nopex,
		Nodes: []Node{
			node("validator01", ModeValidator, 1, nopex, nil, []string{"validator02"}),
			node("validator02", ModeValidator, 1, nopex, nil, []string{"validator01"}),
		},
		Load: defaultLoad,
	}
}

// TestRelayedTopology resolves the seeds topology with zones and with a
// disconnect perturbation: relayed links, the peer exchange left on
// (each node advertises its relay).
func TestRelayedTopology(t *testing.T) {
	for name, extra := range map[string]string{
		"zones":      "[zones]\nmatrix = \"aws\"\n",
		"disconnect": "[perturb.validator01]\naction = \"disconnect\"\nat = \"10s\"\n",
	} {
		t.Run(name, func(t *testing.T) {
			text := "topology = \"seeds\"\n" + extra
			for _, n := range []string{"validator01", "validator02", "seed01"} {
				text += "[node." + n + "]\n"
				if n == "seed01" {
					text += "mode = \"seed\"\n"
				}
				if name == "zones" {
					text += "zone = \"Tokyo\"\n"
				}
			}
			m, err := Parse("t.toml", []byte(text))
			if err != nil {
				t.Fatal(err)
			}
			r, err := m.Resolve()
			if err != nil {
				t.Fatal(err)
			}
			if r.Links != LinksRelay || r.Topology != TopologySeeds {
				t.Errorf("links %q, topology %q", r.Links, r.Topology)
			}
			for _, n := range r.Nodes {
				if _, set := n.Config["p2p.pex"]; set {
					t.Errorf("node %s: p2p.pex set (%v), want CometBFT's default (on)", n.Name, n.Config["p2p.pex"])
				}
			}
		})
	}
}

// TestTopologyEphemeral checks that [rotate]'s ephemeral nodes get the
// topology's peers but are no other node's: the seeds under seeds, every
// node that stays under as-written.
func TestTopologyEphemeral(t *testing.T) {
	for _, c := range []struct {
		topo         string
		seeds, peers []string
	}{
		{TopologySeeds, []string{"seed01"}, nil},
		{TopologyAsWritten, nil, []string{"validator01", "validator02", "seed01"}},
	} {
		t.Run(c.topo, func(t *testing.T) {
			m, err := Parse("t.toml", []byte(`topology = "`+c.topo+`"
[node.validator01]
[node.validator02]
[node.seed01]
mode = "seed"
[rotate]
concurrency = 1
`))
			if err != nil {
				t.Fatal(err)
			}
			r, err := m.Resolve()
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range r.Nodes {
				if slices.Contains(n.Seeds, "ephemeral01") || slices.Contains(n.PersistentPeers, "ephemeral01") {
					t.Errorf("node %s lists the ephemeral node: %v %v", n.Name, n.Seeds, n.PersistentPeers)
				}
				if n.Ephemeral && (!slices.Equal(n.Seeds, c.seeds) || !slices.Equal(n.PersistentPeers, c.peers)) {
					t.Errorf("ephemeral %s: seeds %v peers %v, want %v %v", n.Name, n.Seeds, n.PersistentPeers, c.seeds, c.peers)
				}
			}
		})
	}
}

// TestE2ETopology reads e2e manifests with seeds and persistent peers: the
// topology as written, disable_pex as p2p.pex = false, an unknown peer
// refused by name, and qa-infra's example.toml without its start_at: its
// seeds with disconnect perturbations on relayed links.
func TestE2ETopology(t *testing.T) {
	for _, c := range []struct {
		name, data string
		peers      map[string][2][]string // node → seeds, persistent peers
		links      string
		errs       []string
	}{
		{name: "seeds", data: "[node.v0]\nseeds = [\"s\"]\n[node.v1]\npersistent_peers = [\"v0\"]\n[node.s]\nmode = \"seed\"\n",
			peers: map[string][2][]string{"v0": {{"s"}, nil}, "v1": {nil, {"v0"}}, "s": {nil, {"v0", "v1"}}}, links: LinksDirect},
		{name: "no pex relayed", data: "disable_pex = true\n[node.v0]\nperturb = [\"disconnect\"]\npersistent_peers = [\"v1\"]\n[node.v1]\npersistent_peers = [\"v0\"]\n",
			peers: map[string][2][]string{"v0": {nil, {"v1"}}, "v1": {nil, {"v0"}}}, links: LinksRelay},
		{name: "unknown peer", data: "[node.v0]\nseeds = [\"s9\"]\n",
			errs: []string{`t.toml:2:1: node.v0.seeds: no node named "s9"`}},
		{name: "example without start_at", data: "vote_extensions_enable_height = 1\n[node.validator00]\nseeds = [\"seed01\"]\nperturb = [\"disconnect\"]\n" +
			"[node.validator01]\nseeds = [\"seed01\"]\n[node.seed01]\nmode = \"seed\"\n",
			peers: map[string][2][]string{"validator00": {{"seed01"}, nil}, "validator01": {{"seed01"}, nil}, "seed01": {nil, {"validator00", "validator01"}}},
			links: LinksRelay},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, _, err := Read("t.toml", []byte(c.data), ReadOptions{Format: FormatE2E})
			var r Resolved
			if err == nil {
				r, err = m.Resolve()
			}
			if len(c.errs) > 0 {
				for _, want := range c.errs {
					if err == nil || !strings.Contains(err.Error(), want) {
						t.Errorf("error %v\nwant %q", err, want)
					}
				}
				var e *Error
				if !errors.As(err, &e) {
					t.Errorf("error %v is not an *Error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Topology != TopologyAsWritten || r.Links != c.links {
				t.Errorf("topology %q, links %q; want as-written, %s", r.Topology, r.Links, c.links)
			}
			got := map[string][2][]string{}
			for _, n := range r.Nodes {
				got[n.Name] = [2][]string{n.Seeds, n.PersistentPeers}
				if pex, ok := n.Config["p2p.pex"]; ok != strings.Contains(c.data, "disable_pex") || ok && pex != false {
					t.Errorf("node %s: p2p.pex %v (set %v)", n.Name, pex, ok)
				}
			}
			if !maps.EqualFunc(got, c.peers, func(a, b [2][]string) bool { return slices.Equal(a[0], b[0]) && slices.Equal(a[1], b[1]) }) {
				t.Errorf("peers %v, want %v", got, c.peers)
			}
		})
	}
}
