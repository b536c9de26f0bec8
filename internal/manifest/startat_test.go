package manifest

func init() {
	nodes := validators(4, "v0.40.0")
	nodes[3].StartAt = 10
	goodManifests["startat.good.toml"] = Resolved{
		Name: "default", CometBFTVersion: "v0.40.0", App: "kvstore", LogLevel: "state:info,*:error", Links: "direct", Topology: "mesh",
		Config: map[string]any{}, Nodes: nodes, Load: defaultLoad,
	}
	badManifests["startat.bad.toml"] = []string{
		"startat.bad.toml:6:1: node.validator02.start_at: must be between 0 and 10000, got -1",
		`startat.bad.toml:8:1: node.validator03.start_at: node "validator03" is absent (never started)`,
		"startat.bad.toml:11:1: node.seed01.start_at: a seed starts first",
	}
	badManifests["startat-quorum.bad.toml"] = []string{
		"startat-quorum.bad.toml:3:1: node.validator02.start_at: the validators that start with the testnet hold 1 of the 3 voting power, not more than 2/3: " +
			"the chain could not reach the heights validator02, validator03 wait for",
	}
	badManifests["startat-hosts.bad.toml"] = []string{
		"startat-hosts.bad.toml:11:1: node.validator02.start_at: `cometlab deploy` starts every host's nodes at once",
	}
}
