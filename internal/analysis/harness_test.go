package analysis

import (
	"math"
	"slices"
	"testing"

	"github.com/cometlab/cometlab/internal/results"
)

// TestHarnessFigures: cometlab's own row in resources.csv gives its RSS,
// host.csv its share of the machine, and it is neither a node nor part of
// the nodes' figures.
func TestHarnessFigures(t *testing.T) {
	in := Input{
		Resources: []results.Resource{
			{Time: 1, Node: "validator01", CPU: 50, RSS: 100 * mib},
			{Time: 1, Node: results.HarnessProcess, CPU: 30, RSS: 40 * mib},
			{Time: 2, Node: results.HarnessProcess, CPU: 10, RSS: 60 * mib},
		},
		Host: []results.HostSample{{Time: 1, Cores: 2, Busy: 1, Harness: 0.3}, {Time: 2, Cores: 2, Busy: 1, Harness: 0.1}},
	}
	s := Summarize(in)
	for id, want := range map[string]float64{"harness_rss_max_mib": 60, "harness_cpu_mean_pct": 20, "harness_host_share_pct": 10, "rss_max_mib": 100, "cpu_mean_pct": 50} {
		if got, ok := s.Metrics[id]; !ok || math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %v (%v), want %v", id, got, ok, want)
		}
	}
	if nodes := RunNodes(in); !slices.Equal(nodes, []string{"validator01"}) {
		t.Errorf("RunNodes = %v, want validator01 only", nodes)
	}
	if _, ok := s.Nodes[results.HarnessProcess]; ok {
		t.Error("cometlab has per-node figures")
	}
}
