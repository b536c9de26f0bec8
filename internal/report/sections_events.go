package report

import (
	"fmt"
	"strconv"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
)

// The section of report.md about events.csv: the timeline of node events,
// the recovery of each perturbation, and the heights plot read with them.

// maxEventRows is how many events the timeline table lists; a long
// rotation run lists its first ones and says how many are left out.
const maxEventRows = 200

// hasEvents reports whether the run recorded node events beyond the
// testnet's own start before the load.
func hasEvents(s analysis.Summary, in *analysis.Input, start, loadEnd int64) bool {
	return len(s.CatchUps) > 0 || len(analysis.Perturbations(in.Events)) > 0 || len(analysis.Instants(in.Events, start, loadEnd)) > 0
}

// events writes "Perturbations and node events"; nothing for a run
// without events (the heights plot then goes with block adoption).
func (m mdWriter) events(s analysis.Summary, in *analysis.Input, run results.Run, start, loadEnd int64) {
	if !hasEvents(s, in, start, loadEnd) {
		return
	}
	since := func(t int64) string { return strconv.FormatFloat(float64(t-start)/1e9, 'f', 1, 64) + " s" }
	m.f("## Perturbations and node events\n\n")
	m.f("What happened to the nodes during the run (events.csv, times since the load start by the clock of the host running cometlab). " +
		"Every time-series plot of this report marks each perturbation's down period (perturb-begin to perturb-end) with an orange band " +
		"and each process that exited on its own, started or was wiped with a vertical line.\n\n")
	exits := analysis.UnplannedExits(in.Events, loadEnd)
	for _, e := range exits {
		m.f("- **%s exited at %s, %s**, outside every perturbation: it died on its own.\n", e.Node, since(e.At), orUnknown(e.Detail))
	}
	if len(exits) > 0 {
		m.f("\n")
	}
	m.plot("heights.png", "")

	if len(s.Perturbations) > 0 {
		m.f("### Recovery\n\n")
		m.f("One row per perturbation; the figures are defined in the data dictionary (per perturbation).\n\n")
		ids := []string{"liveness_gap_s", "catch_up_s", "sync_blocks_per_s", "sync_tps", "multi_round_during", "multi_round_after", "sent_while_down_txs", "lost_while_down_txs"}
		m.perturbationTable(s, ids, true)
		m.f("Load latency (mean block latency of the transactions sent in the window) and committed tx/s before, during and after each perturbation; "+
			"in brackets, the %.0f %% confidence interval of the difference from the window before (a cluster bootstrap of the mean, %d resamples, as `compare` computes it):\n\n", analysis.Confidence*100, analysis.Resamples)
		m.perturbationTable(s, []string{"latency_before_ms", "latency_during_ms", "latency_after_ms", "tps_before", "tps_during", "tps_after"}, false)
		m.partition(s)
		m.upgrade(s)
		for _, p := range s.Perturbations {
			if p.Node != run.Target {
				continue
			}
			if n := p.Figures["sent_while_down_txs"]; n > 0 {
				m.f("%s transactions were sent to the load's target %s while it was down (%s); %s of them were not committed and are counted among the rejected and missing transactions above.\n\n",
					groupDigits(n), p.Node, p.Detail, groupDigits(p.Figures["lost_while_down_txs"]))
			}
		}
	}

	if len(s.CatchUps) > 0 {
		m.f("### Rotating nodes\n\n")
		m.f("%s times an ephemeral node started, block-synced and reported being caught up: catch-up time mean %s, p50 %s, p99 %s, max %s; %s on average while syncing; "+
			"the catch-up time grew by %s of the chain at the node's start (least-squares slope).\n\n",
			bareValue(s, "rotation_catch_ups"), metricValue(s, "rotation_catch_up_mean_s"), metricValue(s, "rotation_catch_up_p50_s"), metricValue(s, "rotation_catch_up_p99_s"),
			metricValue(s, "rotation_catch_up_max_s"), metricValue(s, "rotation_sync_blocks_per_s_mean"), metricValue(s, "rotation_catch_up_slope_ms_per_height"))
		var rows [][]string
		for _, c := range s.CatchUps {
			rows = append(rows, []string{c.Node, fmt.Sprintf("%.1f s", c.StartS), groupDigits(float64(c.StartHeight)),
				fmt.Sprintf("%.2f s", c.CatchUpS), groupDigits(float64(c.Height)), fmt.Sprintf("%.1f blocks/s", c.BlocksPerS)})
		}
		m.table([]string{"node", "started", "height at start", "catch-up", "height reached", "sync rate"}, "lrrrrr", rows)
	}

	m.f("### Timeline\n\n")
	var rows [][]string
	for i, e := range in.Events {
		if i == maxEventRows {
			m.f("*The first %d of %d events; the rest are in events.csv.*\n\n", maxEventRows, len(in.Events))
			break
		}
		rows = append(rows, []string{since(e.At), e.Node, e.Kind, e.Detail})
	}
	m.table([]string{"time", "node", "event", "detail"}, "rlll", rows)
}

// perturbationTable writes one row per perturbation of the figures ids,
// "—" where one was not computed; when when is set, with its begin and
// end.
func (m mdWriter) perturbationTable(s analysis.Summary, ids []string, when bool) {
	head := []string{"perturbation"}
	align := "l"
	if when {
		head, align = append(head, "begin", "end"), "lrr"
	}
	for _, id := range ids {
		head, align = append(head, metricFor(id).Title), align+"r"
	}
	var rows [][]string
	for _, p := range s.Perturbations {
		row := []string{analysis.Perturbation{Node: p.Node, Action: p.Action, Detail: p.Detail}.Label()}
		if when {
			end := "not ended"
			if p.EndS != nil {
				end = fmt.Sprintf("%.1f s", *p.EndS)
			}
			row = append(row, fmt.Sprintf("%.1f s", p.BeginS), end)
		}
		for _, id := range ids {
			v, ok := p.Figures[id]
			if !ok {
				row = append(row, "—")
				continue
			}
			c := formatWithUnit(metricFor(id), v)
			if iv, ok := p.Intervals[id]; ok {
				c += " [" + signed(metricFor(id), iv.Lo) + ", " + signed(metricFor(id), iv.Hi) + "]"
			}
			row = append(row, c)
		}
		rows = append(rows, row)
	}
	m.table(head, align, rows)
}

func orUnknown(s string) string {
	if s == "" {
		return "status unknown"
	}
	return s
}
