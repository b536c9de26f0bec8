package experiment

import (
	"context"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/manifest"
)

// testnetSpec turns a resolved manifest into what cometbft.Generate takes:
// one binary per release (fetched once each) or the user's binary, and
// each node's release so that a mixed network gets a genesis every node
// reads.
func testnetSpec(ctx context.Context, m manifest.Resolved, f *cometbft.Fetcher, chainID string) (cometbft.Spec, error) {
	spec := cometbft.Spec{ChainID: chainID, App: m.App, LogLevel: m.LogLevel}
	binaries := map[string]string{}
	for _, n := range m.Nodes {
		v, bin := n.Version, m.CometBFTBinary
		if v == "" && bin == "" {
			v = m.CometBFTVersion
		}
		if v != "" {
			if binaries[v] == "" {
				b, err := f.Binary(ctx, v)
				if err != nil {
					return spec, err
				}
				binaries[v] = b
			}
			bin = binaries[v]
		} else if err := cometbft.CheckBinary(bin); err != nil {
			return spec, err
		}
		spec.Nodes = append(spec.Nodes, cometbft.NodeSpec{Name: n.Name, Mode: n.Mode, Power: n.Power,
			Version: v, Binary: bin, Config: n.Config})
	}
	return spec, nil
}

// nodeVersion is the release (or binary) a node of m runs, for run.json.
func nodeVersion(m manifest.Resolved, n manifest.Node) string {
	switch {
	case n.Version != "":
		return n.Version
	case m.CometBFTBinary != "":
		return "binary " + m.CometBFTBinary
	}
	return m.CometBFTVersion
}
