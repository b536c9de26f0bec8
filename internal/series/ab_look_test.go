package series

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
		t.Errorf("--judge committed_tps paired %+v", only)
	}
	d, err := sequential.Step(sequential.Config{MaxPairs: 2}, ms)
	if err != nil {
		t.Fatal(err)
	}
	if line := decisionLine(d); !strings.Contains(line, "block_latency_p50_ms worse (at 2 pairs)") {
		t.Errorf("decision line %q", line)
	}
}

// TestSequentialVerdict: worse when a metric is decided worse, else no
// change when none is decided worse or better.
func TestSequentialVerdict(t *testing.T) {
	decs := []sequential.Decision{{Metrics: []sequential.Result{
		{ID: "block_latency_p50_ms", Outcome: sequential.Worse, Pairs: 4, DecidedAt: 3, MeanDiff: 1007, Threshold: 100, P: 4e-5, Level: 3e-4},
		{ID: "committed_tps", Outcome: sequential.Equivalent, Pairs: 4, DecidedAt: 4, MeanDiff: -0.5, Threshold: 20},
		{ID: "adoption_p100_ms", Outcome: sequential.Undecided, Pairs: 4},
	}}}
	if v := SequentialVerdict(decs); v != compare.Worse {
		t.Errorf("verdict %v, want worse", v)
	}
	none := []sequential.Decision{{Metrics: []sequential.Result{{ID: "committed_tps", Outcome: sequential.Equivalent}}}}
	if v := SequentialVerdict(none); v != compare.NoChange {
		t.Errorf("verdict %v, want no change", v)
	}
}
