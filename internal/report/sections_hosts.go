package report

import (
	"fmt"
	"strconv"

	"github.com/cometlab/cometlab/internal/results"
)

// hosts writes "Load hosts and clocks" for a run whose load was sent from
// load hosts: each host's share and counts, every host's clock offset
// from the control host's, and how the offsets bound the latencies'
// error. Nothing for a load sent from the control host.
func (m mdWriter) hosts(run results.Run) {
	if len(run.LoadHosts) == 0 {
		return
	}
	m.f("## Load hosts and clocks\n\n")
	what := "one load host"
	if len(run.LoadHosts) > 1 {
		what = fmt.Sprintf("%d load hosts, each a share of the connections,", len(run.LoadHosts))
	}
	m.f("The load was sent from %s started by `ansible-playbook load.yml` at one start time "+
		"(each host's by its own clock, corrected by its measured offset); each host's own send log is kept "+
		"in `hosts/HOST/` and merged into `sent.csv` and `replies.csv`.\n\n", what)
	var rows [][]string
	for _, h := range run.LoadHosts {
		errText := "—"
		if h.Error != "" {
			errText = h.Error
		}
		conns := strconv.Itoa(h.FirstConn)
		if h.Connections > 1 {
			conns = fmt.Sprintf("%d … %d", h.FirstConn, h.FirstConn+h.Connections-1)
		}
		rows = append(rows, []string{h.Name, conns, groupDigits(float64(h.Sent)), groupDigits(float64(h.Unsent)), errText})
	}
	m.table([]string{"load host", "connections", "sent", "not sent", "error"}, "lrrrl", rows)
	if len(run.Clocks) == 0 {
		return
	}
	m.f("Clock offsets from the control host's, measured over ssh before the load " +
		"(of 10 round trips, the one with the smallest bound: the offset is off by at most half the round trip plus the resolution of the host's clock reading):\n\n")
	rows = nil
	for _, c := range run.Clocks {
		rows = append(rows, []string{c.Host, c.Role, fmt.Sprintf("%+.3f", float64(c.OffsetNs)/1e6), fmt.Sprintf("%.3f", float64(c.UncertaintyNs)/1e6)})
	}
	m.table([]string{"host", "runs", "offset, ms", "± ms"}, "llrr", rows)
	m.f("Block latency is block time (BFT time, from the validators' clocks) minus the send time in the payload "+
		"(the load host's clock), so a difference between those clocks enters every latency: "+
		"over every pair of a load host and a validators' host, the offsets differ by at most **%.3f ms** (uncertainties included), "+
		"which bounds that error. Observed latency takes the commit by the control host's clock instead: "+
		"its error is bounded by the load host's offset and uncertainty above.\n\n",
		float64(results.ClockBound(run.Clocks))/1e6)
}
