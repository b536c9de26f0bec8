package manifest

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/cometlab/cometlab/internal/cometbft"
)

// NodeAppKeys are the e2e app settings a node may set for itself
// ([node.NAME] app): the app's artificial delays (a slow app on one node)
// and the storage settings CometBFT's e2e manifests set per node. Every
// other setting shapes what the network agrees on (vote extensions, PBTS,
// validator updates, …) and is the network's, in [app].
var NodeAppKeys = []string{
	"check_tx_delay", "finalize_block_delay", "prepare_proposal_delay", "process_proposal_delay", "vote_extension_delay",
	"persist_interval", "retain_blocks", "snapshot_interval",
}

// resolveNodeApp sets each node's App from its app key: e2e app settings
// of NodeAppKeys, each one the node's release's e2e app has, delays as Go
// durations and the rest as non-negative integers.
func (m *Manifest) resolveNodeApp(ps *problems, nodes []Node, app string) {
	for i := range nodes {
		n := &nodes[i]
		mn, ok := m.Nodes[n.Name]
		if !ok || len(mn.App) == 0 {
			continue
		}
		if app != AppE2E {
			ps.add(f("node", n.Name, "app"), "a node's app settings are the e2e app's (app = %q), and this testnet runs %q", AppE2E, app)
			continue
		}
		set := map[string]any{}
		for _, k := range slices.Sorted(maps.Keys(mn.App)) {
			field, v := f("node", n.Name, "app", k), mn.App[k]
			if !slices.Contains(NodeAppKeys, k) {
				ps.add(field, "a node may set only %s for itself; %s is the network's: set it in [app]", strings.Join(NodeAppKeys, ", "), k)
				continue
			}
			if n.Version != "" {
				if msg := cometbft.E2EAppKeyProblem(n.Version, k); msg != "" {
					ps.add(field, "%s", msg)
					continue
				}
			}
			if strings.HasSuffix(k, "_delay") {
				s, isString := v.(string)
				d, err := time.ParseDuration(s)
				if !isString || err != nil || d < 0 {
					ps.add(field, "want a non-negative Go duration such as \"1500ms\", got %v", v)
					continue
				}
				set[k] = s
				continue
			}
			if x, isInt := v.(int64); !isInt || x < 0 {
				ps.add(field, "want a non-negative integer, got %v", v)
				continue
			}
			set[k] = v
		}
		if len(set) > 0 {
			n.App = set
		}
	}
}
