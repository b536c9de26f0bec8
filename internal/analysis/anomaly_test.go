package analysis

import (
	"slices"
	"testing"
)

// TestSortAnomalies checks that Summary.Anomalies lists the worst first
// (a node that died, one that fell behind, transactions lost, the rest), keeping the order
// found within a severity, also for an anomaly appended directly.
func TestSortAnomalies(t *testing.T) {
	tests := []struct {
		name string
		add  func(b *builder)
		want []string
	}{
		{"none", func(b *builder) {}, nil},
		{"one", func(b *builder) { b.anomaly("a") }, []string{"a"}},
		{"ranked", func(b *builder) {
			b.anomaly("rounds")
			b.anomalyOf(severeTxs, "rejected")
			b.anomalyOf(severeTxs, "missing")
			b.anomaly("mempool")
			b.anomalyOf(severeBehind, "v1 fell behind")
			b.anomalyOf(severeExit, "v1 died")
		}, []string{"v1 died", "v1 fell behind", "rejected", "missing", "rounds", "mempool"}},
		{"appended directly", func(b *builder) {
			b.s.Anomalies = append(b.s.Anomalies, "gap")
			b.anomalyOf(severeBehind, "fell behind")
		}, []string{"fell behind", "gap"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &builder{s: &Summary{}}
			tt.add(b)
			b.sortAnomalies()
			if !slices.Equal(b.s.Anomalies, tt.want) {
				t.Errorf("anomalies %q, want %q", b.s.Anomalies, tt.want)
			}
		})
	}
}
