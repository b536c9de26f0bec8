package experiment_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
)

// seedsManifest is 4 validators that know only seed01 (topology =
// "seeds"), under 50 tx/s for 8 s.
const seedsManifest = `topology = "seeds"
[node.validator01]
[node.validator02]
[node.validator03]
[node.validator04]
[node.seed01]
mode = "seed"
[load]
rate = 50
duration = "8s"
`

// TestSeedsTopology runs 1 seed and 4 validators that know only the seed:
// every validator's config.toml lists the seed and no persistent peer,
// with the peer exchange on; the chain commits every transaction, so the
// validators found each other; each validator had at least 2 validators
// as peers (cometbft_p2p_peers ≥ 2 beyond the seed, which it could only
// have learned through the peer exchange); run.json and the report's
// appendix record the topology.
func TestSeedsTopology(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real testnet")
	}
	m, err := manifest.Parse("seeds.toml", []byte(seedsManifest))
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	res := runAccounted(t, fetcher(t), r, 400)
	dir := res.Dir
	if res.Run.Topology != manifest.TopologySeeds {
		t.Errorf("run.json topology %q, want seeds", res.Run.Topology)
	}
	seedAddr := ""
	for _, n := range res.Run.Nodes {
		if n.Mode == cometbft.ModeSeed {
			seedAddr = n.P2P
		}
	}
	maxPeers := peersMax(t, dir)
	for _, n := range res.Run.Nodes {
		if n.Mode != cometbft.ModeValidator {
			continue
		}
		if !slices.Equal(n.Seeds, []string{"seed01"}) || len(n.PersistentPeers) > 0 {
			t.Errorf("run.json node %s: seeds %v, persistent peers %v", n.Name, n.Seeds, n.PersistentPeers)
		}
		p2p := readP2P(t, filepath.Join(dir, n.Home))
		if p2p.Seeds != seedAddr || p2p.PersistentPeers != "" || !p2p.PEX || p2p.SeedMode {
			t.Errorf("node %s: config.toml p2p %+v, want seeds %s only, pex on", n.Name, p2p, seedAddr)
		}
		// 3 other validators and the seed, which hangs up after handing
		// out addresses: at least 2 peers learned from the exchange.
		if maxPeers[n.Name] < 3 {
			t.Errorf("node %s: at most %v peers, want ≥ 3: the peer exchange did not find the other validators", n.Name, maxPeers[n.Name])
		}
		t.Logf("node %s: up to %v peers", n.Name, maxPeers[n.Name])
	}
	report, err := os.ReadFile(filepath.Join(dir, results.ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(report), "| validator01 | validator | seed01 | – |") {
		t.Errorf("report.md has no topology table naming validator01's seed")
	}
}

// p2pConfig is the part of config.toml TestSeedsTopology checks.
type p2pConfig struct {
	Seeds           string `toml:"seeds"`
	PersistentPeers string `toml:"persistent_peers"`
	PEX             bool   `toml:"pex"`
	SeedMode        bool   `toml:"seed_mode"`
}

func readP2P(t *testing.T, home string) p2pConfig {
	t.Helper()
	b, err := os.ReadFile(cometbft.ConfigFile(home))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		P2P p2pConfig `toml:"p2p"`
	}
	if err := toml.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	return cfg.P2P
}

// peersMax is each node's largest cometbft_p2p_peers in metrics.csv.
func peersMax(t *testing.T, dir string) map[string]float64 {
	t.Helper()
	rows, err := results.ReadMetrics(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, r := range rows {
		if r.Name == "cometbft_p2p_peers" {
			out[r.Node] = max(out[r.Node], r.Value)
		}
	}
	return out
}
