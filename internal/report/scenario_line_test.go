package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
	"github.com/cometlab/cometlab/internal/saturation"
)

// TestScenarioLines: each scenario's answer from its figures, the bad
// outcome said in bold (the chain never recovered, transactions lost, the
// network stopped during an upgrade, nothing committed with a stake
// absent), and none for a run without a scenario.
func TestScenarioLines(t *testing.T) {
	end := 16.5
	part := analysis.PerturbationSummary{Action: analysis.PartitionAction, Detail: "partition 50/50", BeginS: 10.5, EndS: &end}
	partFigs := map[string]float64{"partition_heights": 1, "partition_halted": 1, "partition_halt_s": 0.52, "partition_recover_s": 4.1,
		"partition_sent_txs": 1000, "partition_committed_during_txs": 0, "partition_committed_after_txs": 1000, "partition_lost_txs": 0}
	upFigs := map[string]float64{"upgrades": 4, "upgrade_downtime_max_s": 2.5, "upgrade_catch_up_max_s": 1.8, "upgrade_network_stalls": 0,
		"upgrade_mixed_version_s": 40}
	absFigs := map[string]float64{"absent_power_share": 0.25, "blocks": 60, "blocks_multi_round": 15, "absent_multi_round_share": 0.25,
		"absent_proposer_heights": 15, "block_interval_mean_s": 1.75}
	rotFigs := map[string]float64{"rotation_catch_ups": 2, "rotation_catch_up_mean_s": 3.75, "rotation_catch_up_max_s": 4.5,
		"rotation_sync_blocks_per_s_mean": 33.78}
	with := func(base map[string]float64, change map[string]float64) map[string]float64 {
		out := map[string]float64{}
		for k, v := range base {
			out[k] = v
		}
		for k, v := range change {
			out[k] = v
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		figs    map[string]float64
		perturb []analysis.PerturbationSummary
		want    []string
	}{
		{"none", map[string]float64{"blocks": 60}, nil, nil},
		{"partition", partFigs, []analysis.PerturbationSummary{part}, []string{
			"Network partition: the chain halted 0.520 s after the cut, recovered 4.100 s after the heal; 1,000 sent while partitioned, all committed (0 before the heal, 1,000 after it)."}},
		{"partition lost", with(partFigs, map[string]float64{"partition_lost_txs": 7, "partition_committed_after_txs": 993}),
			[]analysis.PerturbationSummary{part}, []string{
				"Network partition: the chain halted 0.520 s after the cut, recovered 4.100 s after the heal; 1,000 sent while partitioned, **7 never committed** (0 before the heal, 993 after it)."}},
		{"partition never recovered", with(partFigs, nil), []analysis.PerturbationSummary{part}, nil}, // patched below
		{"partition kept going", with(partFigs, map[string]float64{"partition_halted": 0, "partition_heights": 6}), []analysis.PerturbationSummary{part}, []string{
			"Network partition: the chain did not halt (6 new heights while partitioned: a side held more than 2/3 of the voting power), recovered 4.100 s after the heal;"}},
		{"upgrade", upFigs, nil, []string{
			"Rolling upgrade: 4 node(s) restarted on another release, the network kept committing through every upgrade (longest downtime 2.500 s, longest catch-up 1.800 s; mixed versions for 40.000 s)."}},
		{"upgrade stalled", with(upFigs, map[string]float64{"upgrade_network_stalls": 1}), nil, []string{
			"Rolling upgrade: 4 node(s) restarted on another release, **the network stopped committing during 1 upgrade(s)**"}},
		{"absent", absFigs, nil, []string{
			"Absent stake: 25.0 % of the voting power never started; the chain kept committing, 15 of 60 heights after round 0 (25.0 %), 15 for an absent proposer; block interval mean 1.750 s."}},
		{"absent halted", with(absFigs, map[string]float64{"blocks": 0}), nil, []string{
			"Absent stake: 25.0 % of the voting power never started, and **the chain committed no block**."}},
		{"rotation", rotFigs, nil, []string{
			"Rotation: 2 ephemeral node(s) caught up from genesis, in 3.750 s on average (max 4.500 s), syncing 33.78 blocks/s."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := analysis.Summary{Metrics: tc.figs, Perturbations: tc.perturb}
			if tc.name == "partition never recovered" {
				delete(s.Metrics, "partition_recover_s")
				tc.want = []string{"Network partition: the chain halted 0.520 s after the cut, **no new height after the heal**; 1,000 sent"}
			}
			got := ScenarioLines(s)
			if len(got) != len(tc.want) {
				t.Fatalf("lines %q, want %d", got, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.HasPrefix(got[i], w) {
					t.Errorf("line %q\nwant %q…", got[i], w)
				}
			}
		})
	}
}

// TestGlancePartitionGolden: a partition run's report opens with the
// partition's answer; the slow heights the partition caused stay below.
func TestGlancePartitionGolden(t *testing.T) {
	end := 40.0
	s := analysis.Summary{RunID: "partition-run", Status: "complete",
		Metrics: map[string]float64{"sent_txs": 6000, "committed_txs": 6000, "expected_txs": 6000, "throughput_ratio": 1,
			"committed_tps": 100, "tps_mean": 99, "tps_max": 400, "block_latency_mean_ms": 1900, "block_latency_p50_ms": 1100,
			"block_latency_p99_ms": 9800, "blocks": 50, "slow_heights": 1, "slow_heights_" + analysis.CausePerturbation: 1,
			"partition_heights": 0, "partition_halted": 1, "partition_halt_s": 0.4, "partition_recover_s": 4.1, "partition_sent_txs": 1000,
			"partition_committed_during_txs": 0, "partition_committed_after_txs": 1000, "partition_lost_txs": 0},
		Perturbations: []analysis.PerturbationSummary{{Action: analysis.PartitionAction, Detail: "partition 50/50", BeginS: 20, EndS: &end}},
		Autopsy:       []results.Verdict{{Height: 31, Round: 3, IntervalMs: 24100, Cause: analysis.CausePerturbation}}}
	run := results.Run{CometBFTVersion: "v0.40.0", Target: "validator00", Nodes: make([]results.Node, 4),
		Load: results.Load{Connections: 1, Rate: 100, DurationS: 60}}
	var b bytes.Buffer
	mdWriter{w: &b}.glance(run, s, saturation.Verdict{Pass: true})
	resultstest.Golden(t, filepath.Join("testdata", "glance_partition.md.golden"), b.Bytes())
	if i, j := strings.Index(b.String(), "**Network partition**"), strings.Index(b.String(), "**Slow heights**"); i < 0 || j < i {
		t.Errorf("the partition's answer does not open the report:\n%s", b.String())
	}
}
