package experiment_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/results"
)

// TestLibP2P runs 4 validators of v0.40.0 on go-libp2p (libp2p = true, as
// CometBFT's e2e network libp2p-simple.toml) under 100 tx/s for 8 s:
// every transaction sent is committed, counted from the blocks; each
// node's log says it networks with libp2p under the peer id cometlab
// derived from its node key, and every pair of nodes connected by their
// libp2p ids (either side logs it: the p2p module at info); and its config.toml names them as
// bootstrap peers, with no persistent_peers.
func TestLibP2P(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real libp2p testnet")
	}
	m := loadManifest(t, "libp2p.toml", "libp2p = true\nlog_level = \"state:info,p2p:info,*:error\"\n[load]\nrate = 100\nduration = \"8s\"\n")
	res, dir := runBuilt(t, m)
	checkAccounted(t, res, 800)
	homes, err := filepath.Glob(filepath.Join(dir, results.NodesDir, "validator*"))
	if err != nil || len(homes) != 4 {
		t.Fatalf("validator homes %v (%v), want 4", homes, err)
	}
	ids := map[string]string{} // node → libp2p id
	for _, h := range homes {
		id, err := cometbft.LibP2PID(h)
		if err != nil {
			t.Fatal(err)
		}
		ids[filepath.Base(h)] = id
	}
	connected := regexp.MustCompile(`(?:Connected|Reconnected) to peer.*peer_id=(\S+)`)
	linked := map[[2]string]bool{} // unordered pairs of libp2p ids either side connected
	for _, h := range homes {
		name := filepath.Base(h)
		cfg, err := os.ReadFile(cometbft.ConfigFile(h))
		if err != nil {
			t.Fatal(err)
		}
		for other, id := range ids {
			if other != name && !strings.Contains(string(cfg), id) {
				t.Errorf("%s: config.toml's bootstrap peers lack %s (%s)", name, other, id)
			}
		}
		log, err := os.ReadFile(filepath.Join(dir, results.LogsDir, name+".log"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(log), "Using libp2p transport") || !strings.Contains(string(log), "host_id="+ids[name]) {
			t.Errorf("%s: the log does not say it uses libp2p as %s", name, ids[name])
		}
		for _, mm := range connected.FindAllStringSubmatch(string(log), -1) {
			linked[pair(ids[name], mm[1])] = true
		}
	}
	for a, ida := range ids {
		for b, idb := range ids {
			if a < b && !linked[pair(ida, idb)] {
				t.Errorf("%s and %s never connected by libp2p (%s, %s)", a, b, ida, idb)
			}
		}
	}
}

// pair is an unordered pair of strings.
func pair(a, b string) [2]string {
	if b < a {
		a, b = b, a
	}
	return [2]string{a, b}
}
