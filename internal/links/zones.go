package links

import (
	"bufio"
	"bytes"
	_ "embed"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// awsLatencies is CometBFT's matrix of latencies between 13 AWS regions,
// copied unchanged from the cometbft module v1.0.1,
// test/e2e/pkg/files/aws-latencies.csv (v0.38 has none). CometBFT's e2e
// runner (test/e2e/runner/latency_emulation.go) applies each value as a
// one-way delay to a node's outgoing traffic towards the other zone, with
// normal jitter of value/20, so the round trip between two zones is twice
// the value.
//
//go:embed aws-latencies.csv
var awsLatencies []byte

// Matrix is the one-way delay between zones, 0 within a zone. Rows are
// "from", columns "to", as the file's From/to header says. The AWS matrix
// is not quite symmetric (N_California → Canada 39 ms, Canada →
// N_California 38 ms, and a few more 1 ms differences); CometBFT's runner
// comments that it is, and reads the column of the sending node's zone in
// the row of the receiving one, the opposite of the header: for a
// symmetric matrix the two readings agree, here they differ by at most
// 1 ms.
type Matrix struct {
	Zones []string                    // in file order
	delay map[[2]string]time.Duration // by ordered pair of zones
}

// Delay returns the one-way delay from zone a to zone b, and false when
// either is not a zone of the matrix.
func (m Matrix) Delay(a, b string) (time.Duration, bool) {
	if !slices.Contains(m.Zones, a) || !slices.Contains(m.Zones, b) {
		return 0, false
	}
	return m.delay[[2]string{a, b}], true
}

// AWS returns CometBFT's AWS matrix (see awsLatencies).
func AWS() Matrix {
	m, err := ParseMatrix("aws-latencies.csv", bytes.NewReader(awsLatencies))
	if err != nil {
		panic(err) // the embedded file is tested
	}
	return m
}

// ParseMatrix reads a latency matrix in CometBFT's CSV form: a header
// "From/to,ZONE1,ZONE2,…", then one row per zone in the same order,
// "ZONE,MS,MS,…", each value the one-way delay in milliseconds from the
// row's zone to the column's (an integer or a decimal, ≥ 0), 0 on the
// diagonal. Errors name the file and line.
func ParseMatrix(name string, r io.Reader) (Matrix, error) {
	sc := bufio.NewScanner(r)
	line := 0
	bad := func(format string, a ...any) (Matrix, error) {
		return Matrix{}, fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, a...))
	}
	var m Matrix
	var rows [][]time.Duration
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		f := strings.Split(text, ",")
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		if m.Zones == nil {
			if len(f) < 2 {
				return bad("want a header From/to,ZONE,…")
			}
			for _, z := range f[1:] {
				if z == "" {
					return bad("empty zone name in the header")
				}
				if slices.Contains(m.Zones, z) {
					return bad("zone %q named twice in the header", z)
				}
				m.Zones = append(m.Zones, z)
			}
			continue
		}
		k := len(rows)
		if k >= len(m.Zones) {
			return bad("more rows than the header's %d zones", len(m.Zones))
		}
		if len(f) != len(m.Zones)+1 {
			return bad("want %d fields (the zone and %d delays), got %d", len(m.Zones)+1, len(m.Zones), len(f))
		}
		if f[0] != m.Zones[k] {
			return bad("row %d is %q, want %q (rows in the header's order)", k+1, f[0], m.Zones[k])
		}
		row := make([]time.Duration, len(m.Zones))
		for j, v := range f[1:] {
			ms, err := strconv.ParseFloat(v, 64)
			if err != nil || ms < 0 || ms > 60_000 || ms != ms {
				return bad("%s → %s: %q is not a delay in ms between 0 and 60000", m.Zones[k], m.Zones[j], v)
			}
			row[j] = time.Duration(ms * float64(time.Millisecond))
		}
		if row[k] != 0 {
			return bad("%s → %s: a zone's delay to itself must be 0", m.Zones[k], m.Zones[k])
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		return Matrix{}, fmt.Errorf("%s: %w", name, err)
	}
	if m.Zones == nil {
		return bad("no header")
	}
	if len(rows) != len(m.Zones) {
		return bad("%d rows for %d zones", len(rows), len(m.Zones))
	}
	m.delay = map[[2]string]time.Duration{}
	for i, a := range m.Zones {
		for j, b := range m.Zones {
			m.delay[[2]string{a, b}] = rows[i][j]
		}
	}
	return m, nil
}

// Bandwidth is the capacity of the links between zones, in Mbit/s (10^6
// bits) each way: Mbps for every pair of different zones, unless Pairs
// gives the pair its own. 0 means no limit, in either.
type Bandwidth struct {
	Mbps  float64
	Pairs map[[2]string]float64 // by ordered pair (from, to)
}

// Between returns the capacity of the bytes sent from zone from to zone
// to, Mbit/s: 0 (no limit) within one zone, the pair's own value when
// Pairs has one, Mbps otherwise.
func (b Bandwidth) Between(from, to string) float64 {
	if from == to {
		return 0
	}
	if v, ok := b.Pairs[[2]string{from, to}]; ok {
		return v
	}
	return b.Mbps
}
