package manifest

import (
	"strings"
)

// MaxStartAt bounds start_at: the testnet waits for that height (about a
// block a second) before the node starts, and all before the load.
const MaxStartAt = 10000

// resolveStartAt sets each node's StartAt from its start_at key. A late
// node joins a running chain: the nodes that start with the testnet must
// hold more than 2/3 of the voting power, or the chain never reaches the
// heights the late ones wait for. Seeds start first (the other nodes ask
// them for peers as they start), absent validators never start, and
// `cometlab deploy` starts every host's nodes at once.
func (m *Manifest) resolveStartAt(ps *problems, nodes []Node) {
	var late []string
	for i := range nodes {
		n := &nodes[i]
		mn, ok := m.Nodes[n.Name]
		if !ok || mn.StartAt == 0 {
			continue
		}
		field := f("node", n.Name, "start_at")
		switch {
		case mn.StartAt < 0 || mn.StartAt > MaxStartAt:
			ps.add(field, "must be between 0 and %d, got %d", MaxStartAt, mn.StartAt)
		case n.Mode == ModeSeed:
			ps.add(field, "a seed starts first: the other nodes ask it for peer addresses when they start")
		case n.Absent:
			ps.add(field, "node %q is absent (never started)", n.Name)
		case len(m.Hosts) > 0:
			ps.add(field, "`cometlab deploy` starts every host's nodes at once: a node that joins at a height runs on a local testnet only")
		default:
			n.StartAt = mn.StartAt
			late = append(late, n.Name)
		}
	}
	if len(late) == 0 {
		return
	}
	first, total := startingPower(nodes)
	if !hasQuorum(first, total) {
		ps.add(f("node", late[0], "start_at"), "the validators that start with the testnet hold %d of the %d voting power, not more than 2/3: "+
			"the chain could not reach the heights %s wait for", first, total, strings.Join(late, ", "))
	}
}
