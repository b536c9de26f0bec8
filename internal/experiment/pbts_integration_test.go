package experiment_test

import (
	"testing"

	"github.com/cometlab/cometlab/internal/compare"
	"github.com/cometlab/cometlab/internal/experiment/experimenttest"
)

// pbtsManifest is 4 validators of v1.0.1 with PBTS from height 1, under
// 100 tx/s for 6 s, on the built-in kvstore.
const pbtsManifest = `cometbft_version = "v1.0.1"
validators = 4
pbts_enable_height = 1
[load]
rate = 100
duration = "6s"
`

// TestPBTS runs v1.0's proposer-based timestamps on real nodes with the
// kvstore: every transaction commits, and the run's genesis says PBTS,
// which is what compare reads to warn about a side with BFT time.
func TestPBTS(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real testnet")
	}
	experimenttest.Proves(t)
	res, dir := runBuilt(t, loadManifest(t, "pbts.toml", pbtsManifest))
	checkAccounted(t, res, 600)
	r, err := compare.LoadRun(dir, compare.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := compare.BlockTime(r); got != "PBTS from height 1" {
		t.Errorf("block time %q (genesis feature.pbts_enable_height %q), want PBTS from height 1", got,
			r.Settings["genesis.consensus_params.feature.pbts_enable_height"])
	}
	t.Logf("untimely proposals %v, proposal timestamp difference %.0f ms", res.Summary.Metrics["untimely_proposals"],
		res.Summary.Metrics["proposal_timestamp_diff_mean_ms"])
}
