package report

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// TestHostsSection: the load hosts and clocks of a run from two load
// hosts, one of which failed (golden), and no section for a load from
// the control host.
func TestHostsSection(t *testing.T) {
	run := results.Run{
		LoadHosts: []results.LoadHost{
			{Name: "load1", FirstConn: 0, Connections: 2, Sent: 24000},
			{Name: "h2", FirstConn: 2, Connections: 1, Sent: 1500, Unsent: 10500, Error: "load: dial ws://10.213.0.12:26657/websocket: connection refused"},
		},
		Clocks: []results.Clock{
			{Host: "h1", Role: "validators", OffsetNs: 120_000, UncertaintyNs: 400_000},
			{Host: "h2", Role: "load, validators", OffsetNs: -2_500_000, UncertaintyNs: 350_000},
			{Host: "load1", Role: "load", OffsetNs: 1_000_000, UncertaintyNs: 300_000},
		},
	}
	var b bytes.Buffer
	mdWriter{w: &b}.hosts(run)
	resultstest.Golden(t, filepath.Join("testdata", "hosts.md.golden"), b.Bytes())

	b.Reset()
	mdWriter{w: &b}.hosts(results.Run{})
	if b.Len() != 0 {
		t.Errorf("a load hosts section without load hosts:\n%s", b.String())
	}
}
