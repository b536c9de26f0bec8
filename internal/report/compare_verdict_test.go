package report

import (
	"testing"

	"github.com/cometlab/cometlab/internal/compare"
)

// verdictCase builds a one-candidate comparison whose rows are the
// given metrics with their Δ % and verdicts.
func verdictCase(verdict compare.Verdict, rows []verdictRow) compare.Result {
	c := compare.Result{Baseline: compare.SideInfo{Label: "base"}, Candidates: []compare.SideInfo{{Label: "cand", Verdict: verdict}}}
	for _, r := range rows {
		d, pct := r.pct, r.pct
		c.Metrics = append(c.Metrics, compare.Row{ID: r.id, Candidates: []compare.Cell{{Verdict: r.verdict, Delta: &d, DeltaPct: &pct}}})
	}
	return c
}

type verdictRow struct {
	id      string
	pct     float64
	verdict compare.Verdict
}

// TestVerdictSentenceHeadlineFirst reproduces a 2 s timeout_commit
// comparison: 18 metrics worse, the largest changes spreads and
// processing time, while block latency mean (+72.1 %) is the headline
// the sentence must name first; the rest follow by size. Without the
// headline order the sentence named Tx/s stddev, Block latency stddev and
// Block processing time only.
func TestVerdictSentenceHeadlineFirst(t *testing.T) {
	worse := []verdictRow{
		{"tps_stddev", 123.2, compare.Worse},
		{"block_latency_stddev_ms", 81.9, compare.Worse},
		{"block_processing_time_mean_ms", 81.2, compare.Worse},
		{"block_latency_mean_ms", 72.1, compare.Worse},
	}
	for i := range 14 {
		worse = append(worse, verdictRow{"block_latency_stddev_ms", 20 - float64(i), compare.Worse})
	}
	tests := []struct {
		name    string
		verdict compare.Verdict
		rows    []verdictRow
		want    string
	}{
		{"timeout_commit 2 s", compare.Worse, worse,
			"**cand** against base: **worse** in 18 metrics: Block latency mean (+72.1 %), Tx/s stddev (+123.2 %), Block latency stddev (+81.9 %), and 15 more."},
		{"headlines in their order, before larger changes", compare.Worse, []verdictRow{
			{"tps_stddev", 300, compare.Worse}, {"rounds_max", 50, compare.Worse}, {"committed_tps", -12, compare.Worse},
			{"block_latency_p99_ms", 30, compare.Worse}},
			"**cand** against base: **worse** in 4 metrics: Block latency p99 (+30.0 %), Committed rate (−12.0 %), Rounds max (+50.0 %), and 1 more."},
		{"better: the same order", compare.Better, []verdictRow{
			{"tps_stddev", -60, compare.Better}, {"block_latency_mean_ms", -11, compare.Better}},
			"**cand** against base: **better** in 2 metrics: Block latency mean (−11.0 %), Tx/s stddev (−60.0 %); worse in none."},
		{"issues before everything", compare.Worse, []verdictRow{
			{"block_latency_mean_ms", 30, compare.Worse}, {"log_panics", 100, compare.Worse}},
			"**cand** against base: **worse** in 2 metrics: Panics in the logs (+100.0 %), Block latency mean (+30.0 %)."},
		{"no headline: by size", compare.Worse, []verdictRow{
			{"tps_stddev", 20, compare.Worse}, {"block_processing_time_mean_ms", 40, compare.Worse}},
			"**cand** against base: **worse** in 2 metrics: Block processing time (+40.0 %), Tx/s stddev (+20.0 %)."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := verdictSentence(verdictCase(tt.verdict, tt.rows), 0); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}
