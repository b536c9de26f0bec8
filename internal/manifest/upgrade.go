package manifest

import "github.com/cometlab/cometlab/internal/cometbft"

// checkUpgrade checks an upgrade's to (and that no other action has one)
// against the node's release from and the app, and returns the upgrade's
// from and to ("" for another action). An upgrade happens once: a count
// above 1 or an every is refused.
func checkUpgrade(ps *problems, field func(string) []string, mp ManifestPerturb, from, app string) (string, string) {
	if mp.Action != ActionUpgrade {
		if mp.To != "" {
			ps.add(field("to"), "only an upgrade has a to release (action is %q)", mp.Action)
		}
		return "", ""
	}
	switch {
	case mp.To == "":
		ps.add(field("action"), "an upgrade needs to, the release it starts the node with (to = \"vX.Y.Z\")")
	case from == "":
		ps.add(field("to"), "an upgrade starts from a release: the node runs cometbft_binary, whose release is unknown")
	case app == AppE2E:
		ps.add(field("to"), "an upgrade swaps the cometbft binary; with app = %q the node runs the e2e app node of its release, which it does not swap", AppE2E)
	default:
		if err := cometbft.CheckUpgrade(from, mp.To); err != nil {
			ps.add(field("to"), "%s", err)
		}
	}
	if mp.count() > 1 {
		ps.add(field("count"), "an upgrade happens once, got %d (upgrade several nodes with one [perturb.NODE] each)", mp.count())
	}
	if mp.Every != "" {
		ps.add(field("every"), "an upgrade happens once: it has no every")
	}
	return from, mp.To
}
