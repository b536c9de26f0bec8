package manifest

import "time"

func init() {
	nodes := validators(4, "v1.0.1")
	nodes[3].ClockSkew = 2 * time.Second
	goodManifests["clockskew.good.toml"] = Resolved{
		Name: "default", CometBFTVersion: "v1.0.1", App: "kvstore", LogLevel: "state:info,*:error", Links: "direct", Topology: "mesh",
		Config: map[string]any{}, Nodes: nodes, Load: defaultLoad,
	}
	badManifests["clockskew.bad.toml"] = []string{
		"clockskew.bad.toml:2:1: node.validator01.clock_skew: CometBFT v0.40.0 has no clock_skew build tag (types/time/now_skew.go came with v1.0): it cannot run on a skewed clock",
		`clockskew.bad.toml:5:1: node.validator02.clock_skew: invalid duration "soon" (want a Go duration such as "2s" or "-500ms")`,
		"clockskew.bad.toml:8:1: node.validator03.clock_skew: must be within ±10m0s, got -11m0s",
		"clockskew.bad.toml:11:1: node.validator04.clock_skew: an upgrade of validator04 would start its new release unskewed",
		"clockskew.bad.toml:15:1: perturb.validator04.to: v1.0.0 is older than the node's release v1.0.1: a downgrade is refused",
	}
}
