package links

import "fmt"

// The links' cuts: one node cut off (Cut, Restore) or the network split
// into groups (Partition, Heal), both judged by severed.

// Cut closes every relayed connection from or to node and refuses new ones
// until Restore.
func (l *Links) Cut(node string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.has(node) {
		return fmt.Errorf("links: no relay of node %s", node)
	}
	l.cut[node] = true
	l.closeSevered()
	return nil
}

// Restore lets node's links connect again; the nodes redial their
// persistent peers themselves.
func (l *Links) Restore(node string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.has(node) {
		return fmt.Errorf("links: no relay of node %s", node)
	}
	delete(l.cut, node)
	return nil
}

// Partition splits the nodes into groups: every relayed connection
// between two nodes of different groups is closed and new ones are
// refused until Heal; links within a group, and those of nodes in no
// group, are untouched. A node may be in one group only.
func (l *Links) Partition(groups [][]string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	side := map[string]int{}
	for i, g := range groups {
		for _, n := range g {
			if _, dup := side[n]; dup {
				return fmt.Errorf("links: node %s is in two groups", n)
			}
			if !l.has(n) {
				return fmt.Errorf("links: no relay of node %s", n)
			}
			side[n] = i
		}
	}
	l.side = side
	l.closeSevered()
	return nil
}

// Heal ends the partition: the links between the groups connect again
// (the nodes redial their persistent peers themselves).
func (l *Links) Heal() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.side = nil
}

// isCut reports whether r refuses new connections: its link is severed
// (an inbound relay's dialler is not known yet: only its node's cut
// counts there; serve checks the pair once the dialler is found).
func (l *Links) isCut(r *relay) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if r.from == "" {
		return l.cut[r.to]
	}
	return l.severed(r.from, r.to)
}

// severed reports whether the link from → to is cut: a node of it is cut
// off, or a partition puts the two in different groups; l.mu is held.
func (l *Links) severed(from, to string) bool {
	if l.cut[from] || l.cut[to] {
		return true
	}
	a, inA := l.side[from]
	b, inB := l.side[to]
	return inA && inB && a != b
}

// closeSevered closes every relayed connection whose link is now severed
// (a node of it cut off, or its two nodes on different sides of a
// partition); l.mu is held.
func (l *Links) closeSevered() {
	for _, r := range l.relays {
		for p := range r.conns {
			if l.severed(p.from, r.to) {
				p.close()
			}
		}
	}
}
