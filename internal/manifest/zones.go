package manifest

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cometlab/cometlab/internal/links"
)

// MatrixAWS names the built-in latency matrix in [zones] matrix: CometBFT's
// one-way delays between 13 AWS regions (links.AWS).
const MatrixAWS = "aws"

// ManifestZones is the [zones] table: the latency matrix between the
// zones the nodes name (each [node.NAME] has zone = "…"). Zones put every
// p2p link through a relay (links = "relay") that delays the bytes a node
// sends to a node of another zone by the matrix's one-way value for that
// ordered pair; nodes of one zone talk without delay.
type ManifestZones struct {
	// Matrix is "aws" (CometBFT's AWS matrix, zones N_Virginia, Canada,
	// N_California, London, Oregon, Ireland, Frankfurt, S_Paulo, Tokyo,
	// Mumbai, Sydney, Seoul, Singapore) or the path of a CSV in the same
	// form, relative to the manifest's directory: a header
	// "From/to,ZONE,…", then one row per zone in the header's order with
	// the one-way delays in ms from the row's zone to each column's.
	// Required.
	//
	//	matrix = "aws"
	Matrix string `toml:"matrix"`

	// Jitter is the standard deviation of each delay as a fraction of it
	// (normal, cut at 0; the bytes of a link keep their order). CometBFT's
	// e2e runner uses 0.05 (value/20). Between 0 and 1. Default 0.
	//
	//	jitter = 0.05
	Jitter float64 `toml:"jitter,omitempty"`

	// BandwidthMbps is the capacity of every link between nodes of
	// different zones, in Mbit/s (10^6 bits) each way: each relayed
	// connection's bytes in each direction are paced to it (a token
	// bucket of 32 KiB), after the delay. Nodes of one zone are not
	// limited. It is the default of the pairs of zones that Bandwidth
	// gives no value of their own. Default 0: no limit.
	//
	//	bandwidth_mbps = 100
	BandwidthMbps float64 `toml:"bandwidth_mbps,omitempty"`

	// Bandwidth, the table [zones.bandwidth], gives pairs of zones their
	// own capacity in Mbit/s, keyed "FROM,TO" (two different zones of the
	// matrix): the bytes FROM's nodes send to TO's nodes and, unless
	// "TO,FROM" has a value of its own, those TO's nodes send back. 0
	// means no limit for the pair, whatever bandwidth_mbps says; pairs
	// without a value get bandwidth_mbps. Default: none.
	//
	//	[zones.bandwidth]
	//	"Tokyo,Sydney" = 20  # both ways, unless "Sydney,Tokyo" is given
	//	"Sydney,Tokyo" = 50
	Bandwidth map[string]float64 `toml:"bandwidth,omitempty"`
}

// Zones is the resolved [zones] table.
type Zones struct {
	// Source is "aws" or the absolute path of the user's CSV.
	Source string
	// Jitter is each delay's standard deviation as a fraction of it.
	Jitter float64
	// BandwidthMbps is each inter-zone link's capacity each way, Mbit/s,
	// where BandwidthPairs has no value for the pair; 0 means no limit.
	BandwidthMbps float64
	// BandwidthPairs are the capacities [zones.bandwidth] gives, Mbit/s, by
	// ordered pair of zones (from, to), each key's reverse pair filled in
	// unless it has its own; 0 means no limit. Nil without the table.
	BandwidthPairs map[[2]string]float64
	// Matrix holds the one-way delays between the matrix's zones.
	Matrix links.Matrix
}

// resolveZones reads [zones] and checks each node's zone, which it sets
// on nodes. Ephemeral [rotate] nodes have no zone (no delay).
func (m *Manifest) resolveZones(ps *problems, nodes []Node) *Zones {
	named := false
	for _, name := range slices.Sorted(maps.Keys(m.Nodes)) {
		if m.Nodes[name].Zone != "" {
			named = true
			if m.Zones == nil {
				ps.add(f("node", name, "zone"), "a zone needs a [zones] table with a matrix")
			}
		}
	}
	if m.Zones == nil {
		return nil
	}
	mz := *m.Zones
	z := &Zones{Source: mz.Matrix, Jitter: mz.Jitter, BandwidthMbps: mz.BandwidthMbps}
	if !(mz.BandwidthMbps >= 0) || math.IsInf(mz.BandwidthMbps, 0) {
		ps.add(f("zones", "bandwidth_mbps"), "must be a number of Mbit/s ≥ 0 (0: no limit), got %v", mz.BandwidthMbps)
	}
	if !(mz.Jitter >= 0 && mz.Jitter <= 1) || math.IsNaN(mz.Jitter) {
		ps.add(f("zones", "jitter"), "must be between 0 and 1 (a fraction of the delay), got %v", mz.Jitter)
	}
	switch mz.Matrix {
	case "":
		ps.add(f("zones"), "needs matrix = %q or the path of a CSV matrix", MatrixAWS)
		return z
	case MatrixAWS:
		z.Matrix = links.AWS()
	default:
		path := m.relative(mz.Matrix, "zones.matrix")
		var err error
		if z.Matrix, err = readMatrix(path); err != nil {
			ps.add(f("zones", "matrix"), "%v", err)
			return z
		}
		z.Source = path
		if abs, err := filepath.Abs(path); err == nil {
			z.Source = abs
		}
	}
	z.BandwidthPairs = resolveBandwidth(ps, mz.Bandwidth, z.Matrix.Zones)
	if !named {
		ps.add(f("zones"), "no node names a zone: give each [node.NAME] a zone = \"…\" of the matrix")
		return z
	}
	for i, n := range nodes {
		if n.Ephemeral {
			continue
		}
		zone := m.Nodes[n.Name].Zone
		switch {
		case zone == "":
			ps.add(f("node", n.Name), "has no zone: with [zones] every node needs zone = \"…\"")
		case !slices.Contains(z.Matrix.Zones, zone):
			ps.add(f("node", n.Name, "zone"), "unknown zone %q (the matrix has %s)", zone, strings.Join(z.Matrix.Zones, ", "))
		default:
			nodes[i].Zone = zone
		}
	}
	return z
}

// resolveBandwidth checks [zones.bandwidth] against the matrix's zones
// and returns its capacities by ordered pair of zones, each key's reverse
// pair filled in unless it has a value of its own; nil without the table.
func resolveBandwidth(ps *problems, table map[string]float64, zones []string) map[[2]string]float64 {
	if len(table) == 0 {
		return nil
	}
	own := map[[2]string]float64{}
	seen := map[[2]string]string{}
	for _, key := range slices.Sorted(maps.Keys(table)) {
		field, v := f("zones", "bandwidth", key), table[key]
		from, to, ok := strings.Cut(key, ",")
		from, to = strings.TrimSpace(from), strings.TrimSpace(to)
		switch {
		case !ok || from == "" || to == "" || strings.Contains(to, ","):
			ps.add(field, "want a key \"FROM,TO\" naming two zones of the matrix")
			continue
		case !slices.Contains(zones, from) || !slices.Contains(zones, to):
			unknown := from
			if slices.Contains(zones, from) {
				unknown = to
			}
			ps.add(field, "unknown zone %q (the matrix has %s)", unknown, strings.Join(zones, ", "))
			continue
		case from == to:
			ps.add(field, "nodes of one zone are not limited: name two different zones")
			continue
		case !(v >= 0) || math.IsInf(v, 0):
			ps.add(field, "must be a number of Mbit/s ≥ 0 (0: no limit), got %v", v)
			continue
		}
		pair := [2]string{from, to}
		if other, dup := seen[pair]; dup {
			ps.add(field, "the pair %s → %s is given twice (also as %q)", from, to, other)
			continue
		}
		seen[pair], own[pair] = key, v
	}
	pairs := maps.Clone(own)
	for p, v := range own {
		if _, ok := own[[2]string{p[1], p[0]}]; !ok {
			pairs[[2]string{p[1], p[0]}] = v
		}
	}
	return pairs
}

// Bandwidth is the capacity between z's zones, for links.Bandwidth.Between.
func (z Zones) Bandwidth() links.Bandwidth {
	return links.Bandwidth{Mbps: z.BandwidthMbps, Pairs: z.BandwidthPairs}
}

// readMatrix reads the CSV latency matrix at path (see links.ParseMatrix);
// errors name the file by its base name and line.
func readMatrix(path string) (links.Matrix, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return links.Matrix{}, err
	}
	return links.ParseMatrix(filepath.Base(path), bytes.NewReader(data))
}

// encodeZones is the [zones] table Encode writes; nil without zones.
func encodeZones(z *Zones) *ManifestZones {
	if z == nil {
		return nil
	}
	mz := &ManifestZones{Matrix: z.Source, Jitter: z.Jitter, BandwidthMbps: z.BandwidthMbps}
	for p, v := range z.BandwidthPairs {
		if mz.Bandwidth == nil {
			mz.Bandwidth = map[string]float64{}
		}
		mz.Bandwidth[p[0]+","+p[1]] = v
	}
	return mz
}

// String describes z for a log line: "aws" or the CSV's path, and the
// jitter when there is one.
func (z Zones) String() string {
	s := z.Source
	if z.Jitter > 0 {
		s += fmt.Sprintf(", jitter %g", z.Jitter)
	}
	if z.BandwidthMbps > 0 {
		s += fmt.Sprintf(", %g Mbit/s between zones", z.BandwidthMbps)
	}
	if len(z.BandwidthPairs) > 0 {
		s += fmt.Sprintf(", %d pairs of zones with a bandwidth of their own", len(z.BandwidthPairs))
	}
	return s
}
