package manifest

import (
	"fmt"
	"time"
)

// MaxRotating bounds rotate.concurrency.
const MaxRotating = 16

// ManifestRotate is the [rotate] table: the rotating-node test of
// CometBFT's QA. Ephemeral full nodes ephemeral01 … ephemeralNN
// (concurrency of them) each start during the load, block-sync from
// genesis, are declared caught up (catching_up = false and within 1 height
// of the network's tip), run dwell, and are stopped and wiped; then the
// same home starts again from nothing, until the load ends.
//
//	[rotate]
//	concurrency = 2
//	dwell = "10s"
type ManifestRotate struct {
	// Concurrency is how many ephemeral nodes run at a time (0 turns
	// rotation off; at most [MaxRotating]). Default 0.
	//
	//	concurrency = 2
	Concurrency int `toml:"concurrency"`

	// Dwell is how long a caught-up ephemeral node keeps running before it
	// is stopped and wiped, as a Go duration string (>= 0). Default "10s".
	//
	//	dwell = "30s"
	Dwell string `toml:"dwell"`
}

// Rotation is the resolved [rotate] table.
type Rotation struct {
	// Nodes are the ephemeral nodes' names (ephemeral01 …), also in
	// Resolved.Nodes as full nodes marked Ephemeral.
	Nodes []string
	// Dwell is how long a caught-up node runs before it is stopped.
	Dwell time.Duration
}

// resolveRotate returns the rotation and its ephemeral full nodes, or
// nothing when rotation is off.
func (m *Manifest) resolveRotate(ps *problems, version string) (*Rotation, []Node) {
	mr := m.Rotate
	d := duration(ps, f("rotate", "dwell"), mr.Dwell, true)
	if mr.Concurrency < 0 || mr.Concurrency > MaxRotating {
		ps.add(f("rotate", "concurrency"), "must be between 0 and %d, got %d", MaxRotating, mr.Concurrency)
		return nil, nil
	}
	if mr.Concurrency == 0 {
		return nil, nil
	}
	r := &Rotation{Dwell: d}
	var nodes []Node
	for i := range mr.Concurrency {
		name := fmt.Sprintf("ephemeral%02d", i+1)
		if _, clash := m.Nodes[name]; clash {
			ps.add(f("node", name), "the name of a [rotate] ephemeral node")
		}
		r.Nodes = append(r.Nodes, name)
		nodes = append(nodes, Node{Name: name, Mode: ModeFull, Version: version, Ephemeral: true})
	}
	return r, nodes
}
