package experiment_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/experiment/experimenttest"
)

// dogManifest is 4 validators of v2.0.0-rc1 with DOG on, under 100 tx/s
// for 8 s.
const dogManifest = `cometbft_version = "v2.0.0-rc1"
validators = 4
dog = true
[load]
rate = 100
duration = "8s"
`

// TestDOG runs v2.0's DOG gossip on real nodes: every node's config.toml
// has it on, every transaction commits, and its own messages show in the
// bytes sent per message type: in a mesh of 4 every transaction reaches
// each node more than once, so DOG's HaveTx (a node telling a peer it
// already has a transaction) is sent. v2.0 counts no bytes per peer, so
// the sum check is absent with a note.
func TestDOG(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real testnet")
	}
	experimenttest.Proves(t)
	res, dir := runBuilt(t, loadManifest(t, "dog.toml", dogManifest))
	checkAccounted(t, res, 800)
	for _, n := range res.Run.Nodes {
		b, err := os.ReadFile(cometbft.ConfigFile(filepath.Join(dir, filepath.FromSlash(n.Home))))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "dog_protocol_enabled = true") {
			t.Errorf("%s's config.toml does not turn DOG on", n.Name)
		}
	}
	s := res.Summary
	if v := s.Metrics["p2p_sent_bytes_per_tx_have_tx"]; v <= 0 {
		t.Errorf("HaveTx bytes per tx %v, want some (notes %q)", v, s.Notes)
	}
	if _, ok := s.Metrics["p2p_sent_bytes_unaccounted_pct"]; ok {
		t.Error("p2p_sent_bytes_unaccounted_pct computed on v2.0, which counts no bytes per peer")
	}
	t.Logf("bytes per tx: all %.0f, Txs %.0f, HaveTx %.1f, ResetRoute %.1f", s.Metrics["p2p_sent_bytes_per_tx"],
		s.Metrics["p2p_sent_bytes_per_tx_txs"], s.Metrics["p2p_sent_bytes_per_tx_have_tx"], s.Metrics["p2p_sent_bytes_per_tx_reset_route"])
}
