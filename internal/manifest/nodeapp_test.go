package manifest

func init() {
	nodes := validators(4, "v1.0.1")
	nodes[2].App = map[string]any{"prepare_proposal_delay": "1500ms", "retain_blocks": int64(10)}
	goodManifests["nodeapp.good.toml"] = Resolved{
		Name: "default", CometBFTVersion: "v1.0.1", App: "e2e", LogLevel: "state:info,*:error", Links: "direct", Topology: "mesh",
		AppConfig: map[string]any{"vote_extensions_enable_height": int64(1)}, Config: map[string]any{}, Nodes: nodes, Load: defaultLoad,
	}
	badManifests["nodeapp.bad.toml"] = []string{
		"nodeapp.bad.toml:4:1: node.validator01.app.vote_extension_size: a node may set only check_tx_delay, finalize_block_delay, prepare_proposal_delay, " +
			"process_proposal_delay, vote_extension_delay, persist_interval, retain_blocks, snapshot_interval for itself; vote_extension_size is the network's: set it in [app]",
		`nodeapp.bad.toml:6:1: node.validator02.app.prepare_proposal_delay: want a non-negative Go duration such as "1500ms", got soon`,
		"nodeapp.bad.toml:8:1: node.validator03.app.retain_blocks: want a non-negative integer, got -1",
		`nodeapp.bad.toml:10:1: node.validator04.app.finalize_block_delay: want a non-negative Go duration such as "1500ms", got 5`,
	}
	badManifests["nodeapp-release.bad.toml"] = []string{
		`nodeapp-release.bad.toml:3:9: node.validator02.app.finalize_block_delay: the e2e app of v0.40.0 has no key "finalize_block_delay"`,
	}
	badManifests["nodeapp-kvstore.bad.toml"] = []string{
		`nodeapp-kvstore.bad.toml:2:1: node.validator02.app: a node's app settings are the e2e app's (app = "e2e"), and this testnet runs "kvstore"`,
	}
}
