package manifest

import (
	"time"

	"github.com/cometlab/cometlab/internal/cometbft"
)

// MaxClockSkew bounds clock_skew either way (CometBFT's e2e generator
// draws skews within a minute).
const MaxClockSkew = 10 * time.Minute

// resolveClockSkew sets each node's ClockSkew from its clock_skew key. The
// node then runs its release's cometbft built with the clock_skew tag
// (cometbft.ClockSkewProgram), which offsets every clock reading by
// COMETBFT_CLOCK_SKEW, as CometBFT's e2e runner skews a node's clock: a
// release without the tag (before v1.0), a user's binary, hosts and an
// upgrade of the node (its new release would run unskewed) are refused.
// A node of the e2e app runs its e2e node built with the tag.
func (m *Manifest) resolveClockSkew(ps *problems, nodes []Node, perturbs []Perturbation) {
	for i := range nodes {
		n := &nodes[i]
		mn, ok := m.Nodes[n.Name]
		if !ok || mn.ClockSkew == "" {
			continue
		}
		field := f("node", n.Name, "clock_skew")
		d, err := time.ParseDuration(mn.ClockSkew)
		if err != nil {
			ps.add(field, "invalid duration %q (want a Go duration such as \"2s\" or \"-500ms\")", mn.ClockSkew)
			continue
		}
		if d == 0 {
			continue
		}
		line, lerr := cometbft.LineOf(n.Version)
		switch {
		case d > MaxClockSkew || d < -MaxClockSkew:
			ps.add(field, "must be within ±%s, got %s", MaxClockSkew, d)
		case n.Version == "":
			ps.add(field, "a skewed clock needs a release built with the clock_skew tag (v1.0): cometbft_binary is a binary cometlab did not build")
		case lerr == nil && !line.ClockSkew:
			ps.add(field, "CometBFT %s has no clock_skew build tag (types/time/now_skew.go came with v1.0): it cannot run on a skewed clock", n.Version)
		case len(m.Hosts) > 0:
			ps.add(field, "`cometlab deploy` ships the plain binary: a skewed clock runs on a local testnet only")
		case hasUpgrade(perturbs, n.Name):
			ps.add(field, "an upgrade of %s would start its new release unskewed", n.Name)
		default:
			n.ClockSkew = d
		}
	}
}

// hasUpgrade reports whether an upgrade perturbs node.
func hasUpgrade(perturbs []Perturbation, node string) bool {
	for _, p := range perturbs {
		if p.Node == node && p.Action == ActionUpgrade {
			return true
		}
	}
	return false
}
