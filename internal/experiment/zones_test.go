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
