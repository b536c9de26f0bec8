package report

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// TestTopologySection: the topology appendix of a seeds run (golden): each
// node's seeds and persistent peers and its peers' min, median and max
// over the load only (samples before it left out); none for the mesh.
func TestTopologySection(t *testing.T) {
	run := results.Run{Topology: "seeds", Nodes: []results.Node{
		{Name: "v1", Mode: "validator", Seeds: []string{"s1"}},
		{Name: "v2", Mode: "validator", Seeds: []string{"s1"}},
		{Name: "s1", Mode: "seed"},
	}}
	var rows []results.Metric
	for i, v := range []float64{9, 1, 3, 2} { // the 9 is before the load
		rows = append(rows, results.Metric{Time: int64(i) * 10, Node: "v1", Name: "cometbft_p2p_peers", Value: v})
	}
	in := &analysis.Input{Run: run, Metrics: analysis.NewSeriesSet(rows)}
	var b bytes.Buffer
	mdWriter{w: &b}.topology(in, run, 10, 0)
	resultstest.Golden(t, filepath.Join("testdata", "topology.md.golden"), b.Bytes())

	b.Reset()
	run.Topology = ""
	mdWriter{w: &b}.topology(in, run, 10, 0)
	if b.Len() != 0 {
		t.Errorf("mesh run: topology section %q, want none", b.String())
	}
}
