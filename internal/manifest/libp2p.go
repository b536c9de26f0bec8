package manifest

import (
	"maps"
	"slices"
	"strings"

	"github.com/cometlab/cometlab/internal/cometbft"
)

// libp2pOwnedKeys are the config.toml keys the libp2p key writes: set
// per node, they would mix transports or peers cometlab does not link.
var libp2pOwnedKeys = []string{"p2p.libp2p.enabled", "p2p.libp2p.bootstrap_peers"}

// resolveLibP2P checks the libp2p key against the testnet and returns it.
// Every node's release must have libp2p (cometbft.Line.LibP2P), as must
// every release an upgrade perturbation starts; a cometbft_binary's
// release is unknown. A libp2p node has no peer exchange (CometBFT turns
// it off), so a seed hands out no peers: seeds are refused, as are nodes
// on hosts (deploy opens and checks TCP ports). Relayed links (zones,
// disconnect, partition) go through UDP relays (links.AddUDP). The config keys
// the key writes may not be set by hand, whichever way libp2p is set, so
// that no testnet mixes transports (a libp2p node and a CometBFT p2p node
// cannot connect: QUIC over UDP against TCP).
func (m *Manifest) resolveLibP2P(ps *problems, r *Resolved) bool {
	for _, key := range libp2pOwnedKeys {
		if _, ok := r.Config[key]; ok {
			ps.add(configField(f("config"), key), "is written by cometlab: set the libp2p key (true on every node) instead")
		}
		for _, name := range slices.Sorted(maps.Keys(m.Nodes)) {
			if flat, _ := flattenConfig(m.Nodes[name].Config); flat[key] != nil {
				ps.add(configField(f("node", name, "config"), key), "is written by cometlab: a testnet's nodes run one transport, set by the libp2p key")
			}
		}
	}
	if !m.LibP2P {
		return false
	}
	field := f("libp2p")
	seen := map[string]bool{}
	for _, n := range r.Nodes {
		if n.Mode == ModeSeed {
			ps.add(field, "node %s is a seed, but libp2p nodes have no peer exchange (CometBFT turns it off): a seed hands out no peers", n.Name)
		}
		if seen[n.Version] {
			continue
		}
		seen[n.Version] = true
		if n.Version == "" {
			ps.add(field, "cometbft_binary's release is unknown: libp2p runs on releases whose line has it (v0.39, v0.40)")
			continue
		}
		if msg := cometbft.LibP2PProblem(n.Version); msg != "" {
			ps.add(field, "%s%s", msg, whoRuns(r.Nodes, n.Version, r.CometBFTVersion))
		}
	}
	for _, p := range r.Perturbations {
		if p.Action == ActionUpgrade && p.To != "" {
			if msg := cometbft.LibP2PProblem(p.To); msg != "" {
				ps.add(f("perturb", p.Node, "to"), "libp2p: %s", msg)
			}
		}
	}
	if len(m.Hosts) > 0 {
		ps.add(field, "libp2p nodes on [host.*] are not supported yet (deploy is proven with CometBFT's TCP p2p only)")
	}
	return true
}

// readUseLibP2P reads a node's use_libp2p (the e2e runner's per-node
// switch); applyLibP2P turns the nodes' values into the libp2p key.
func (r *e2eReader) readUseLibP2P(node string, path []string, v any) {
	if b, ok := r.bool(path, v); ok {
		r.libp2p[node] = b
		r.libp2pPath[node] = path
	}
}

// applyLibP2P sets the libp2p key when every node has use_libp2p = true,
// and refuses a testnet where only some have it: CometBFT runs each node
// on one transport, and a libp2p node (QUIC over UDP) and a CometBFT p2p
// node (TCP) cannot connect, so the runner's mixed testnet would split.
func (r *e2eReader) applyLibP2P() {
	var on, off []string
	for _, name := range slices.Sorted(maps.Keys(r.m.Nodes)) {
		if r.libp2p[name] {
			on = append(on, name)
		} else {
			off = append(off, name)
		}
	}
	switch {
	case len(on) == 0:
	case len(off) > 0:
		r.refuse(r.libp2pPath[on[0]], false, "mixed transports: %s use libp2p (QUIC over UDP) and %s CometBFT's p2p (TCP), which cannot connect to each other",
			strings.Join(on, ", "), strings.Join(off, ", "))
	default:
		r.m.LibP2P = true
		r.from("libp2p", r.libp2pPath[on[0]])
	}
}
