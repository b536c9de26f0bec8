package experiment_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/experiment/experimenttest"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
)

// seedsManifest is 4 validators in zones z1 … z4 of zonesMatrix that know
// only seed01 (topology = "seeds", the seed in z1), under 50 tx/s for 8 s;
// validator04 starts late, once the chain is at height 4 (qa-infra's
// example.toml has such a validator).
const seedsManifest = `topology = "seeds"
[zones]
matrix = "m.csv"
[node.validator01]
zone = "z1"
[node.validator02]
zone = "z2"
[node.validator03]
zone = "z3"
[node.validator04]
zone = "z4"
start_at = 4
[node.seed01]
mode = "seed"
zone = "z1"
[load]
rate = 50
duration = "8s"
`

// TestSeedsTopology runs 1 seed and 4 validators in 4 zones that know only
// the seed: every validator's config.toml lists the seed and no
// persistent peer, with the peer exchange on and its own relay as its
// advertised address; the chain commits every transaction, so the
// validators found each other; each validator had at least 2 validators
// as peers (cometbft_p2p_peers ≥ 3: beyond the seed, only learnable
// through the peer exchange); every connection between two validators,
// all of them learned through the exchange, went through a relay that
// named its dialler and delayed it by the matrix (round trip ≥ the
// matrix's); run.json and the report's appendix record the topology.
// The late validator04 started after the chain reached height 4 and
// caught up (the logs' times say so), and run.json records its start_at.
func TestSeedsTopology(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real testnet")
	}
	experimenttest.Proves(t)
	mdir := t.TempDir()
	for name, text := range map[string]string{"m.csv": zonesMatrix, "seeds.toml": seedsManifest} {
		if err := os.WriteFile(filepath.Join(mdir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := manifest.Load(filepath.Join(mdir, "seeds.toml"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	res := runAccounted(t, experimenttest.Fetcher(t), r, 400)
	dir := res.Dir
	if res.Run.Topology != manifest.TopologySeeds {
		t.Errorf("run.json topology %q, want seeds", res.Run.Topology)
	}
	seedAddr, seedID := "", ""
	for _, n := range res.Run.Nodes {
		if n.Mode == cometbft.ModeSeed {
			seedAddr = n.P2P
			seedID, _, _ = strings.Cut(n.P2P, "@")
		}
	}
	checkRelayedPairs(t, res.Run)
	maxPeers := peersMax(t, dir)
	for _, n := range res.Run.Nodes {
		if n.Mode != cometbft.ModeValidator {
			continue
		}
		if !slices.Equal(n.Seeds, []string{"seed01"}) || len(n.PersistentPeers) > 0 {
			t.Errorf("run.json node %s: seeds %v, persistent peers %v", n.Name, n.Seeds, n.PersistentPeers)
		}
		p2p := readP2P(t, filepath.Join(dir, n.Home))
		if !strings.HasPrefix(p2p.Seeds, seedID+"@127.0.0.1:") || p2p.Seeds == seedAddr || strings.Contains(p2p.Seeds, ",") ||
			p2p.PersistentPeers != "" || !p2p.PEX || p2p.SeedMode || p2p.External == "" || strings.HasSuffix(n.P2P, p2p.External) {
			t.Errorf("node %s: config.toml p2p %+v, want the seed's relay (not %s) only, pex on, its own relay advertised", n.Name, p2p, seedAddr)
		}
		// 3 other validators and the seed, which hangs up after handing
		// out addresses: at least 2 peers learned from the exchange.
		if maxPeers[n.Name] < 3 {
			t.Errorf("node %s: at most %v peers, want ≥ 3: the peer exchange did not find the other validators", n.Name, maxPeers[n.Name])
		}
		t.Logf("node %s: up to %v peers", n.Name, maxPeers[n.Name])
	}
	checkLateStart(t, res.Run, dir, "validator04", 4)
	report, err := os.ReadFile(filepath.Join(dir, results.ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(report), "| validator01 | validator | seed01 | – |") {
		t.Errorf("report.md has no topology table naming validator01's seed")
	}
}

// logLine is a CometBFT log line's time and message: "I[2026-11-26|15:39:32.064] committed state … height=4 …".
var logLine = regexp.MustCompile(`(?m)^[DIEW]\[(\d{4}-\d\d-\d\d\|\d\d:\d\d:\d\d\.\d{3})\] (.*)$`)

// logTimes returns when node's log (in dir's logs) first says anything
// and when it says "committed state" for each height.
func logTimes(t *testing.T, dir, node string) (first time.Time, committed map[int64]time.Time) {
	t.Helper()
	log, err := os.ReadFile(filepath.Join(dir, results.LogsDir, node+".log"))
	if err != nil {
		t.Fatal(err)
	}
	committed = map[int64]time.Time{}
	height := regexp.MustCompile(`\bheight=(\d+)`)
	for _, m := range logLine.FindAllSubmatch(log, -1) {
		at, err := time.Parse("2006-01-02|15:04:05.000", string(m[1]))
		if err != nil {
			t.Fatal(err)
		}
		if first.IsZero() {
			first = at
		}
		if h := height.FindSubmatch(m[2]); h != nil && bytes.HasPrefix(m[2], []byte("committed state")) {
			n, _ := strconv.ParseInt(string(h[1]), 10, 64)
			if _, ok := committed[n]; !ok {
				committed[n] = at
			}
		}
	}
	return first, committed
}

// checkLateStart checks that node of run started late: run.json records
// its start_at, its log begins after the first validator's says it
// committed height startAt, and it has committed heights 1 … startAt
// itself (block sync).
func checkLateStart(t *testing.T, run results.Run, dir, node string, startAt int64) {
	t.Helper()
	i := slices.IndexFunc(run.Nodes, func(n results.Node) bool { return n.Name == node })
	if i < 0 || run.Nodes[i].StartAt != startAt {
		t.Errorf("run.json has no node %s with start_at %d: %+v", node, startAt, run.Nodes)
	}
	_, early := logTimes(t, dir, run.Nodes[0].Name)
	began, own := logTimes(t, dir, node)
	reached, ok := early[startAt]
	switch {
	case !ok:
		t.Errorf("%s's log does not say it committed height %d", run.Nodes[0].Name, startAt)
	case !began.After(reached):
		t.Errorf("%s's log begins at %s, before %s committed height %d (%s): it did not start late",
			node, began.Format("15:04:05.000"), run.Nodes[0].Name, startAt, reached.Format("15:04:05.000"))
	default:
		t.Logf("%s started %s after %s committed height %d", node, began.Sub(reached), run.Nodes[0].Name, startAt)
	}
	for h := int64(1); h <= startAt; h++ {
		if _, ok := own[h]; !ok {
			t.Errorf("%s never committed height %d: it did not catch up", node, h)
		}
	}
}

// p2pConfig is the part of config.toml TestSeedsTopology checks.
type p2pConfig struct {
	Seeds           string `toml:"seeds"`
	PersistentPeers string `toml:"persistent_peers"`
	PEX             bool   `toml:"pex"`
	SeedMode        bool   `toml:"seed_mode"`
	External        string `toml:"external_address"`
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

// checkRelayedPairs checks the relays' round trips of run: every
// connection's dialler named, and between every two validators at least
// one connection, its round trip at least the matrix's (1 ms for the
// clocks' resolution).
func checkRelayedPairs(t *testing.T, run results.Run) {
	t.Helper()
	if run.Zones == nil {
		t.Fatal("run.json has no zones")
	}
	zone := map[string]string{}
	for _, n := range run.Nodes {
		zone[n.Name] = n.Zone
	}
	idx := func(z string) int { return slices.Index(run.Zones.Zones, z) }
	seen := map[[2]string]bool{}
	for _, rt := range run.Zones.RoundTrips {
		if rt.From == "" {
			t.Errorf("a relayed connection to %s whose dialler was not found (no delay)", rt.To)
			continue
		}
		a, b := idx(zone[rt.From]), idx(zone[rt.To])
		want := run.Zones.DelayMs[a][b] + run.Zones.DelayMs[b][a]
		t.Logf("%s → %s: round trip min %.1f ms over %d, matrix %.0f ms", rt.From, rt.To, rt.MinMs, rt.N, want)
		if rt.MinMs < want-1 {
			t.Errorf("%s → %s: round trip %.1f ms, below the matrix's %.0f ms: not delayed", rt.From, rt.To, rt.MinMs, want)
		}
		if strings.HasPrefix(rt.From, "validator") && strings.HasPrefix(rt.To, "validator") {
			seen[[2]string{min(rt.From, rt.To), max(rt.From, rt.To)}] = true
		}
	}
	if len(seen) < 6 {
		t.Errorf("relayed connections between %d pairs of validators, want all 6: %v", len(seen), seen)
	}
}
