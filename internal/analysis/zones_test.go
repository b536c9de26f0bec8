package analysis

import (
	"slices"
	"testing"

	"github.com/cometlab/cometlab/internal/results"
)

// zonedRun is a run of 4 nodes in 3 zones: a and b in east, c in west, d
// in south (a seed, which adopts no blocks).
func zonedRun() results.Run {
	return results.Run{
		Nodes: []results.Node{{Name: "a", Mode: "validator", Zone: "east"}, {Name: "b", Mode: "validator", Zone: "east"},
			{Name: "c", Mode: "validator", Zone: "west"}, {Name: "d", Mode: "seed", Zone: "south"}},
		Zones: &results.Zones{Matrix: "m.csv", Zones: []string{"east", "west", "south"},
			DelayMs: [][]float64{{0, 20, 50}, {30, 0, 60}, {50, 60, 0}},
			RoundTrips: []results.RoundTrip{
				{From: "a", To: "c", N: 2, MinMs: 51, MedianMs: 52},
				{From: "b", To: "c", N: 1, MinMs: 50.5, MedianMs: 50.5},
				{From: "c", To: "a", N: 3, MinMs: 52, MedianMs: 54},
				{From: "a", To: "b", N: 1, MinMs: 0.3, MedianMs: 0.3}, // one zone: left out
			}},
	}
}

func TestAnalyzeZoneAdoption(t *testing.T) {
	const ms = 1e6
	rows := []results.Adoption{
		{Height: 1, Node: "a", At: 1000 * ms}, {Height: 1, Node: "b", At: 1004 * ms}, {Height: 1, Node: "c", At: 1030 * ms},
		{Height: 2, Node: "c", At: 2000 * ms}, {Height: 2, Node: "a", At: 2020 * ms}, // b missed height 2
		{Height: 2, Node: "a", At: 2025 * ms}, // a repeated row: the earliest counts
		{Height: 3, Node: "a", At: 3000 * ms}, // out of the window
	}
	got := AnalyzeZoneAdoption(rows, zonedRun(), 1, 2)
	if len(got) != 3 {
		t.Fatalf("%d zones, want 3", len(got))
	}
	for _, tc := range []struct {
		i              int
		zone           string
		nodes          int
		reach, all     []float64 // ms per block
		reachN, allMax float64
	}{
		{0, "east", 2, []float64{0, 20}, []float64{4}, 2, 4},
		{1, "west", 1, []float64{30, 0}, []float64{30, 0}, 2, 30},
		{2, "south", 0, nil, nil, 0, 0},
	} {
		z := got[tc.i]
		if z.Blocks != 2 {
			t.Errorf("zone %s: %d blocks in the window, want 2", z.Zone, z.Blocks)
		}
		if z.Zone != tc.zone || len(z.Nodes) != tc.nodes || z.Reach.N != int(tc.reachN) || z.All.N != len(tc.all) {
			t.Errorf("zone %d: %s %v reach n=%d all n=%d; want %s, %d nodes, %v, %v", tc.i, z.Zone, z.Nodes, z.Reach.N, z.All.N, tc.zone, tc.nodes, tc.reach, tc.all)
			continue
		}
		if z.All.N > 0 && z.All.Max != tc.allMax*ms {
			t.Errorf("%s: all-nodes max %v ms, want %v", z.Zone, z.All.Max/ms, tc.allMax)
		}
		if z.Reach.N > 0 && (z.Reach.Min != min(tc.reach[0], tc.reach[1])*ms || z.Reach.Max != max(tc.reach[0], tc.reach[1])*ms) {
			t.Errorf("%s: reach %v … %v ms, want %v", z.Zone, z.Reach.Min/ms, z.Reach.Max/ms, tc.reach)
		}
	}
	if AnalyzeZoneAdoption(rows, results.Run{}, 0, 0) != nil {
		t.Error("a run without zones has zone adoption")
	}
}

func TestZoneRoundTrips(t *testing.T) {
	got := ZoneRoundTrips(zonedRun())
	want := []PairRoundTrip{
		{From: "east", To: "west", MatrixMs: 50, N: 3, MinMs: 50.5, MedianMs: 51.25},
		{From: "west", To: "east", MatrixMs: 50, N: 3, MinMs: 52, MedianMs: 54},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("pair %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestZoneLatencies: the latency seen from each zone is its first node's
// commit of the transaction's height − the send time; duplicates and
// heights the zone was not seen committing are left out.
func TestZoneLatencies(t *testing.T) {
	const ms = 1e6
	run := zonedRun()
	run.Target = "c"
	in := Input{Run: run,
		Adoption: []results.Adoption{
			{Height: 1, Node: "a", At: 1000 * ms}, {Height: 1, Node: "b", At: 1004 * ms}, {Height: 1, Node: "c", At: 1030 * ms},
			{Height: 2, Node: "c", At: 2000 * ms}, {Height: 2, Node: "b", At: 2020 * ms}, {Height: 2, Node: "a", At: 2010 * ms},
		},
		Txs: []results.Tx{
			{Conn: 0, Seq: 0, Sent: 900 * ms, Height: 1, CommitTime: 1500 * ms},
			{Conn: 0, Seq: 1, Sent: 1900 * ms, Height: 2, CommitTime: 2500 * ms},
			{Conn: 0, Seq: 1, Sent: 1900 * ms, Height: 2, CommitTime: 2500 * ms, Duplicate: true},
			{Conn: 0, Seq: 2, Sent: 2900 * ms, Height: 3, CommitTime: 3500 * ms}, // no adoption row
		}}
	got := in.Aggregates().ZoneLatencies()
	want := []struct {
		zone   string
		target bool
		ms     []float64
	}{
		{"east", false, []float64{100, 110}},
		{"west", true, []float64{100, 130}},
		{"south", false, nil},
	}
	if len(got) != len(want) {
		t.Fatalf("%d zones, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		var vs []float64
		for _, v := range g.Latency.Sorted() {
			vs = append(vs, v/ms)
		}
		if g.Zone != w.zone || g.Target != w.target || !slices.Equal(vs, w.ms) {
			t.Errorf("zone %d: %s target=%v %v ms; want %s target=%v %v ms", i, g.Zone, g.Target, vs, w.zone, w.target, w.ms)
		}
	}
	if (Input{}).Aggregates().ZoneLatencies() != nil {
		t.Error("a run without zones has zone latencies")
	}
}
