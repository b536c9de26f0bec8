package manifest

func init() {
	nodes := validators(4, "v0.40.0")
	nodes = append(nodes, Node{Name: "twin01", Mode: ModeFull, Version: "v0.40.0", Config: map[string]any{}, TwinOf: "validator01"})
	goodManifests["twins.good.toml"] = Resolved{
		Name: "default", CometBFTVersion: "v0.40.0", App: "kvstore", LogLevel: "state:info,*:error", Links: "direct", Topology: "mesh",
		Config: map[string]any{}, Nodes: nodes, Load: defaultLoad,
	}
	badManifests["twins.bad.toml"] = []string{
		`twins.bad.toml:10:1: node.twin01.twin_of: no node named "validator05"`,
		`twins.bad.toml:12:1: node.twin02.twin_of: node "full01" is a full node: a twin holds a validator's key`,
		`twins.bad.toml:14:1: node.twin03.twin_of: node "validator03" is absent (never started): its key would sign in one process, not two`,
		`twins.bad.toml:17:1: node.twin04.mode: a twin is not in the genesis (its validator is): leave mode unset, got "seed"`,
		`twins.bad.toml:20:1: node.twin05.power: a twin signs with validator01's key and power: leave power unset`,
	}
	badManifests["twins-hosts.bad.toml"] = []string{
		"twins-hosts.bad.toml:11:1: node.twin01.twin_of: `cometlab deploy` copies no key between nodes: twins run on a local testnet only",
	}
}
