package report

import (
	"strconv"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
)

// clients writes "Clients" for a run of several load clients: each one's
// offered rate and the fate of its transactions (committed, refused by the
// sentinel, rejected by the node, missing) with its latency, so that fair
// service (or its absence) is read off one table; and, for a run through
// the sentinel, what stood in front of the node. Nothing for a run of one
// client directly to the node.
func (m mdWriter) clients(s analysis.Summary, run results.Run) {
	if len(s.Clients) == 0 && run.Sentinel == nil {
		return
	}
	m.f("## Clients\n\n")
	if sn := run.Sentinel; sn != nil {
		m.f("The load went through cometlab's sentinel at `%s`, in front of the target's RPC `%s` (%s). "+
			"A transaction it refused got an explicit error naming the limit (HTTP 429 and JSON-RPC −32001…−32005): "+
			"those are counted as *refused*, never as missing.\n\n", sn.Addr, sn.Upstream, sn.Settings)
	}
	if len(s.Clients) == 0 {
		return
	}
	var rows [][]string
	for i, c := range s.Clients {
		conns := "—"
		if i < len(run.Load.Clients) {
			conns = strconv.Itoa(run.Load.Clients[i].Connections)
		}
		share := "—"
		if c.Sent > 0 {
			share = strconv.FormatFloat(100*c.CommittedShare(), 'f', 1, 64) + " %"
		}
		rows = append(rows, []string{c.Name, conns, groupDigits(c.OfferedTPS), groupDigits(float64(c.Sent)),
			groupDigits(float64(c.Committed)), share, groupDigits(float64(c.Refused)), groupDigits(float64(c.Rejected)),
			groupDigits(float64(c.Missing)), fmtRate(c.CommittedTPS), msOrDash(c.BlockP50), msOrDash(c.BlockP99), msOrDash(c.ObservedP50), msOrDash(c.ObservedP99)})
	}
	m.table([]string{"client", "conns", "offered tx/s", "sent", "committed", "committed share", "refused", "rejected", "missing",
		"committed tx/s", "block p50 ms", "block p99 ms", "observed p50 ms", "observed p99 ms"}, "lrrrrrrrrrrrrr", rows)
	m.f("*Committed share* is committed ÷ sent; *refused* are the sentinel's explicit refusals, *rejected* the node's error replies, " +
		"*missing* neither (dropped without a word). Committed tx/s is over the load's duration.\n\n")
	m.plot("clients_tps.png", "")
	var reasons [][]string
	for _, c := range s.Clients {
		for _, r := range analysis.SortedReasons(c.Reasons) {
			reasons = append(reasons, []string{c.Name, r.Msg, groupDigits(float64(r.N))})
		}
	}
	if len(reasons) > 0 {
		m.f("Refusals and rejections by client and reason:\n\n")
		m.table([]string{"client", "reason", "transactions"}, "llr", reasons)
	}
}

// msOrDash formats a latency in ms without decimals, "—" when absent.
func msOrDash(p *float64) string {
	if p == nil {
		return "—"
	}
	return strconv.FormatFloat(*p, 'f', 0, 64)
}

// fmtRate formats a rate in tx/s with one decimal below 100.
func fmtRate(v float64) string {
	if v < 100 {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return groupDigits(v)
}

// reasonRows returns the rows of a "reason | transactions" table.
func reasonRows(m map[string]int64) [][]string {
	var rows [][]string
	for _, r := range analysis.SortedReasons(m) {
		rows = append(rows, []string{r.Msg, groupDigits(float64(r.N))})
	}
	return rows
}
