package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/analysis"
)

// TestPartitionSection checks the partition's section for a split that
// halted and one that did not, and that every partition figure of the
// dictionary is in it.
func TestPartitionSection(t *testing.T) {
	end := 16.5
	p := analysis.PerturbationSummary{Action: analysis.PartitionAction, Detail: "partition 50/50, down 6s: a b | c d", BeginS: 10.5, EndS: &end}
	figures := map[string]float64{"partition_heights": 1, "partition_halted": 1, "partition_halt_s": 0.52, "partition_rounds": 4,
		"partition_recover_s": 3.5, "partition_caught_up_s": 0, "partition_sent_txs": 600, "partition_committed_during_txs": 0,
		"partition_committed_after_txs": 600, "partition_lost_txs": 0}
	for _, tc := range []struct {
		name   string
		change map[string]float64
		want   []string
	}{
		{"halted", nil, []string{
			"### Network partition\n\nThe p2p links between the groups were cut in the relays from 10.5 s to 16.5 s after the load start (partition 50/50, down 6s: a b | c d)",
			"- **The chain halted** 0.520 s after the cut (1 new height(s) committed while partitioned): no side held more than 2/3 of the voting power.\n",
			"- Rounds while partitioned: up to round 4 (consensus_rounds;",
			"- After the heal: the next new height 3.500 s later (time to recover); every node at the heal's height 0.000 s after it.\n",
			"- Transactions sent while partitioned: 600; committed before the heal 0, after it 600, never 0.\n"}},
		{"kept going", map[string]float64{"partition_halted": 0, "partition_heights": 6}, []string{
			"- **The chain did not halt**: a side held more than 2/3 of the voting power; 6 new heights committed while partitioned.\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := analysis.Summary{Metrics: map[string]float64{}, Perturbations: []analysis.PerturbationSummary{p}}
			for k, v := range figures {
				s.Metrics[k] = v
			}
			for k, v := range tc.change {
				s.Metrics[k] = v
			}
			var b bytes.Buffer
			mdWriter{w: &b}.partition(s)
			for _, w := range tc.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("section lacks %q:\n%s", w, b.String())
				}
			}
			if strings.Contains(b.String(), "n/a") {
				t.Errorf("a figure missing from the section:\n%s", b.String())
			}
		})
	}
	for _, m := range analysis.Dictionary() {
		if _, ok := figures[m.ID]; strings.HasPrefix(m.ID, "partition_") && !ok {
			t.Errorf("%s is not in the section's figures", m.ID)
		}
	}
}
