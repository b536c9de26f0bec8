package manifest

import (
	"github.com/cometlab/cometlab/internal/cometbft"
)

// pbtsAppKey is the e2e app's setting that names the PBTS height: the app
// checks it against what InitChain gave it, so it takes the manifest's
// pbts_enable_height too.
const pbtsAppKey = "pbts_enable_height"

// resolvePBTS checks pbts_enable_height against every release the testnet
// runs and returns it: 0 (BFT time) or the first height whose blocks carry
// proposer-based timestamps, which every node's release must have in its
// genesis (cometbft.GenesisPBTSKey: v1.0 and later; an upgrade goes to a
// newer release, which has it too); a cometbft_binary, whose release is
// unknown, is refused. With the e2e app the app's own pbts_enable_height
// setting is the same key: set alone it is taken, set to another value it
// is an error, and the manifest's key is copied into it.
func (m *Manifest) resolvePBTS(ps *problems, r *Resolved) int64 {
	h := m.PBTSEnableHeight
	field := f("pbts_enable_height")
	if h < 0 {
		ps.add(field, "must be ≥ 0 (0 keeps BFT time), got %d", h)
		return 0
	}
	fromApp := false
	if r.App == AppE2E && r.AppConfig != nil {
		if v, ok := r.AppConfig[pbtsAppKey].(int64); ok {
			switch {
			case h == 0:
				h, fromApp = v, true // resolveApp checked it against the releases
			case v != h:
				ps.add(f("app", pbtsAppKey), "is %d but pbts_enable_height is %d: set one of them", v, h)
				return 0
			}
		}
		if h > 0 {
			r.AppConfig[pbtsAppKey] = h
		}
	}
	if h == 0 || fromApp {
		return h
	}
	if r.CometBFTBinary != "" {
		ps.add(field, "cometbft_binary's release is unknown: PBTS needs a release whose genesis has %s (v1.0 and later)", cometbft.GenesisPBTSKey)
		return h
	}
	seen := map[string]bool{}
	for _, n := range r.Nodes {
		if n.Version == "" || seen[n.Version] {
			continue
		}
		seen[n.Version] = true
		if msg := cometbft.FeatureProblem(n.Version, "PBTS", cometbft.GenesisPBTSKey, cometbft.GenesisHas); msg != "" {
			ps.add(field, "%s%s", msg, whoRuns(r.Nodes, n.Version, r.CometBFTVersion))
		}
	}
	return h
}
