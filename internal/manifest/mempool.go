package manifest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cometlab/cometlab/internal/cometbft"
)

// Mempools are the values of the mempool key: config.toml's mempool.type.
var Mempools = []string{cometbft.MempoolFlood, cometbft.MempoolApp, cometbft.MempoolNop}

// mempoolOwned are the config.toml keys the mempool and adaptive_sync keys
// write: a [config] override of them is refused, so that one key says it.
var mempoolOwned = map[string]string{"mempool.type": "mempool", "blocksync.adaptive_sync": "adaptive_sync"}

// resolveMempool sets each node's Mempool and AdaptiveSync from the
// testnet's mempool and adaptive_sync keys and the node's own, which win.
// A type other than flood, and adaptive sync, need a release that has it
// (cometbft.MempoolProblem, cometbft.AdaptiveSyncProblem), on the node and
// on every release an upgrade of the node starts; a cometbft_binary, whose
// release is unknown, runs flood without adaptive sync only. CometBFT
// refuses nop with consensus.create_empty_blocks = false; an app mempool
// needs an app with InsertTx and ReapTxs: the e2e app (app_side_mempool,
// which cometlab turns on), or the user's own app (over a socket from
// v0.40.0 on: cometbft.AppMempoolSocketFixed), never the kvstore, whose
// InsertTx and ReapTxs are abci.BaseApplication's (every transaction
// accepted and dropped: nothing would ever be proposed). The load's
// target must take transactions: broadcast_tx fails on a nop mempool.
func (m *Manifest) resolveMempool(ps *problems, r *Resolved) {
	netField := f("mempool")
	if m.Mempool != "" && !slices.Contains(Mempools, m.Mempool) {
		ps.add(netField, "unknown mempool %q (want %s)", m.Mempool, strings.Join(Mempools, ", "))
	}
	if m.Mempool != cometbft.MempoolFlood && slices.Contains(Mempools, m.Mempool) {
		r.Mempool = m.Mempool
	}
	r.AdaptiveSync = m.AdaptiveSync
	reported := map[string]bool{}
	add := func(field []string, format string, args ...any) {
		key := strings.Join(field, ".") + ": " + fmt.Sprintf(format, args...)
		if !reported[key] {
			reported[key] = true
			ps.add(field, format, args...)
		}
	}
	for i := range r.Nodes {
		n := &r.Nodes[i]
		mn := m.Nodes[n.Name]
		typ, field := m.Mempool, netField
		if mn.Mempool != "" {
			typ, field = mn.Mempool, f("node", n.Name, "mempool")
			if !slices.Contains(Mempools, typ) {
				ps.add(field, "unknown mempool %q (want %s)", typ, strings.Join(Mempools, ", "))
				continue
			}
		}
		if !slices.Contains(Mempools, typ) {
			typ = cometbft.MempoolFlood
		}
		adaptive, aField := m.AdaptiveSync, f("adaptive_sync")
		if mn.AdaptiveSync != nil {
			adaptive, aField = *mn.AdaptiveSync, f("node", n.Name, "adaptive_sync")
		}
		for k, key := range mempoolOwned {
			if _, set := n.Config[k]; set {
				add(f("config", k), "set by the manifest's %s key (network-wide, or [node.NAME] %s), which checks it against each release", key, key)
			}
		}
		if typ != cometbft.MempoolFlood {
			m.checkMempool(add, field, r, n, typ)
			n.Mempool = typ
		}
		if adaptive {
			releases := append([]string{n.Version}, upgradesOf(r.Perturbations, n.Name)...)
			for _, v := range releases {
				switch {
				case v == "":
					add(aField, "adaptive sync needs a release cometlab knows (v0.39 or v0.40): cometbft_binary's release is unknown")
				case cometbft.AdaptiveSyncProblem(v) != "":
					add(aField, "%s", cometbft.AdaptiveSyncProblem(v))
				}
			}
			n.AdaptiveSync = true
		}
	}
	if i := slices.IndexFunc(r.Nodes, func(n Node) bool { return n.Name == r.Load.Target }); i >= 0 && r.Nodes[i].Mempool == cometbft.MempoolNop {
		ps.add(f("load", "target"), "node %q runs the nop mempool, where broadcast_tx fails (the app is responsible for transactions, and "+
			"neither the kvstore nor the e2e app takes them by another way): point load.target at a node with a mempool", r.Load.Target)
	}
}

// checkMempool checks mempool type typ (nop or app) on node n.
func (m *Manifest) checkMempool(add func([]string, string, ...any), field []string, r *Resolved, n *Node, typ string) {
	releases := append([]string{n.Version}, upgradesOf(r.Perturbations, n.Name)...)
	for _, v := range releases {
		if v == "" {
			add(field, "mempool %q needs a release cometlab knows: cometbft_binary's release is unknown, and cometlab runs it with the flood mempool only", typ)
		} else if msg := cometbft.MempoolProblem(v, typ); msg != "" {
			add(field, "mempool %q: %s", typ, msg)
		}
	}
	switch typ {
	case cometbft.MempoolNop:
		if b, ok := n.Config["consensus.create_empty_blocks"].(bool); ok && !b {
			add(field, "CometBFT refuses the nop mempool with consensus.create_empty_blocks = false")
		}
	case cometbft.MempoolApp:
		switch r.App {
		case AppKVStore:
			add(field, "the kvstore has no app-side mempool: its InsertTx and ReapTxs are abci.BaseApplication's, which accept every "+
				"transaction and drop it, so nothing would ever be proposed; run app = %q (its app_side_mempool) or your own app", AppE2E)
		case AppExternal:
			if r.AppConfig[appABCIKey] != "socket" {
				break
			}
			for _, v := range releases {
				if v != "" && cometbft.Older(v, cometbft.AppMempoolSocketFixed) {
					add(field, "mempool %q with an app over a socket: %s's ABCI socket client lacks InsertTx and ReapTxs, and the node stops "+
						"itself on the first (cometbft#5958, fixed in %s); use abci = \"grpc\" or %s", typ, v, cometbft.AppMempoolSocketFixed, cometbft.AppMempoolSocketFixed)
				}
			}
		}
	}
}

// upgradesOf returns the releases upgrade perturbations of node start.
func upgradesOf(perturbs []Perturbation, node string) []string {
	var out []string
	for _, p := range perturbs {
		if p.Node == node && p.Action == ActionUpgrade && p.To != "" {
			out = append(out, p.To)
		}
	}
	return out
}
