package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/stats"
)

// topology writes "Appendix: Topology" for a run whose topology was not
// the mesh: each node's configured seeds and persistent peers, and the
// fewest, median and most peers it had during the load (from to to, Unix
// ns; cometbft_p2p_peers, each node over time in peers.png). Nothing for
// the mesh, where every node lists every other.
func (m mdWriter) topology(in *analysis.Input, run results.Run, from, to int64) {
	if run.Topology == "" {
		return
	}
	m.f("## Appendix: Topology\n\n")
	m.f("topology = %q: each node's seeds and persistent peers as its config.toml lists them, the peer exchange finding the rest; "+
		"then the peers it had during the load (cometbft_p2p_peers at each scrape; over time in the Peers plot).\n\n", run.Topology)
	var rows [][]string
	for _, n := range run.Nodes {
		lo, med, hi := peerStats(in, n.Name, from, to)
		rows = append(rows, []string{n.Name, n.Mode, listOrDash(n.Seeds), listOrDash(n.PersistentPeers), lo, med, hi})
	}
	m.table([]string{"node", "mode", "seeds", "persistent peers", "peers min", "peers median", "peers max"}, "llllrrr", rows)
}

// peerStats are the min, median and max of node's cometbft_p2p_peers
// samples from from to to (to 0: no end), "–" each without one.
func peerStats(in *analysis.Input, node string, from, to int64) (lo, med, hi string) {
	var vs []float64
	if in != nil && in.Metrics != nil {
		if s := in.Metrics.One(node, "p2p_peers"); s != nil {
			for i, t := range s.T {
				if t >= from && (to == 0 || t <= to) && !math.IsNaN(s.V[i]) {
					vs = append(vs, s.V[i])
				}
			}
		}
	}
	if len(vs) == 0 {
		return "–", "–", "–"
	}
	slices.Sort(vs)
	g := func(v float64) string { return fmt.Sprintf("%g", v) }
	return g(vs[0]), g(stats.Percentile(vs, 50)), g(vs[len(vs)-1])
}

func listOrDash(l []string) string {
	if len(l) == 0 {
		return "–"
	}
	return strings.Join(l, ", ")
}
