package main

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/compare"
	"github.com/cometlab/cometlab/internal/sequential"
)

// TestSeqMetrics pairs the runs of two sides round by round: judged
// metrics only (not neutral, not ignored), each with its direction and
// threshold, and none that a run lacks or has as NaN.
func TestSeqMetrics(t *testing.T) {
	run := func(lat, tps, sent, late float64) compare.Run {
		return compare.Run{Metrics: map[string]float64{
			"block_latency_p50_ms": lat, "committed_tps": tps, "sent_txs": sent, "late_sends": late}}
	}
	base := []compare.Run{run(1000, 100, 500, 0), run(1010, 101, 500, 1)}
	cand := []compare.Run{run(2000, 99, 500, math.NaN()), run(2020, 100, 500, 0), run(3000, 1, 1, 1)}
	pct := 5.0
	th := compare.DefaultThresholds()
	th.Metric = map[string]compare.MetricThreshold{"committed_tps": {Pct: &pct, MinDelta: 2}}
	ms := seqMetrics(base, cand, th, nil)
	var ids []string
	for _, m := range ms {
		ids = append(ids, m.ID)
		switch m.ID {
		case "block_latency_p50_ms":
			if m.Better != sequential.LowerIsBetter || m.ThresholdPct != 10 || !slices.Equal(m.Cand, []float64{2000, 2020}) {
				t.Errorf("%s: %+v", m.ID, m)
			}
		case "committed_tps":
			if m.Better != sequential.HigherIsBetter || m.ThresholdPct != 5 || m.MinDelta != 2 || len(m.Base) != 2 {
				t.Errorf("%s: %+v", m.ID, m)
			}
		}
	}
	if !slices.Equal(ids, []string{"committed_tps", "block_latency_p50_ms"}) { // dictionary order
		t.Errorf("metrics %v", ids)
	}
	for _, bad := range []string{"sent_txs", "late_sends"} {
		if slices.Contains(ids, bad) {
			t.Errorf("%s paired: neutral or NaN in a run", bad)
		}
	}
	if only := seqMetrics(base, cand, th, []string{"committed_tps"}); len(only) != 1 || only[0].ID != "committed_tps" {
		t.Errorf("--metrics committed_tps paired %+v", only)
	}
	d, err := sequential.Step(sequential.Config{MaxPairs: 2}, ms)
	if err != nil {
		t.Fatal(err)
	}
	if line := decisionLine(d); !strings.Contains(line, "block_latency_p50_ms worse (at 2 pairs)") {
		t.Errorf("decision line %q", line)
	}
}

// TestSequentialReport checks the verdict sentences and the table of an
// auto experiment's report, and the verdict they give.
func TestSequentialReport(t *testing.T) {
	decs := []sequential.Decision{{Metrics: []sequential.Result{
		{ID: "block_latency_p50_ms", Outcome: sequential.Worse, Pairs: 4, DecidedAt: 3, MeanDiff: 1007, Threshold: 100, P: 4e-5, Level: 3e-4},
		{ID: "committed_tps", Outcome: sequential.Equivalent, Pairs: 4, DecidedAt: 4, MeanDiff: -0.5, Threshold: 20},
		{ID: "adoption_p100_ms", Outcome: sequential.Undecided, Pairs: 4},
	}}}
	if v := sequentialVerdict(decs); v != compare.Worse {
		t.Errorf("verdict %v, want worse", v)
	}
	rec := abRecord{Pairs: 4, MaxPairs: 10, Sequential: decs, Verdict: compare.Worse, Method: "m", Alpha: 0.05, Stop: "worse"}
	md := sequentialMarkdown(rec, []string{"base", "cand"})
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
	none := []sequential.Decision{{Metrics: []sequential.Result{{ID: "committed_tps", Outcome: sequential.Equivalent}}}}
	if v := sequentialVerdict(none); v != compare.NoChange {
		t.Errorf("verdict %v, want no change", v)
	}
}

// TestAAMarkdown checks the A/A section: the false alarms before and
// after, and a metric's noise row.
func TestAAMarkdown(t *testing.T) {
	n := compare.Noise{Pairs: 10, Alpha: 0.05, Metrics: map[string]compare.NoiseMetric{
		"block_latency_p99_ms": {Pairs: 10, RelPairs: 10, Mean: 1500, CVPct: 6.2, DiffRMSPct: 8.5, FloorPct: 18.9, MDEPct: 7.7},
		"missing_txs":          {Pairs: 10, RelPairs: 0, Mean: 0, DiffRMS: 0},
	}, FalseAlarms: &compare.FalseAlarms{Pairs: 10, Before: 4, After: 1, Judged: 50,
		PerMetricBefore: map[string]int{"block_latency_p99_ms": 3, "committed_tps": 1}, PerMetricAfter: map[string]int{"block_latency_p99_ms": 1}}}
	md := aaMarkdown(n)
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
