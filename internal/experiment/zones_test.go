package experiment

import (
	"reflect"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/links"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
)

func TestZonesRecord(t *testing.T) {
	m := manifest.Resolved{
		Nodes: []manifest.Node{{Name: "a", Zone: "Tokyo"}, {Name: "b", Zone: "London"}, {Name: "c", Zone: "Tokyo"}, {Name: "e", Ephemeral: true}},
		Zones: &manifest.Zones{Source: "aws", Jitter: 0.05, BandwidthMbps: 50, Matrix: links.AWS()},
	}
	got := zonesRecord(m)
	want := &results.Zones{Matrix: "aws", Jitter: 0.05, BandwidthMbps: 50, Zones: []string{"London", "Tokyo"}, DelayMs: [][]float64{{0, 104}, {104, 0}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("zonesRecord: %+v, want %+v", got, want)
	}
	// Pairs with their own bandwidth: the capacities between the nodes'
	// zones, the others at bandwidth_mbps.
	m.Nodes = append(m.Nodes, manifest.Node{Name: "d", Zone: "Sydney"})
	m.Zones.BandwidthPairs = map[[2]string]float64{{"Tokyo", "London"}: 10, {"London", "Tokyo"}: 20, {"Sydney", "Mars"}: 1}
	got = zonesRecord(m)
	wantMbps := [][]float64{{0, 20, 50}, {10, 0, 50}, {50, 50, 0}} // London, Tokyo, Sydney in the matrix's order
	if !reflect.DeepEqual(got.Zones, []string{"London", "Tokyo", "Sydney"}) || !reflect.DeepEqual(got.LinkMbps, wantMbps) {
		t.Errorf("zonesRecord with pairs: zones %v, bandwidths %v; want %v", got.Zones, got.LinkMbps, wantMbps)
	}
	if zonesRecord(manifest.Resolved{}) != nil {
		t.Error("a record without zones")
	}
}

func TestRoundTripRecords(t *testing.T) {
	got := roundTripRecords([]links.RoundTrip{
		{From: "b", To: "a", RTT: 30 * time.Millisecond},
		{From: "a", To: "b", RTT: 12 * time.Millisecond},
		{From: "a", To: "b", RTT: 10 * time.Millisecond},
		{From: "a", To: "b", RTT: 20 * time.Millisecond},
		{From: "a", To: "b", RTT: 11 * time.Millisecond},
	})
	want := []results.RoundTrip{
		{From: "a", To: "b", N: 4, MinMs: 10, MedianMs: 11.5},
		{From: "b", To: "a", N: 1, MinMs: 30, MedianMs: 30},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("roundTripRecords: %+v, want %+v", got, want)
	}
}

// recordedLinks records what setZoneDelays sets.
type recordedLinks struct {
	jitter    float64
	delay     map[[2]string]time.Duration
	bandwidth map[[2]string]float64
}

func (r *recordedLinks) SetJitter(frac float64) { r.jitter = frac }
func (r *recordedLinks) SetDelay(from, to string, d time.Duration) {
	r.delay[[2]string{from, to}] = d
}
func (r *recordedLinks) SetBandwidth(from, to string, bytesPerSec float64) {
	r.bandwidth[[2]string{from, to}] = bytesPerSec
}

// TestSetZoneDelays: each ordered pair of nodes in different zones gets
// its zones' delay and bandwidth (the pair's own, else the default; none
// for 0 or within a zone), in bytes/s; an ephemeral node gets neither.
func TestSetZoneDelays(t *testing.T) {
	m := manifest.Resolved{
		Nodes: []manifest.Node{{Name: "a", Zone: "Tokyo"}, {Name: "b", Zone: "London"}, {Name: "c", Zone: "Tokyo"},
			{Name: "d", Zone: "Sydney"}, {Name: "e", Ephemeral: true}},
		Zones: &manifest.Zones{Source: "aws", Jitter: 0.05, BandwidthMbps: 80, Matrix: links.AWS(),
			BandwidthPairs: map[[2]string]float64{{"Tokyo", "London"}: 8, {"London", "Tokyo"}: 16, {"Tokyo", "Sydney"}: 0, {"Sydney", "Tokyo"}: 0}},
	}
	lk := &recordedLinks{delay: map[[2]string]time.Duration{}, bandwidth: map[[2]string]float64{}}
	setZoneDelays(m, lk)
	const mbit = 1e6 / 8 // bytes/s
	wantBW := map[[2]string]float64{
		{"a", "b"}: 8 * mbit, {"c", "b"}: 8 * mbit, {"b", "a"}: 16 * mbit, {"b", "c"}: 16 * mbit, // their own
		{"b", "d"}: 80 * mbit, {"d", "b"}: 80 * mbit, // the default
	} // a, c ↔ d: 0, no limit; a ↔ c: one zone
	if !reflect.DeepEqual(lk.bandwidth, wantBW) {
		t.Errorf("bandwidths %v, want %v", lk.bandwidth, wantBW)
	}
	if lk.jitter != 0.05 || len(lk.delay) != 10 || lk.delay[[2]string{"a", "b"}] != 104*time.Millisecond {
		t.Errorf("jitter %g, %d delays (a → b %s), want 0.05, 10 (104ms)", lk.jitter, len(lk.delay), lk.delay[[2]string{"a", "b"}])
	}
}
