package manifest

import (
	"fmt"
	"time"

	"github.com/cometlab/cometlab/internal/cometbft"
)

// MinDOGAdjustInterval is the shortest dog_adjust_interval CometBFT
// accepts (v2.0's config.MempoolConfig.ValidateBasic).
const MinDOGAdjustInterval = time.Second

// DOG is the resolved DOG gossip of the mempool (ADR-119, v2.0): each
// node's config.toml mempool.dog_protocol_enabled,
// dog_target_redundancy and dog_adjust_interval.
type DOG struct {
	TargetRedundancy float64
	AdjustInterval   time.Duration
}

// Config returns the config.toml overrides that turn DOG on as d says.
func (d *DOG) Config() map[string]any {
	return map[string]any{cometbft.ConfigDOGEnabled: true, cometbft.ConfigDOGRedundancy: d.TargetRedundancy,
		cometbft.ConfigDOGInterval: d.AdjustInterval.String()}
}

// resolveDOG checks the dog keys against every release the testnet runs
// and returns DOG, nil when dog is off: every node's release must have
// the mempool's DOG keys (cometbft.ConfigHas: v2.0), a cometbft_binary's
// release is unknown, and the [config] must not set the keys itself nor
// what CometBFT refuses DOG with (another mempool type, the experimental
// gossip limits). (v2.0 runs no time scale yet, so dog_adjust_interval is
// not among the times one multiplies.) dog_target_redundancy (> 0, default 1) and
// dog_adjust_interval (≥ 1 s, default 1s) need dog = true.
func (m *Manifest) resolveDOG(ps *problems, r *Resolved) *DOG {
	if !m.DOG {
		if m.DOGTargetRedundancy != 0 {
			ps.add(f("dog_target_redundancy"), "is for the DOG gossip: set dog = true")
		}
		if m.DOGAdjustInterval != "" {
			ps.add(f("dog_adjust_interval"), "is for the DOG gossip: set dog = true")
		}
		return nil
	}
	d := &DOG{TargetRedundancy: 1, AdjustInterval: time.Second}
	if m.DOGTargetRedundancy != 0 {
		d.TargetRedundancy = m.DOGTargetRedundancy
	}
	if d.TargetRedundancy <= 0 {
		ps.add(f("dog_target_redundancy"), "must be > 0, got %g", d.TargetRedundancy)
	}
	if m.DOGAdjustInterval != "" {
		v, err := time.ParseDuration(m.DOGAdjustInterval)
		switch {
		case err != nil:
			ps.add(f("dog_adjust_interval"), "invalid duration %q (want a Go duration such as \"2s\")", m.DOGAdjustInterval)
		case v < MinDOGAdjustInterval:
			ps.add(f("dog_adjust_interval"), "must be ≥ %s (CometBFT refuses a shorter one), got %s", MinDOGAdjustInterval, v)
		default:
			d.AdjustInterval = v
		}
	}
	field := f("dog")
	if r.CometBFTBinary != "" {
		ps.add(field, "cometbft_binary's release is unknown: DOG needs a release whose config.toml has %s (v2.0)", cometbft.ConfigDOGEnabled)
		return d
	}
	seen := map[string]bool{}
	for _, n := range r.Nodes {
		if n.Version != "" && !seen[n.Version] {
			seen[n.Version] = true
			if msg := cometbft.FeatureProblem(n.Version, "DOG gossip", cometbft.ConfigDOGEnabled, cometbft.ConfigHas); msg != "" {
				ps.add(field, "%s%s", msg, whoRuns(r.Nodes, n.Version, r.CometBFTVersion))
			}
		}
		for k, v := range n.Config {
			switch k {
			case cometbft.ConfigDOGEnabled, cometbft.ConfigDOGRedundancy, cometbft.ConfigDOGInterval:
				ps.add(field, "config.toml's %s is the dog keys' to set (%s sets it too)", k, configWho(r, n, k))
			case "mempool.type":
				if fmt.Sprint(v) != "flood" {
					ps.add(field, "DOG runs on the flood mempool only; %s has mempool.type = %v", n.Name, v)
				}
			case "mempool.experimental_max_gossip_connections_to_persistent_peers", "mempool.experimental_max_gossip_connections_to_non_persistent_peers":
				if fmt.Sprint(v) != "0" {
					ps.add(field, "CometBFT refuses DOG with %s (%s sets it to %v)", k, n.Name, v)
				}
			}
		}
	}
	return d
}

// configWho names who sets the config key k of node n: the [config] of
// the testnet or the node's own.
func configWho(r *Resolved, n Node, k string) string {
	if _, ok := r.Config[k]; ok {
		return "[config]"
	}
	return "node " + n.Name + "'s config"
}
