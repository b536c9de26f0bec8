package manifest

import (
	"github.com/cometlab/cometlab/internal/cometbft"
)

// checkUpgrade checks an upgrade's to or to_source (and that no other
// action has one) against the node's release from and the app, and
// returns the upgrade's from and to ("" for another action) and the tree
// of a to_source (nil for a release). An upgrade happens once: a count
// above 1 or an every is refused.
func checkUpgrade(ps *problems, field func(string) []string, mp ManifestPerturb, from, app string) (string, string, *cometbft.Source) {
	if mp.Action != ActionUpgrade {
		if mp.To != "" {
			ps.add(field("to"), "only an upgrade has a to release (action is %q)", mp.Action)
		}
		if mp.ToSource != "" {
			ps.add(field("to_source"), "only an upgrade has a to_source tree (action is %q)", mp.Action)
		}
		return "", "", nil
	}
	to, key := mp.To, "to"
	var src *cometbft.Source
	if mp.ToSource != "" {
		key = "to_source"
		src, to = upgradeTree(ps, field, mp)
	}
	switch {
	case mp.To == "" && mp.ToSource == "":
		ps.add(field("action"), "an upgrade needs to, the release it starts the node with (to = \"vX.Y.Z\"), or to_source, a CometBFT tree")
	case to == "": // the tree's problem is said
	case from == "":
		ps.add(field(key), "an upgrade starts from a release: the node runs cometbft_binary, whose release is unknown")
	case app == AppE2E:
		ps.add(field(key), "an upgrade swaps the cometbft binary; with app = %q the node runs the e2e app node of its release, which it does not swap", AppE2E)
	case app == AppSDK:
		ps.add(field(key), "an upgrade swaps the cometbft binary; with app = %q the node is the SDK chain's binary, CometBFT in-process, which it does not swap", AppSDK)
	case src != nil && to == from: // a build of the node's own release: the code differs
	default:
		if err := cometbft.CheckUpgrade(from, to); err != nil {
			ps.add(field(key), "%s", err)
		}
	}
	if mp.count() > 1 {
		ps.add(field("count"), "an upgrade happens once, got %d (upgrade several nodes with one [perturb.NODE] each)", mp.count())
	}
	if mp.Every != "" {
		ps.add(field("every"), "an upgrade happens once: it has no every")
	}
	return from, to, src
}

// upgradeTree resolves an upgrade's to_source: the tree and the release
// it derives from ("" with a problem said when it is not a CometBFT tree
// whose line can be told, or when to is set too).
func upgradeTree(ps *problems, field func(string) []string, mp ManifestPerturb) (*cometbft.Source, string) {
	if mp.To != "" {
		ps.add(field("to_source"), "set to (a release) or to_source (a tree), not both")
		return nil, ""
	}
	abs, version, ok := readTree(ps, field("to_source"), mp.ToSource)
	if !ok {
		return nil, ""
	}
	return &cometbft.Source{Tree: abs}, version
}
