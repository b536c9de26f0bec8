package experiment_test

import (
	"math"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/experiment/experimenttest"
)

// msgBytesManifest is 4 validators of v0.40.0 under 100 tx/s for 8 s.
const msgBytesManifest = `cometbft_version = "v0.40.0"
validators = 4
[load]
rate = 100
duration = "8s"
`

// TestMsgBytes runs real nodes and checks the bytes sent by p2p message
// type: every node has them, the types it sent under load are there
// (BlockPart, Vote, Txs), its types add up to its own per-peer total
// (p2p_peer_send_bytes_total) within SentBytesUnaccountedMaxPct, and the
// per-type figures per transaction add up to the node's bytes per
// transaction.
func TestMsgBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real testnet")
	}
	experimenttest.Proves(t)
	res, _ := runBuilt(t, loadManifest(t, "msgbytes.toml", msgBytesManifest))
	checkAccounted(t, res, 800)
	s := res.Summary
	for _, id := range []string{"p2p_sent_bytes", "p2p_sent_bytes_per_tx", "p2p_sent_bytes_unaccounted_pct",
		"p2p_sent_bytes_per_tx_block_part", "p2p_sent_bytes_per_tx_vote", "p2p_sent_bytes_per_tx_txs"} {
		if _, ok := s.Metrics[id]; !ok {
			t.Errorf("no %s (notes %q)", id, s.Notes)
		}
	}
	for _, n := range []string{"validator01", "validator02", "validator03", "validator04"} {
		figs := s.Nodes[n]
		total, perTx := figs["p2p_sent_bytes"], figs["p2p_sent_bytes_per_tx"]
		if total <= 0 {
			t.Errorf("%s sent %v bytes", n, total)
			continue
		}
		pct, ok := figs["p2p_sent_bytes_unaccounted_pct"]
		if !ok || pct > 1 {
			t.Errorf("%s: bytes by type are %v %% (%v) off its per-peer total, want ≤ 1 %%", n, pct, ok)
		}
		sum := 0.0
		for id, v := range figs {
			if strings.HasPrefix(id, "p2p_sent_bytes_per_tx_") {
				sum += v
			}
		}
		if math.Abs(sum-perTx) > 1e-6*perTx {
			t.Errorf("%s: the types' bytes per tx sum to %v, its bytes per tx are %v", n, sum, perTx)
		}
		t.Logf("%s: %.0f B sent, %.0f B/tx (BlockPart %.0f, Vote %.0f, Txs %.0f), %.3f %% unaccounted", n, total, perTx,
			figs["p2p_sent_bytes_per_tx_block_part"], figs["p2p_sent_bytes_per_tx_vote"], figs["p2p_sent_bytes_per_tx_txs"], pct)
	}
	for _, a := range s.Anomalies {
		if strings.Contains(a, "do not account for its traffic") {
			t.Errorf("anomaly: %s", a)
		}
	}
}
