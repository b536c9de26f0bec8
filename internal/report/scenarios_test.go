package report

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// TestScenarioSections: the absent-stake and injected-evidence sections
// of a run that played both (golden), and nothing for a run with neither.
func TestScenarioSections(t *testing.T) {
	s := analysis.Summary{Metrics: map[string]float64{
		"blocks": 40, "blocks_multi_round": 10, "absent_multi_round_share": 0.25, "absent_proposer_heights": 10,
		"absent_power_share": 0.25, "block_interval_mean_s": 1.75, "block_interval_max_s": 4.1,
		"block_latency_p50_ms": 1210, "block_latency_p99_ms": 4380, "evidence_injected": 2, "evidence_injected_committed": 1,
	}, Injected: []analysis.Injected{{Node: "validator02", Height: 12, Via: "validator01", Committed: 14}, {Node: "validator03", Height: 12, Via: "validator01"}}}
	run := results.Run{Absent: &results.Absent{Validators: []string{"validator04"}, Power: 1, TotalPower: 4}, Evidence: 2}
	var b bytes.Buffer
	mdWriter{w: &b}.scenarios(s, run)
	resultstest.Golden(t, filepath.Join("testdata", "scenarios.md.golden"), b.Bytes())

	b.Reset()
	mdWriter{w: &b}.scenarios(analysis.Summary{Metrics: map[string]float64{"blocks": 40}}, results.Run{})
	if b.Len() != 0 {
		t.Errorf("a run without scenarios got:\n%s", b.String())
	}
}
