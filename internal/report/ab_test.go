package report

import (
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/compare"
	"github.com/cometlab/cometlab/internal/sequential"
)

// TestABSequentialMarkdown checks the verdict sentences and the table of
// an auto experiment's report.
func TestABSequentialMarkdown(t *testing.T) {
	decs := []sequential.Decision{{Metrics: []sequential.Result{
		{ID: "block_latency_p50_ms", Outcome: sequential.Worse, Pairs: 4, DecidedAt: 3, MeanDiff: 1007, Threshold: 100, P: 4e-5, Level: 3e-4},
		{ID: "committed_tps", Outcome: sequential.Equivalent, Pairs: 4, DecidedAt: 4, MeanDiff: -0.5, Threshold: 20},
		{ID: "adoption_p100_ms", Outcome: sequential.Undecided, Pairs: 4},
	}}}
	s := ABSequential{Labels: []string{"base", "cand"}, Pairs: 4, MaxPairs: 10, Decisions: decs, Verdict: compare.Worse, Method: "m", Alpha: 0.05, Stop: "worse"}
	md := ABSequentialMarkdown(s)
	for _, w := range []string{
		"## A/B verdict: WORSE after 4 pairs (sequential)",
		"**cand** against base: **worse** in Block latency p50 (ms) (+1007.0, at pair 3); 0 better, 1 equivalent, 1 undecided.",
		"stop when a metric is decided worse",
		"| Block latency p50 (ms) | worse | 3 |",
	} {
		if !strings.Contains(md, w) {
			t.Errorf("report lacks %q:\n%s", w, md)
		}
	}
	if strings.Index(md, "| Block latency p50") > strings.Index(md, "| Committed rate") {
		t.Error("the changed metrics are not listed first")
	}
}

// TestABNoiseMarkdown checks the A/A section: the false alarms before and
// after, and a metric's noise row.
func TestABNoiseMarkdown(t *testing.T) {
	n := compare.Noise{Pairs: 10, Alpha: 0.05, Metrics: map[string]compare.NoiseMetric{
		"block_latency_p99_ms": {Pairs: 10, RelPairs: 10, Mean: 1500, CVPct: 6.2, DiffRMSPct: 8.5, FloorPct: 18.9, MDEPct: 7.7},
		"missing_txs":          {Pairs: 10, RelPairs: 0, Mean: 0, DiffRMS: 0},
	}, FalseAlarms: &compare.FalseAlarms{Pairs: 10, Before: 4, After: 1, Judged: 50,
		PerMetricBefore: map[string]int{"block_latency_p99_ms": 3, "committed_tps": 1}, PerMetricAfter: map[string]int{"block_latency_p99_ms": 1}}}
	md := ABNoiseMarkdown(n)
	for _, w := range []string{
		"(10 pairs)",
		"a false alarm in **4 of 10 pairs (40 %)**; 0.8 % of the 50 metric judgements",
		"**1 of 10 pairs (10 %)**; 0.2 % of the metric judgements",
		"| Block latency p99 (ms) | 3 | 1 |",
		"| Block latency p99 (ms) | 1500.0 | 6.2 % | 8.5 % | 18.9 % | 18.9 % | 7.7 % |",
		"| Missing | 0 | 0.0 % | — | — | — | — |",
	} {
		if !strings.Contains(md, w) {
			t.Errorf("A/A section lacks %q:\n%s", w, md)
		}
	}
}
