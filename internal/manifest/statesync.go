package manifest

import "fmt"

// resolveStateSync sets each node's StateSync from its state_sync key. A
// state-synced node starts late (start_at > 0, as the e2e runner
// requires) on the e2e app, whose snapshots some other node takes
// (snapshot_interval > 0 in [app] or its own app settings), and its light
// client needs two RPC servers among the nodes that start with the
// testnet (not seeds), as the runner's rpc_servers.
func (m *Manifest) resolveStateSync(ps *problems, nodes []Node, app string, appConfig map[string]any) {
	for i := range nodes {
		n := &nodes[i]
		mn, ok := m.Nodes[n.Name]
		if !ok || !mn.StateSync {
			continue
		}
		field := f("node", n.Name, "state_sync")
		var servers, snapshots int
		for _, o := range nodes {
			if o.Name == n.Name || o.Absent || o.Ephemeral || o.Mode == ModeSeed {
				continue
			}
			if o.StartAt == 0 {
				servers++
			}
			if snapshotInterval(o, appConfig) > 0 {
				snapshots++
			}
		}
		switch {
		case n.StartAt == 0:
			ps.add(field, "a node that joins by state sync starts late: set start_at (the e2e runner refuses state_sync at the initial height)")
		case app != AppE2E:
			ps.add(field, "the snapshots are the e2e app's (app = %q): %q takes none", AppE2E, app)
		case snapshots == 0:
			ps.add(field, "no other node takes snapshots: set snapshot_interval in [app] or a node's app settings")
		case servers < 2:
			ps.add(field, "the light client needs 2 RPC servers among the nodes that start with the testnet (seeds aside), there %s", plural(servers))
		default:
			n.StateSync = true
		}
	}
}

// snapshotInterval is node n's e2e app snapshot_interval (its own, else
// the testnet's), 0 when unset.
func snapshotInterval(n Node, appConfig map[string]any) int64 {
	v, ok := n.App["snapshot_interval"]
	if !ok {
		v = appConfig["snapshot_interval"]
	}
	switch x := v.(type) {
	case int64:
		return x
	case int:
		return int64(x)
	}
	return 0
}

// plural says how many servers there are in words.
func plural(n int) string {
	if n == 1 {
		return "is 1"
	}
	return fmt.Sprintf("are %d", n)
}
