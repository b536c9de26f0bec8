package manifest

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
)

// e2eTopKeys maps each top-level key of the e2e manifest format (the union
// over v0.34–v1.0 and CometBFT's main) to what reads it.
var e2eTopKeys = map[string]func(r *e2eReader, path []string, v any){
	"ipv6": only(kBool, false, true, "cometlab's nodes listen on IPv4 loopback"),
	"initial_height": func(r *e2eReader, path []string, v any) {
		if n, ok := r.int(path, v); ok && n > 1 {
			r.refuse(path, false, "cometlab's genesis starts the chain at height 1")
		}
	},
	"initial_state": func(r *e2eReader, path []string, v any) {
		if t, ok := r.table(path, v); ok && len(t) > 0 {
			r.refuse(path, true, "the e2e app's initial key-value pairs come from the genesis app_state, which cometlab does not write")
		}
	},
	"validators":       (*e2eReader).readValidators,
	"validator_update": (*e2eReader).readValidatorUpdate,
	"key_type": func(r *e2eReader, path []string, v any) {
		if s, ok := r.str(path, v); ok && s != "" { // "" is the runner's ed25519
			r.m.KeyType = s
			r.from("key_type", path)
		}
	},
	"evidence": func(r *e2eReader, path []string, v any) {
		if n, ok := r.int(path, v); ok && n > 0 {
			r.refuse(path, true, "the e2e runner makes 1 in 4 of its %d pieces a light-client attack (half of those invalid); "+
				"cometlab injects duplicate votes only, with its own evidence key (docs/scenarios.md)", n)
		}
	},
	"abci_protocol": func(r *e2eReader, path []string, v any) {
		if s, ok := r.str(path, v); ok && s != "" && s != "builtin" {
			r.refuse(path, false, "cometlab runs the e2e app inside the node process (builtin); %q puts a connection between node and app that changes the latencies measured", s)
		}
	},
	"prometheus": func(r *e2eReader, path []string, v any) {
		if b, ok := r.bool(path, v); ok && !b {
			r.refuse(path, true, "cometlab always turns on every node's Prometheus endpoint and scrapes it")
		}
	},
	"upgrade_version": func(r *e2eReader, path []string, v any) {
		if s, ok := r.str(path, v); ok && s != "" && !strings.HasSuffix(s, ":local-version") {
			r.refuse(path, false, "an e2e upgrade_version is a Docker image; cometlab upgrades to a release: [perturb.NODE] action upgrade with to")
		}
	},
	"load_tx_size_bytes": func(r *e2eReader, path []string, v any) {
		if n, ok := r.int(path, v); ok && n > 0 {
			r.m.Load.Size = int(n)
			r.from("load.size", path)
		}
	},
	"load_tx_batch_size":  loadInt(func(r *e2eReader) *int64 { return &r.batch }),
	"load_tx_connections": loadInt(func(r *e2eReader) *int64 { return &r.conns }),
	"load_max_txs":        loadInt(func(r *e2eReader) *int64 { return &r.maxTxs }),
	"load_max_seconds":    loadInt(func(r *e2eReader) *int64 { return &r.maxSeconds }),
	"load_num_nodes_per_tx": func(r *e2eReader, path []string, v any) {
		if n, ok := r.int(path, v); ok && n > 1 {
			r.refuse(path, false, "cometlab sends each transaction to one node (load.target)")
		}
	},
	"log_level": func(r *e2eReader, path []string, v any) {
		if s, ok := r.str(path, v); ok && s != "" {
			r.m.LogLevel = s
			r.from("log_level", path)
		}
	},
	"log_format": only(kString, "", true, "cometlab's nodes log plain text", "plain"),
	"block_max_bytes": func(r *e2eReader, path []string, v any) {
		if n, ok := r.int(path, v); ok && n > 0 {
			r.refuse(path, false, "cometlab's genesis keeps each release's block.max_bytes")
		}
	},
	"experimental_max_gossip_connections_to_persistent_peers":     config("mempool.experimental_max_gossip_connections_to_persistent_peers", kInt),
	"experimental_max_gossip_connections_to_non_persistent_peers": config("mempool.experimental_max_gossip_connections_to_non_persistent_peers", kInt),
	"peer_gossip_intraloop_sleep_duration":                        config("consensus.peer_gossip_intraloop_sleep_duration", kDuration),
	"abci_tests_enabled":                                          only(kBool, false, true, "the e2e app's ABCI request log feeds the runner's tests, which cometlab does not run"),
	"default_zone": func(r *e2eReader, path []string, v any) {
		if s, ok := r.str(path, v); ok {
			r.defaultZone = s
		}
	},
	"genesis": func(r *e2eReader, path []string, v any) {
		if l, ok := r.strings(path, v); ok && len(l) > 0 {
			r.refuse(path, false, "cometlab writes the genesis of each release itself; it takes no genesis overrides")
		}
	},
	"config":        func(r *e2eReader, path []string, v any) { r.configList(path, v, r.m.Config, "config") },
	"constant_flip": only(kBool, false, true, "the e2e app's constant_flip (v2.0's e2e app) is not mapped by cometlab"),
	"lanes": func(r *e2eReader, path []string, v any) {
		if t, ok := r.table(path, v); ok {
			r.app[lanesKey] = t
			r.from("app."+lanesKey, path)
		}
	},
	"no_lanes":          appKey(kBool),
	"load_lane_weights": laneWeights,
	"perturb_interval":  func(r *e2eReader, path []string, v any) { r.gap = r.duration(path, v) },
	"disable_pex": func(r *e2eReader, path []string, v any) {
		if b, ok := r.bool(path, v); ok && b {
			r.m.Config["p2p.pex"] = false
			r.from("config.p2p.pex", path)
		}
	},
	"vote_extension_size":           appKey(kInt),
	"vote_extensions_enable_height": appKey(kInt),
	"vote_extensions_update_height": appKey(kInt),
	"pbts_enable_height":            appKey(kInt),
	"pbts_update_height":            appKey(kInt),
	"prepare_proposal_delay":        appKey(kDuration),
	"process_proposal_delay":        appKey(kDuration),
	"check_tx_delay":                appKey(kDuration),
	"vote_extension_delay":          appKey(kDuration),
	"finalize_block_delay":          appKey(kDuration),
}

// e2eNodeKeys maps each key of a [node.NAME] table to what reads it.
var e2eNodeKeys = map[string]func(r *e2eReader, node string, path []string, v any){
	"mode":             (*e2eReader).readMode,
	"version":          (*e2eReader).readVersion,
	"seeds":            peerList(func(n *ManifestNode, l []string) { n.Seeds = l }),
	"persistent_peers": peerList(func(n *ManifestNode, l []string) { n.PersistentPeers = l }),
	"database":         (*e2eReader).readDatabase,
	"privval_protocol": nodeOnly(kString, "", false, "cometlab's validators sign with their file key; a remote signer adds a hop to every vote", "file"),
	"start_at": func(r *e2eReader, node string, path []string, v any) {
		if n, ok := r.int(path, v); ok {
			r.node(node, func(mn *ManifestNode) { mn.StartAt = n })
			r.from("node."+node+".start_at", path)
		}
	},
	"block_sync_version": nodeOnly(kString, "", false, "the only block sync there is, v0", "v0"),
	"fast_sync":          nodeOnly(kString, "", false, "the only fast sync cometlab runs is v0", "v0"),
	"block_sync":         nodeOnly(kString, "", false, "the only block sync there is, v0", "v0"),
	"state_sync": func(r *e2eReader, node string, path []string, v any) {
		if b, ok := r.bool(path, v); ok && b {
			r.node(node, func(mn *ManifestNode) { mn.StateSync = true })
			r.from("node."+node+".state_sync", path)
		}
	},
	"persist_interval":  nodeApp(),
	"snapshot_interval": nodeApp(),
	"retain_blocks":     nodeApp(),
	"perturb":           (*e2eReader).readPerturb,
	"send_no_load":      (*e2eReader).readSendNoLoad,
	"misbehaviors":      (*e2eReader).readMisbehaviors,
	"clock_skew": func(r *e2eReader, node string, path []string, v any) {
		if x, ok := r.value(path, kDuration, v); ok {
			r.node(node, func(mn *ManifestNode) { mn.ClockSkew = x.(string) })
			r.from("node."+node+".clock_skew", path)
		}
	},
	"enable_companion_pruning": nodeOnly(kBool, false, false, "cometlab runs no data companion, which this pruning waits for"),
	"use_libp2p":               (*e2eReader).readUseLibP2P,
	"block_sync_adaptive_sync": func(r *e2eReader, node string, path []string, v any) {
		if b, ok := r.bool(path, v); ok {
			r.node(node, func(mn *ManifestNode) { mn.AdaptiveSync = &b })
			r.from("node."+node+".adaptive_sync", path)
		}
	},
	"mempool_type": func(r *e2eReader, node string, path []string, v any) {
		if s, ok := r.str(path, v); ok && s != "" {
			r.node(node, func(mn *ManifestNode) { mn.Mempool = s })
			r.from("node."+node+".mempool", path)
		}
	},
	"mempool_version":            nodeConfig("mempool.version", kString),
	"experimental_db_key_layout": nodeConfig("storage.experimental_db_key_layout", kString),
	"compact":                    nodeConfig("storage.compact", kBool),
	"compaction_interval":        nodeConfig("storage.compaction_interval", kInt),
	"discard_abci_responses":     nodeConfig("storage.discard_abci_responses", kBool),
	"indexer":                    nodeConfig("tx_index.indexer", kString),
	"zone": func(r *e2eReader, node string, path []string, v any) {
		if s, ok := r.str(path, v); ok && s != "" {
			r.zones[node] = s
		}
	},
	"config": func(r *e2eReader, node string, path []string, v any) {
		cfg := map[string]any{}
		r.configList(path, v, cfg, "node."+node+".config")
		if len(cfg) > 0 {
			r.node(node, func(n *ManifestNode) { n.Config = cfg })
		}
	},
}

// The kinds of value an e2e key takes.
const (
	kBool     = "a boolean"
	kInt      = "an integer"
	kString   = "a string"
	kDuration = "a duration string"
	kStrings  = "an array of strings"
)

// value checks that v is of kind and returns it normalized: int64, bool,
// string (a duration stays its text), []string.
func (r *e2eReader) value(path []string, kind string, v any) (any, bool) {
	var ok bool
	switch kind {
	case kBool:
		_, ok = v.(bool)
	case kInt:
		_, ok = v.(int64)
	case kString:
		_, ok = v.(string)
	case kDuration:
		if s, isString := v.(string); isString {
			if _, err := time.ParseDuration(s); err != nil && s != "" {
				r.refuse(path, false, "invalid duration %q (want a Go duration such as \"100ms\")", s)
				return nil, false
			}
			return s, true
		}
	case kStrings:
		return r.strings(path, v)
	}
	if !ok {
		r.refuse(path, false, "wrong type: want %s, got %s", kind, tomlKind(v))
		return nil, false
	}
	return v, true
}

func (r *e2eReader) int(path []string, v any) (int64, bool) {
	x, ok := r.value(path, kInt, v)
	n, _ := x.(int64)
	if ok && n < 0 {
		r.refuse(path, false, "must be >= 0, got %d", n)
		return 0, false
	}
	return n, ok
}

func (r *e2eReader) str(path []string, v any) (string, bool) {
	x, ok := r.value(path, kString, v)
	s, _ := x.(string)
	return s, ok
}

func (r *e2eReader) bool(path []string, v any) (bool, bool) {
	x, ok := r.value(path, kBool, v)
	b, _ := x.(bool)
	return b, ok
}

func (r *e2eReader) duration(path []string, v any) string {
	x, _ := r.value(path, kDuration, v)
	s, _ := x.(string)
	return s
}

func (r *e2eReader) table(path []string, v any) (map[string]any, bool) {
	t, ok := v.(map[string]any)
	if !ok {
		r.refuse(path, false, "wrong type: want a table, got %s", tomlKind(v))
	}
	return t, ok
}

func (r *e2eReader) strings(path []string, v any) ([]string, bool) {
	l, ok := v.([]any)
	out := make([]string, 0, len(l))
	for _, x := range l {
		s, isString := x.(string)
		ok = ok && isString
		out = append(out, s)
	}
	if !ok {
		r.refuse(path, false, "wrong type: want %s, got %s", kStrings, tomlKind(v))
	}
	return out, ok
}

// tomlKind names the TOML type of a decoded value.
func tomlKind(v any) string {
	switch v.(type) {
	case bool:
		return "a TOML boolean"
	case int64:
		return "a TOML integer"
	case float64:
		return "a TOML float"
	case string:
		return "a TOML string"
	case []any:
		return "a TOML array"
	case map[string]any:
		return "a TOML table"
	}
	return fmt.Sprintf("a TOML %T", v)
}

// only makes the handler of a key cometlab takes only at its e2e default
// (or one of also): any other value is refused with reason.
func only(kind string, def any, lenient bool, reason string, also ...any) func(r *e2eReader, path []string, v any) {
	return func(r *e2eReader, path []string, v any) {
		x, ok := r.value(path, kind, v)
		if !ok || x == def || slices.Contains(also, x) {
			return
		}
		if d, err := time.ParseDuration(fmt.Sprint(x)); kind == kDuration && err == nil && d == 0 {
			return
		}
		if l, isList := x.([]string); isList && len(l) == 0 {
			return
		}
		r.refuse(path, lenient, "%s", reason)
	}
}

// nodeOnly is only for a node key.
func nodeOnly(kind string, def any, lenient bool, reason string, also ...any) func(r *e2eReader, node string, path []string, v any) {
	h := only(kind, def, lenient, reason, also...)
	return func(r *e2eReader, _ string, path []string, v any) { h(r, path, v) }
}

// laneWeights reads load_lane_weights, a table of lane id → weight, into
// [load] lane_weights (checked there against the app's lanes). Without it
// cometlab's load names no lane (the mempool's default lane), where the
// e2e runner spreads its load over every lane equally.
func laneWeights(r *e2eReader, path []string, v any) {
	t, ok := r.table(path, v)
	if !ok {
		return
	}
	ws := map[string]uint64{}
	for id, x := range t {
		n, ok := r.int(append(slices.Clone(path), id), x)
		if !ok {
			return
		}
		ws[id] = uint64(n)
	}
	r.m.Load.LaneWeights = ws
	r.from("load.lane_weights", path)
}

// appKey makes the handler of a testnet-wide e2e app setting: it goes to
// the [app] table, checked there against every node's release.
func appKey(kind string) func(r *e2eReader, path []string, v any) {
	return func(r *e2eReader, path []string, v any) {
		if x, ok := r.value(path, kind, v); ok {
			r.app[path[len(path)-1]] = x
			r.from("app."+path[len(path)-1], path)
		}
	}
}

// nodeApp makes the handler of a per-node e2e app setting, gathered for
// applyNodeApp.
func nodeApp() func(r *e2eReader, node string, path []string, v any) {
	return func(r *e2eReader, node string, path []string, v any) {
		key := path[len(path)-1]
		if n, ok := r.int(path, v); ok {
			if r.nodeApp[key] == nil {
				r.nodeApp[key] = map[string]any{}
			}
			r.nodeApp[key][node] = n
		}
	}
}

// config makes the handler of a key that is a config.toml setting of every
// node.
func config(cfgKey, kind string) func(r *e2eReader, path []string, v any) {
	return func(r *e2eReader, path []string, v any) {
		if x, ok := r.value(path, kind, v); ok && x != int64(0) && x != "" {
			r.m.Config[cfgKey] = x
			r.from("config."+cfgKey, path)
		}
	}
}

// nodeConfig makes the handler of a node key that is a config.toml
// setting of that node.
func nodeConfig(cfgKey, kind string) func(r *e2eReader, node string, path []string, v any) {
	return func(r *e2eReader, node string, path []string, v any) {
		x, ok := r.value(path, kind, v)
		if !ok || x == "" {
			return
		}
		r.node(node, func(n *ManifestNode) {
			n.Config = maps.Clone(n.Config)
			if n.Config == nil {
				n.Config = map[string]any{}
			}
			n.Config[cfgKey] = x
		})
		r.from("node."+node+".config."+cfgKey, path)
	}
}

// peerList makes the handler of a node's seeds or persistent_peers: the
// node's list, which makes the topology as written (see [TopologyAsWritten]).
func peerList(set func(n *ManifestNode, l []string)) func(r *e2eReader, node string, path []string, v any) {
	return func(r *e2eReader, node string, path []string, v any) {
		if l, ok := r.strings(path, v); ok && len(l) > 0 {
			r.node(node, func(n *ManifestNode) { set(n, l) })
			r.from("node."+node+"."+path[len(path)-1], path)
		}
	}
}

// loadInt makes the handler of a load_* integer.
func loadInt(dst func(*e2eReader) *int64) func(r *e2eReader, path []string, v any) {
	return func(r *e2eReader, path []string, v any) {
		if n, ok := r.int(path, v); ok {
			*dst(r) = n
			r.from("load."+path[0], path)
		}
	}
}

// configList reads an e2e config (or node config) list of "KEY = VALUE"
// strings into cfg; the value is read as TOML, else taken as a string.
func (r *e2eReader) configList(path []string, v any, cfg map[string]any, ckey string) {
	l, ok := r.strings(path, v)
	if !ok {
		return
	}
	for _, entry := range l {
		k, val, found := strings.Cut(entry, "=")
		k = strings.TrimSpace(k)
		if !found || k == "" {
			r.refuse(path, false, "entry %q is not KEY = VALUE", entry)
			continue
		}
		var doc map[string]any
		if err := toml.Unmarshal([]byte("v = "+strings.TrimSpace(val)), &doc); err == nil {
			cfg[k] = doc["v"]
		} else {
			cfg[k] = strings.TrimSpace(val)
		}
		r.from(ckey+"."+k, path)
	}
}
