package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
)

// zones writes "Zones" for a run whose testnet had [zones]: each zone's
// nodes, the matrix rows used, the round trips the relays measured
// against the matrix's, how fast blocks reached each zone, and the load
// target's zone. Nothing without zones.
func (m mdWriter) zones(s analysis.Summary, in *analysis.Input, run results.Run) {
	z := run.Zones
	if z == nil {
		return
	}
	m.f("## Zones\n\n")
	src := "the matrix `" + z.Matrix + "`"
	if z.Matrix == "aws" {
		src = "CometBFT's AWS matrix, `aws`: test/e2e/pkg/files/aws-latencies.csv of cometbft v1.0.1"
	}
	if z.OnHosts {
		m.f("The nodes ran on hosts (`cometlab deploy`): the zones label them, and the delays between zones were the hosts' own network's, "+
			"not emulated. The matrix below (%s) gives the one-way delays the zones were declared to have, for reference; "+
			"adoption per zone shows what the network did.\n\n", src)
	} else {
		m.f("Every p2p link went through a relay that delayed the bytes a node sent to a node of another zone by the one-way delay from its zone to the other's (%s)", src)
	}
	if z.Jitter > 0 {
		m.f(", with normal jitter of σ = %g × the delay", z.Jitter)
	}
	switch {
	case len(z.LinkMbps) > 0:
		m.f(", and paced the bytes each way of the links between zones to the bandwidths in the table below the delays")
	case z.BandwidthMbps > 0:
		m.f(", and paced the bytes each way of every link between zones to %g Mbit/s", z.BandwidthMbps)
	}
	if !z.OnHosts {
		m.f("; nodes of one zone talk without delay.\n\n")
	}

	var rows [][]string
	for _, zone := range z.Zones {
		var nodes []string
		for _, n := range run.Nodes {
			if n.Zone == zone {
				nodes = append(nodes, n.Name)
			}
		}
		rows = append(rows, []string{zone, strings.Join(nodes, ", ")})
	}
	m.table([]string{"zone", "nodes"}, "ll", rows)

	m.f("One-way delay from the row's zone to the column's, ms:\n\n")
	head := append([]string{"from \\ to"}, z.Zones...)
	m.table(head, "l"+strings.Repeat("r", len(z.Zones)), zoneMatrixRows(z.Zones, z.DelayMs, func(v float64) string { return fmt.Sprintf("%g", v) }))
	if len(z.LinkMbps) > 0 {
		m.f("Bandwidth from the row's zone to the column's, Mbit/s (– : no limit):\n\n")
		m.table(head, "l"+strings.Repeat("r", len(z.Zones)), zoneMatrixRows(z.Zones, z.LinkMbps, func(v float64) string {
			if v <= 0 {
				return "–"
			}
			return fmt.Sprintf("%g", v)
		}))
	}

	if pairs := analysis.ZoneRoundTrips(run); len(pairs) > 0 {
		m.f("Round trips the relays measured (the opening exchange of each p2p connection, CometBFT's SecretConnection handshake: one-way delay each way plus the nodes' signing), against the matrix's:\n\n")
		rows = nil
		for _, p := range pairs {
			rows = append(rows, []string{p.From + " → " + p.To, fmt.Sprintf("%g ms", p.MatrixMs), fmt.Sprintf("%.1f ms", p.MinMs),
				fmt.Sprintf("%.1f ms", p.MedianMs), fmt.Sprintf("%+.1f %%", pct(p.MinMs, p.MatrixMs)), fmt.Sprint(p.N)})
		}
		m.table([]string{"dialled", "matrix", "measured min", "median", "min vs matrix", "connections"}, "lrrrrr", rows)
	}

	m.f("How long blocks took to reach each zone: from a block's first commit on any node until the zone's first node committed it, and until all its nodes had:\n\n")
	rows = nil
	for _, za := range analysis.AnalyzeZoneAdoption(in.Adoption, run, run.FirstHeight, run.LastHeight) {
		rows = append(rows, []string{za.Zone, fmt.Sprint(za.Reach.N), msQ(za.Reach, 50), msQ(za.Reach, 90), msQ(za.Reach, 100),
			msQ(za.All, 50), msQ(za.All, 100)})
	}
	m.table([]string{"zone", "blocks", "first node p50", "p90", "max", "all nodes p50", "max"}, "lrrrrrr", rows)

	m.plot("zone_adoption_cdf.png", "")
	m.zoneLatency(s, in, run)
}

// zoneLatency writes the load target's zone and the latency of the load
// seen from each zone.
func (m mdWriter) zoneLatency(s analysis.Summary, in *analysis.Input, run results.Run) {
	for _, n := range run.Nodes {
		if n.Name == run.Target && n.Zone != "" {
			m.f("The load went to %s in zone %s: block latency p50 %s, p99 %s; observed latency (at %s) p50 %s.\n\n", n.Name, n.Zone,
				metricValue(s, "block_latency_p50_ms"), metricValue(s, "block_latency_p99_ms"), n.Name, metricValue(s, "observed_latency_p50_ms"))
		}
	}
	zl := in.Aggregates().ZoneLatencies()
	var rows [][]string
	for _, z := range zl {
		if z.Latency.N == 0 {
			continue
		}
		where := ""
		if z.Target {
			where = "load target's zone"
		}
		rows = append(rows, []string{z.Zone, groupDigits(float64(z.Latency.N)), msQ(z.Latency, 50), msQ(z.Latency, 90), msQ(z.Latency, 99),
			msQ(z.Latency, 100), where})
	}
	if len(rows) == 0 {
		return
	}
	m.f("Latency of the load seen from each zone: from a transaction's send until the zone's first node committed its block " +
		"(adoption.csv; the sender's and the nodes' commits are timed by the same clock), what a client in that zone watching its nearest node sees:\n\n")
	m.table([]string{"zone", "transactions", "p50", "p90", "p99", "max", "note"}, "lrrrrrl", rows)
}

// msQ formats the p-th percentile of a distribution in ns as ms; "—" when
// it is empty.
func msQ(d analysis.Distribution, p float64) string {
	if d.N == 0 {
		return "—"
	}
	return fmt.Sprintf("%.1f ms", d.Percentile(p)/1e6)
}

// pct is how far a is from b, in % of b.
func pct(a, b float64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return (a - b) / b * 100
}

// zoneMatrixRows are the rows of a matrix between zones: each zone, then
// its row's values as cell formats them.
func zoneMatrixRows(zones []string, values [][]float64, cell func(float64) string) [][]string {
	var rows [][]string
	for i, zone := range zones {
		row := []string{zone}
		for j := range zones {
			row = append(row, cell(values[i][j]))
		}
		rows = append(rows, row)
	}
	return rows
}
