package manifest

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/links"
)

func init() {
	zoned := func(names, zones []string) []Node {
		var nodes []Node
		for i, n := range names {
			nodes = append(nodes, Node{Name: n, Mode: ModeValidator, Power: 1, Version: "v0.40.0", Config: map[string]any{}, Zone: zones[i]})
		}
		return nodes
	}
	goodManifests["zones.good.toml"] = Resolved{
		Name: "default", CometBFTVersion: "v0.40.0", App: "kvstore", LogLevel: "state:info,*:error", Links: "relay", Topology: "mesh",
		Config: map[string]any{},
		Nodes: zoned([]string{"validator01", "validator02", "validator03", "validator04"},
			[]string{"N_Virginia", "Frankfurt", "Tokyo", "Sydney"}),
		Load:  defaultLoad,
		Zones: &Zones{Source: "aws", Jitter: 0.05, BandwidthMbps: 100, Matrix: links.AWS()},
	}
	// The four zones of zones.good.toml, without jitter, pairs of zones
	// with bandwidths of their own.
	withPairs := goodManifests["zones.good.toml"]
	withPairs.Zones = &Zones{Source: "aws", BandwidthMbps: 100, Matrix: links.AWS(), BandwidthPairs: map[[2]string]float64{
		{"Tokyo", "Sydney"}: 20, {"Sydney", "Tokyo"}: 20, // one key, both ways
		{"Sydney", "N_Virginia"}: 10, {"N_Virginia", "Sydney"}: 5, // each way its own
		{"Frankfurt", "Tokyo"}: 0, {"Tokyo", "Frankfurt"}: 0, // no limit
	}}
	goodManifests["zones-bandwidth.good.toml"] = withPairs
	csv, _ := filepath.Abs(filepath.Join(fixtures, "zones.csv"))
	nodes := zoned([]string{"a", "b"}, []string{"east", "west"})
	nodes = append(nodes, Node{Name: "c", Mode: ModeFull, Version: "v0.40.0", Config: map[string]any{}, Zone: "west"})
	l := defaultLoad
	l.Target = "a"
	goodManifests["zones-csv.good.toml"] = Resolved{
		Name: "default", CometBFTVersion: "v0.40.0", App: "kvstore", LogLevel: "state:info,*:error", Links: "relay", Topology: "mesh",
		Config: map[string]any{}, Nodes: nodes, Load: l,
		Zones: &Zones{Source: csv, Matrix: mustMatrix(csv)},
	}

	hostNodes := zoned([]string{"validator01", "validator02"}, []string{"N_Virginia", "Tokyo"})
	hostNodes[0].Host, hostNodes[1].Host = "h1", "h2"
	goodManifests["hostzones.good.toml"] = Resolved{
		Name: "default", CometBFTVersion: "v0.40.0", App: "kvstore", LogLevel: "state:info,*:error", Links: "direct", Topology: "mesh",
		Config: map[string]any{}, Nodes: hostNodes, Load: defaultLoad,
		Zones: &Zones{Source: "aws", Matrix: links.AWS()},
		Hosts: []Host{
			{Name: "h1", Address: "10.213.0.11", SSHUser: "qa", SSHPort: DefaultSSHPort, Workdir: "/var/tmp/cometlab-default"},
			{Name: "h2", Address: "10.213.0.12", SSHUser: "qa", SSHPort: DefaultSSHPort, Workdir: "/var/tmp/cometlab-default"},
		},
	}
	badManifests["hostzones.bad.toml"] = []string{
		"hostzones.bad.toml:3:1: zones.jitter: jitter is emulated by local relays: on [host.*] testnets the hosts' own network is the delay",
		"hostzones.bad.toml:4:1: zones.bandwidth_mbps: bandwidth is emulated by local relays: on [host.*] testnets the hosts' own network is the limit",
	}

	badManifests["zones.bad.toml"] = []string{
		`zones.bad.toml:1:2: zones: needs matrix = "aws" or the path of a CSV matrix`,
		"zones.bad.toml:2:1: zones.jitter: must be between 0 and 1 (a fraction of the delay), got 2",
		"zones.bad.toml:3:1: zones.bandwidth_mbps: must be a number of Mbit/s ≥ 0 (0: no limit), got -1",
	}
	badManifests["zones-bandwidth.bad.toml"] = []string{
		`zones-bandwidth.bad.toml:5:1: zones.bandwidth.Tokyo: want a key "FROM,TO" naming two zones of the matrix`,
		`zones-bandwidth.bad.toml:6:1: zones.bandwidth."Tokyo,Mars": unknown zone "Mars" (the matrix has N_Virginia, Canada,`,
		`zones-bandwidth.bad.toml:7:1: zones.bandwidth."Tokyo,Tokyo": nodes of one zone are not limited: name two different zones`,
		`zones-bandwidth.bad.toml:8:1: zones.bandwidth."Tokyo,Sydney": must be a number of Mbit/s ≥ 0 (0: no limit), got -1`,
		`zones-bandwidth.bad.toml:9:1: zones.bandwidth."London,Ireland": the pair London → Ireland is given twice (also as "London, Ireland")`,
		`zones-bandwidth.bad.toml:11:1: zones.bandwidth."a,b,c": want a key "FROM,TO" naming two zones of the matrix`,
	}
	badManifests["zones-unknown.bad.toml"] = []string{
		`zones-unknown.bad.toml:5:1: node.a.zone: unknown zone "Mars" (the matrix has N_Virginia, Canada,`,
		`zones-unknown.bad.toml:6:2: node.b: has no zone: with [zones] every node needs zone = "…"`,
	}
	badManifests["zones-missing.bad.toml"] = []string{"zones-missing.bad.toml:4:1: node.a.zone: a zone needs a [zones] table with a matrix"}
	badManifests["zones-matrix.bad.toml"] = []string{`zones-matrix.bad.toml:2:1: zones.matrix: bad-trace.csv:2: row 1 is "0", want "rate"`}
	badManifests["zones-direct.bad.toml"] = []string{
		`zones-direct.bad.toml:1:1: links: [zones] delay the links in relays: they need links = "relay" (or "auto")`,
		`zones-direct.bad.toml:4:2: zones: no node names a zone`,
	}
}

func mustMatrix(path string) links.Matrix {
	m, err := readMatrix(path)
	if err != nil {
		panic(err)
	}
	return m
}

// resolvedFixture loads and resolves the fixture manifest name.
func resolvedFixture(t *testing.T, name string) Resolved {
	t.Helper()
	m, err := Load(filepath.Join(fixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestZoneDelays: the resolved matrix gives each ordered pair of the
// user's zones its own one-way value.
func TestZoneDelays(t *testing.T) {
	r := resolvedFixture(t, "zones-csv.good.toml")
	for _, tc := range []struct {
		a, b string
		want time.Duration
	}{{"east", "west", 25 * time.Millisecond}, {"west", "east", 30 * time.Millisecond}, {"west", "west", 0}} {
		if got, ok := r.Zones.Matrix.Delay(tc.a, tc.b); !ok || got != tc.want {
			t.Errorf("%s → %s: %s, want %s", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestZoneBandwidth: each ordered pair of zones gets its own
// [zones.bandwidth] value, the reverse of a key's pair the same unless it
// has its own, and the others bandwidth_mbps.
func TestZoneBandwidth(t *testing.T) {
	r := resolvedFixture(t, "zones-bandwidth.good.toml")
	bw := r.Zones.Bandwidth()
	for _, tc := range []struct {
		from, to string
		want     float64
	}{
		{"Tokyo", "Sydney", 20}, {"Sydney", "Tokyo", 20},
		{"Sydney", "N_Virginia", 10}, {"N_Virginia", "Sydney", 5},
		{"Frankfurt", "Tokyo", 0}, {"Tokyo", "Frankfurt", 0},
		{"Frankfurt", "Sydney", 100}, {"N_Virginia", "Frankfurt", 100},
		{"Tokyo", "Tokyo", 0},
	} {
		if got := bw.Between(tc.from, tc.to); got != tc.want {
			t.Errorf("%s → %s: %g Mbit/s, want %g", tc.from, tc.to, got, tc.want)
		}
	}
	if want := "aws, 100 Mbit/s between zones, 6 pairs of zones with a bandwidth of their own"; r.Zones.String() != want {
		t.Errorf("String() = %q, want %q", r.Zones.String(), want)
	}
}
