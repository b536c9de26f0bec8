package manifest

import "slices"

// resolveTwins sets each twin's TwinOf from its twin_of key: a node that
// holds a validator's signing key as well as that validator's own
// process (the Twins method of testing BFT protocols: a validator that
// equivocates because two processes sign for it). The twin is not in the
// genesis (its validator is) and starts with its own node key, ports and
// home; both sign with one key and each keeps its own
// priv_validator_state.json, so whenever they see different proposals
// they sign conflicting votes, which the other nodes must turn into
// DuplicateVoteEvidence. Twins need a local testnet (deploy copies no key
// between hosts) and a validator that runs (not absent).
func (m *Manifest) resolveTwins(ps *problems, nodes []Node) {
	for i := range nodes {
		n := &nodes[i]
		mn, ok := m.Nodes[n.Name]
		if !ok || mn.TwinOf == "" {
			continue
		}
		field := f("node", n.Name, "twin_of")
		j := slices.IndexFunc(nodes, func(v Node) bool { return v.Name == mn.TwinOf })
		switch {
		case mn.Mode != "" && mn.Mode != ModeFull:
			ps.add(f("node", n.Name, "mode"), "a twin is not in the genesis (its validator is): leave mode unset, got %q", mn.Mode)
		case j < 0:
			ps.add(field, "no node named %q", mn.TwinOf)
		case nodes[j].Mode != ModeValidator:
			ps.add(field, "node %q is a %s node: a twin holds a validator's key", mn.TwinOf, nodes[j].Mode)
		case nodes[j].Absent:
			ps.add(field, "node %q is absent (never started): its key would sign in one process, not two", mn.TwinOf)
		case len(m.Hosts) > 0:
			ps.add(field, "`cometlab deploy` copies no key between nodes: twins run on a local testnet only")
		default:
			n.TwinOf = mn.TwinOf
		}
	}
}
