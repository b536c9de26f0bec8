package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// TestAutopsyOverloadSection renders "Why these blocks were slow" for an
// overload (the verdicts of a real run at 3,000 tx/s, 3 × what the default
// testnet commits): the full mempools come first, then the one slow
// height; a run whose mempools were never full has no such line.
func TestAutopsyOverloadSection(t *testing.T) {
	s := analysis.Summary{Metrics: map[string]float64{"blocks": 16, "slow_heights": 1, "slow_heights_mempool_full": 1, "mempool_full_heights": 12},
		Autopsy: []results.Verdict{{Height: 19, Round: 1, Proposer: "validator02", IntervalMs: 6814.6, Cause: analysis.CauseMempoolFull, Node: "validator01",
			Evidence: "round 1, interval 6815 ms (median 2513); mempool of validator01 5000 txs (capacity 5000); GC paused validator02 150 ms"}}}
	var b bytes.Buffer
	mdWriter{w: &b}.autopsy(s)
	resultstest.Golden(t, filepath.Join("testdata", "autopsy_overload.md.golden"), b.Bytes())

	b.Reset()
	s.Metrics["mempool_full_heights"] = 0
	mdWriter{w: &b}.autopsy(s)
	if strings.Contains(b.String(), "Overloaded") {
		t.Errorf("a run whose mempools were never full is said to be overloaded:\n%s", b.String())
	}
}
