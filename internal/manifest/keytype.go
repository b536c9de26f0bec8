package manifest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/rpc"
)

// DefaultKeyType is the validators' key type when the manifest names
// none: the type `cometbft init` makes.
const DefaultKeyType = cometbft.KeyEd25519

// resolveKeyType checks the key_type key against every release the
// testnet runs and returns it. Every node's release (and every release an
// upgrade perturbation starts) must have the type (cometbft.Line.KeyTypes)
// and commit with it (KeyType.Halts); a cometbft_binary, whose release is
// unknown, runs ed25519 only; a type whose build tag needs cgo
// (bls12_381: linked to this machine's C library) runs on a local testnet
// only; and evidence needs a type cometlab signs with (rpc.CanSign).
func (m *Manifest) resolveKeyType(ps *problems, r *Resolved) string {
	kt := m.KeyType
	field := f("key_type")
	all := cometbft.AllKeyTypes()
	switch {
	case kt == "":
		ps.add(field, "must not be empty (want one of %s)", strings.Join(all, ", "))
		return ""
	case !slices.Contains(all, kt):
		hint := ""
		if kt == "bls12381" {
			hint = fmt.Sprintf("; the key type is %q (bls12381 is its build tag)", cometbft.KeyBLS12381)
		}
		ps.add(field, "unknown key type %q (want one of %s)%s", kt, strings.Join(all, ", "), hint)
		return ""
	case kt == cometbft.KeyEd25519:
		return kt
	}
	var cgo bool
	seen := map[string]bool{}
	for _, n := range r.Nodes {
		if seen[n.Version] {
			continue
		}
		seen[n.Version] = true
		if n.Version == "" {
			ps.add(field, "%q: cometbft_binary's release is unknown, and cometlab makes %s keys with a program built from the release's own source: ed25519 only", kt, kt)
			continue
		}
		if msg := cometbft.KeyTypeProblem(n.Version, kt); msg != "" {
			ps.add(field, "%q: %s%s", kt, msg, whoRuns(r.Nodes, n.Version, r.CometBFTVersion))
			continue
		}
		k, _ := cometbft.KeyTypeOf(n.Version, kt)
		cgo = cgo || k.CGO
	}
	for _, p := range r.Perturbations {
		if p.Action != ActionUpgrade || p.To == "" {
			continue
		}
		if msg := cometbft.KeyTypeProblem(p.To, kt); msg != "" {
			ps.add(f("perturb", cmpOr(p.Name, p.Node), "to"), "key_type %q: %s", kt, msg)
		}
	}
	if cgo && len(m.Hosts) > 0 {
		ps.add(field, "%q: its nodes are built with cgo (the bls12381 tag), linked to this machine's C library; `cometlab deploy` ships static binaries only", kt)
	}
	if r.Evidence > 0 && !rpc.CanSign(kt) {
		ps.add(f("evidence"), "cannot forge duplicate-vote evidence signed with %s (cometlab signs with %s)", kt, strings.Join(rpc.SignKeyTypes(), ", "))
	}
	return kt
}

// whoRuns names the nodes that run version when they are not the whole
// testnet at the testnet's version: " (node validator03)".
func whoRuns(nodes []Node, version, testnetVersion string) string {
	var names []string
	for _, n := range nodes {
		if n.Version == version {
			names = append(names, n.Name)
		}
	}
	if version == testnetVersion && len(names) == len(nodes) {
		return ""
	}
	if len(names) > 3 {
		names = append(names[:3], "…")
	}
	return " (node " + strings.Join(names, ", ") + ")"
}
