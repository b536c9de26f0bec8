package report

import (
	"bytes"
	"image/png"
	"path/filepath"
	"testing"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// TestZonesSection: the Zones section of a run of 3 validators in 2 AWS
// zones (golden), and none for a run without zones.
func TestZonesSection(t *testing.T) {
	run := results.Run{
		Target: "v1", FirstHeight: 1, LastHeight: 3,
		Nodes: []results.Node{{Name: "v1", Mode: "validator", Zone: "Tokyo"}, {Name: "v2", Mode: "validator", Zone: "Tokyo"},
			{Name: "v3", Mode: "validator", Zone: "Frankfurt"}},
		Zones: &results.Zones{Matrix: "aws", Jitter: 0.05, BandwidthMbps: 100, Zones: []string{"Frankfurt", "Tokyo"},
			DelayMs:    [][]float64{{0, 111}, {111, 0}},
			RoundTrips: []results.RoundTrip{{From: "v1", To: "v3", N: 2, MinMs: 223.4, MedianMs: 224}, {From: "v3", To: "v2", N: 1, MinMs: 224.1, MedianMs: 224.1}}},
	}
	const ms = 1e6
	in := &analysis.Input{Adoption: []results.Adoption{
		{Height: 1, Node: "v1", At: 1000 * ms}, {Height: 1, Node: "v2", At: 1001 * ms}, {Height: 1, Node: "v3", At: 1112 * ms},
		{Height: 2, Node: "v1", At: 2000 * ms}, {Height: 2, Node: "v2", At: 2003 * ms}, {Height: 2, Node: "v3", At: 2115 * ms},
		{Height: 3, Node: "v3", At: 3000 * ms}, {Height: 3, Node: "v1", At: 3110 * ms},
	}, Txs: []results.Tx{
		{Conn: 0, Seq: 0, Sent: 500 * ms, Height: 1, CommitTime: 1900 * ms},
		{Conn: 0, Seq: 1, Sent: 1500 * ms, Height: 2, CommitTime: 2900 * ms},
		{Conn: 0, Seq: 2, Sent: 1600 * ms, Height: 2, CommitTime: 2900 * ms},
		{Conn: 0, Seq: 3, Sent: 2500 * ms, Height: 3, CommitTime: 3900 * ms},
	}}
	s := analysis.Summary{Metrics: map[string]float64{"block_latency_p50_ms": 1450, "block_latency_p99_ms": 2300, "observed_latency_p50_ms": 1600}}
	in.Run = run
	var b bytes.Buffer
	mdWriter{w: &b}.zones(s, in, run)
	resultstest.Golden(t, filepath.Join("testdata", "zones.md.golden"), b.Bytes())

	b.Reset()
	for _, c := range zoneAdoptionCurves(analysis.AnalyzeZoneAdoption(in.Adoption, run, run.FirstHeight, run.LastHeight)) {
		b.WriteString(c.String())
	}
	resultstest.Golden(t, filepath.Join("testdata", "zone_adoption_curves.golden"), b.Bytes())

	png, err := newPlotData(run, in, s, Options{}).zoneAdoptionCDF()
	if err != nil {
		t.Fatal(err)
	}
	checkPNG(t, png)

	// Pairs of zones with bandwidths of their own: a table of them.
	b.Reset()
	withPairs := run
	zp := *run.Zones
	zp.LinkMbps = [][]float64{{0, 20}, {50, 0}}
	withPairs.Zones = &zp
	mdWriter{w: &b}.zones(s, in, withPairs)
	resultstest.Golden(t, filepath.Join("testdata", "zones-bandwidth.md.golden"), b.Bytes())

	// On hosts: the zones are labels, the matrix for reference.
	b.Reset()
	onHosts := *run.Zones
	onHosts.Jitter, onHosts.BandwidthMbps, onHosts.RoundTrips, onHosts.OnHosts = 0, 0, nil, true
	hostRun := run
	hostRun.Zones = &onHosts
	mdWriter{w: &b}.zones(s, in, hostRun)
	resultstest.Golden(t, filepath.Join("testdata", "zones-hosts.md.golden"), b.Bytes())

	b.Reset()
	run.Zones = nil
	mdWriter{w: &b}.zones(s, in, run)
	if b.Len() != 0 {
		t.Errorf("a Zones section without zones:\n%s", b.String())
	}
	if _, err := newPlotData(run, in, s, Options{}).zoneAdoptionCDF(); err == nil {
		t.Error("a zone adoption plot without zones")
	}
}

// checkPNG checks that b decodes as a PNG of the default plot size.
func checkPNG(t *testing.T, b []byte) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if w, h := wantPlotSize(); img.Bounds().Dx() != w || img.Bounds().Dy() != h {
		t.Errorf("plot is %v, want %d×%d", img.Bounds(), w, h)
	}
}
