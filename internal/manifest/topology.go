package manifest

import (
	"maps"
	"slices"
)

// Topologies (topology).
const (
	// TopologyMesh makes every node a persistent peer of every other and
	// every seed a seed of every node: cometlab's default.
	TopologyMesh = "mesh"
	// TopologySeeds gives every node the seed nodes only; the nodes find
	// each other through the peer exchange.
	TopologySeeds = "seeds"
	// TopologyAsWritten takes each node's seeds and persistent_peers.
	TopologyAsWritten = "as-written"
)

// Topologies lists the values of topology.
var Topologies = []string{TopologyMesh, TopologySeeds, TopologyAsWritten}

// resolveTopology resolves topology ("" is mesh, or as-written when a node
// lists peers), checks every node's lists and fills each node's Seeds and
// PersistentPeers under seeds and as-written.
func (m *Manifest) resolveTopology(ps *problems, nodes []Node) string {
	listed := slices.ContainsFunc(slices.Collect(maps.Values(m.Nodes)), func(n ManifestNode) bool {
		return len(n.Seeds) > 0 || len(n.PersistentPeers) > 0
	})
	topo := m.Topology
	switch {
	case topo == "" && listed:
		topo = TopologyAsWritten
	case topo == "":
		topo = TopologyMesh
	case !slices.Contains(Topologies, topo):
		ps.add(f("topology"), "invalid topology %q (want %q, %q or %q)", topo, TopologyMesh, TopologySeeds, TopologyAsWritten)
		return topo
	}
	byName := map[string]Node{}
	for _, n := range nodes {
		byName[n.Name] = n
	}
	for _, name := range slices.Sorted(maps.Keys(m.Nodes)) {
		mn := m.Nodes[name]
		for key, list := range map[string][]string{"seeds": mn.Seeds, "persistent_peers": mn.PersistentPeers} {
			if len(list) > 0 && topo != TopologyAsWritten {
				ps.add(f("node", name, key), "a node's peers are taken with topology = %q (topology is %q)", TopologyAsWritten, topo)
				continue
			}
			checkPeerList(ps, f("node", name, key), name, list, byName)
		}
	}
	switch topo {
	case TopologySeeds:
		if !slices.ContainsFunc(nodes, func(n Node) bool { return n.Mode == ModeSeed }) {
			ps.add(f("topology"), "topology %q needs a node with mode = %q", TopologySeeds, ModeSeed)
		}
		seedsTopology(nodes)
	case TopologyAsWritten:
		m.asWritten(nodes)
	}
	return topo
}

// checkPeerList checks one node's seeds or persistent_peers: known nodes
// other than itself and not ephemeral, each once.
func checkPeerList(ps *problems, field []string, self string, list []string, byName map[string]Node) {
	seen := map[string]bool{}
	for _, p := range list {
		n, ok := byName[p]
		switch {
		case !ok:
			ps.add(field, "no node named %q", p)
		case p == self:
			ps.add(field, "names the node itself")
		case n.Ephemeral:
			ps.add(field, "node %q is a [rotate] ephemeral node, down most of the time", p)
		case seen[p]:
			ps.add(field, "names %q twice", p)
		}
		seen[p] = true
	}
}

// seedsTopology gives every node but the seeds all the seeds as seeds,
// and every seed the other seeds as persistent peers.
func seedsTopology(nodes []Node) {
	var seeds []string
	for _, n := range nodes {
		if n.Mode == ModeSeed {
			seeds = append(seeds, n.Name)
		}
	}
	for i, n := range nodes {
		if n.Mode == ModeSeed {
			nodes[i].PersistentPeers = slices.DeleteFunc(slices.Clone(seeds), func(s string) bool { return s == n.Name })
			continue
		}
		nodes[i].Seeds = slices.Clone(seeds)
	}
}

// asWritten gives each node its own lists; a node with neither (and every
// ephemeral node) gets every other node that is not ephemeral as a
// persistent peer, as the e2e runner does (test/e2e/pkg/testnet.go).
func (m *Manifest) asWritten(nodes []Node) {
	for i, n := range nodes {
		mn := m.Nodes[n.Name]
		if !n.Ephemeral && (len(mn.Seeds) > 0 || len(mn.PersistentPeers) > 0) {
			nodes[i].Seeds, nodes[i].PersistentPeers = slices.Clone(mn.Seeds), slices.Clone(mn.PersistentPeers)
			continue
		}
		for _, o := range nodes {
			if o.Name != n.Name && !o.Ephemeral {
				nodes[i].PersistentPeers = append(nodes[i].PersistentPeers, o.Name)
			}
		}
	}
}

// checkPEX refuses seeds the peer exchange cannot reach: a node turns to
// its seeds only through the peer exchange, so a node with seeds and
// p2p.pex = false would never find a peer through them.
func (m *Manifest) checkPEX(ps *problems, r Resolved) {
	if r.Topology == TopologyMesh {
		return
	}
	for _, n := range r.Nodes {
		if pex, ok := n.Config["p2p.pex"].(bool); ok && !pex && len(n.Seeds) > 0 && !n.Ephemeral {
			field := f("node", n.Name, "seeds")
			if r.Topology == TopologySeeds {
				field = f("topology")
			}
			ps.add(field, "node %s has seeds but p2p.pex = false: a node asks its seeds for peers through the peer exchange, "+
				"so it would find none", n.Name)
			return
		}
	}
}

// checkRelayedTopology refuses what relayed links cannot do with the
// topology. In the mesh each directed link has a relay its config names,
// and the peer exchange is off, so that no node learns another's own
// address and dials it past the relays: a seed, which needs the peer
// exchange, is refused. In the other topologies every node advertises one
// relay in front of its listener (see cometbft.Spec.Advertise), which
// names each connection's dialler, so the peer exchange stays on.
func (m *Manifest) checkRelayedTopology(ps *problems, r Resolved) {
	if r.Links != LinksRelay || r.Topology != TopologyMesh {
		return
	}
	for _, n := range r.Nodes {
		if n.Mode == ModeSeed {
			ps.add(f("links"), "relayed links of the mesh turn the peer exchange off, which seed %s needs "+
				"(topology = %q or %q keep it on, through relays each node advertises)", n.Name, TopologySeeds, TopologyAsWritten)
			return
		}
	}
}
