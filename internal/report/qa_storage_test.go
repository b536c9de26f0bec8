package report

import (
	"math"
	"strings"
	"testing"
)

// TestQAStorageRow: how a cell's growth per hour was found, and a
// pruning cell whose chain never passed retain_blocks heights said to
// have never pruned.
func TestQAStorageRow(t *testing.T) {
	for _, tc := range []struct {
		name            string
		row             QAStorageRow
		basis, unpruned string
		wantMeasured    bool
	}{
		{"short run", QAStorageRow{Settings: []string{"app.retain_blocks=0"}, Runs: 1, Heights: 6, DurationS: 6}, "extrapolated from 6s", "", false},
		{"an hour", QAStorageRow{Settings: []string{"app.retain_blocks=10"}, Runs: 1, Heights: 3000, DurationS: 3600}, "measured over 1h0m", "", true},
		{"too few heights to prune", QAStorageRow{Settings: []string{"app.retain_blocks=10", "storage.compact=true"}, Runs: 1, Heights: 6, DurationS: 6},
			"extrapolated from 6s", "never pruned: 6 heights ≤ retain_blocks 10", false},
		{"not run", QAStorageRow{Settings: []string{"app.retain_blocks=10"}, Heights: math.NaN()}, "not run yet", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.row.Basis(); got != tc.basis {
				t.Errorf("basis %q, want %q", got, tc.basis)
			}
			if got := tc.row.Unpruned(); got != tc.unpruned {
				t.Errorf("unpruned %q, want %q", got, tc.unpruned)
			}
			if tc.row.Measured() != tc.wantMeasured {
				t.Errorf("measured %v", tc.row.Measured())
			}
		})
	}
	s := QAStorageSummary([]QAStorageRow{{Settings: []string{"app.retain_blocks=10"}, Runs: 1, Heights: 6, DurationS: 6, PerHourMiB: 2906.7}})
	if !strings.Contains(s, "retain_blocks=10: 2906.7 MiB/h (extrapolated from 6s; never pruned: 6 heights ≤ retain_blocks 10)") {
		t.Errorf("summary %q", s)
	}
}
