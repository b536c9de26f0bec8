package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/compare"
)

// headlineIDs are the metrics a verdict sentence names first, in this
// order, when they are among its changes: the issues no noise excuses
// (panics, consensus failures, crashes), block latency, the committed
// rate, rounds; the rest follow by the size of their change.
var headlineIDs = []string{
	"log_panics", "log_consensus_failures", "node_exits",
	"block_latency_mean_ms", "block_latency_p50_ms", "block_latency_p99_ms",
	"committed_tps", "throughput_ratio",
	"blocks_multi_round", "rounds_max",
}

// headlineRank returns id's place in headlineIDs, or len(headlineIDs)
// for any other metric.
func headlineRank(id string) int {
	if i := slices.Index(headlineIDs, id); i >= 0 {
		return i
	}
	return len(headlineIDs)
}

// verdictSentence says in one sentence what candidate ci's verdict is
// and which metrics decided it (the headline metrics first, see
// headlineIDs, then the largest changes; at most three named).
func verdictSentence(c compare.Result, ci int) string {
	s := c.Candidates[ci]
	type change struct {
		rank  int // headlineRank
		title string
		text  string
		size  float64
	}
	by := map[compare.Verdict][]change{}
	for _, r := range c.Metrics {
		cell := r.Candidates[ci]
		if cell.Verdict != compare.Worse && cell.Verdict != compare.Better && cell.Verdict != compare.NoiseUnknown {
			continue
		}
		m := metricFor(r.ID)
		size, text := 0.0, ""
		if cell.Delta != nil {
			size = math.Abs(*cell.Delta)
			text = signed(m, *cell.Delta)
		}
		if cell.DeltaPct != nil {
			size = math.Abs(*cell.DeltaPct)
			text = pctText(cell)
		}
		by[cell.Verdict] = append(by[cell.Verdict], change{rank: headlineRank(r.ID), title: m.Title, text: text, size: size})
	}
	list := func(cs []change) string {
		slices.SortStableFunc(cs, func(a, b change) int {
			return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(b.size, a.size))
		})
		var parts []string
		for _, ch := range cs {
			parts = append(parts, fmt.Sprintf("%s (%s)", ch.title, ch.text))
		}
		return analysis.JoinFew(parts, 3, "and %d more")
	}
	worse, better, unknown := by[compare.Worse], by[compare.Better], by[compare.NoiseUnknown]
	who := fmt.Sprintf("**%s** against %s", s.Label, c.Baseline.Label)
	switch s.Verdict {
	case compare.Worse:
		out := fmt.Sprintf("%s: **worse** in %d %s: %s", who, len(worse), plural(len(worse), "metric", "metrics"), list(worse))
		if len(better) > 0 {
			out += fmt.Sprintf("; better in %d: %s", len(better), list(better))
		}
		return out + "."
	case compare.Better:
		return fmt.Sprintf("%s: **better** in %d %s: %s; worse in none.", who, len(better), plural(len(better), "metric", "metrics"), list(better))
	case compare.NoiseUnknown:
		return fmt.Sprintf("%s: **no verdict, noise unknown**: %d %s changed beyond the threshold and significantly within single runs (%s), "+
			"but one run cannot tell such a change from a busier host. Measure the noise with `cometlab ab --aa` and pass `--noise`, "+
			"or repeat the runs.", who, len(unknown), plural(len(unknown), "metric", "metrics"), list(unknown))
	}
	return fmt.Sprintf("%s: **no significant change**: no judged metric changed beyond its threshold and significantly.", who)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// falseAlarmText counts what an A/A comparison flagged: "no metric
// changed" or "N metrics changed (false alarms)".
func falseAlarmText(c compare.Result) string {
	n := 0
	for _, s := range c.Candidates {
		n += s.Better + s.Worse
	}
	switch n {
	case 0:
		return "no metric changed"
	case 1:
		return "1 metric changed (a false alarm)"
	}
	return fmt.Sprintf("%d metrics changed (false alarms)", n)
}
