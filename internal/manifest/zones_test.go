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
		Name: "default", CometBFTVersion: "v0.40.0", App: "kvstore", LogLevel: "state:info,*:error", Links: "relay",
		Config: map[string]any{},
		Nodes: zoned([]string{"validator01", "validator02", "validator03", "validator04"},
			[]string{"N_Virginia", "Frankfurt", "Tokyo", "Sydney"}),
		Load:  defaultLoad,
		Zones: &Zones{Source: "aws", Jitter: 0.05, BandwidthMbps: 100, Matrix: links.AWS()},
	}
	csv, _ := filepath.Abs(filepath.Join(fixtures, "zones.csv"))
	nodes := zoned([]string{"a", "b"}, []string{"east", "west"})
	nodes = append(nodes, Node{Name: "c", Mode: ModeFull, Version: "v0.40.0", Config: map[string]any{}, Zone: "west"})
	l := defaultLoad
	l.Target = "a"
	goodManifests["zones-csv.good.toml"] = Resolved{
		Name: "default", CometBFTVersion: "v0.40.0", App: "kvstore", LogLevel: "state:info,*:error", Links: "relay",
		Config: map[string]any{}, Nodes: nodes, Load: l,
		Zones: &Zones{Source: csv, Matrix: mustMatrix(csv)},
	}

	badManifests["zones.bad.toml"] = []string{
		`zones.bad.toml:1:2: zones: needs matrix = "aws" or the path of a CSV matrix`,
		"zones.bad.toml:2:1: zones.jitter: must be between 0 and 1 (a fraction of the delay), got 2",
		"zones.bad.toml:3:1: zones.bandwidth_mbps: must be a number of Mbit/s ≥ 0 (0: no limit), got -1",
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

// TestZoneDelays: the resolved matrix gives each ordered pair of the
// user's zones its own one-way value.
func TestZoneDelays(t *testing.T) {
	m, err := Load(filepath.Join(fixtures, "zones-csv.good.toml"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		a, b string
		want time.Duration
	}{{"east", "west", 25 * time.Millisecond}, {"west", "east", 30 * time.Millisecond}, {"west", "west", 0}} {
		if got, ok := r.Zones.Matrix.Delay(tc.a, tc.b); !ok || got != tc.want {
			t.Errorf("%s → %s: %s, want %s", tc.a, tc.b, got, tc.want)
		}
	}
}
