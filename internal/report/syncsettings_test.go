package report

import (
	"testing"

	"github.com/cometlab/cometlab/internal/results"
)

func TestSyncSettings(t *testing.T) {
	n := func(name, mempool string, adaptive bool) results.Node {
		return results.Node{Name: name, Mempool: mempool, AdaptiveSync: adaptive}
	}
	for _, c := range []struct {
		name  string
		nodes []results.Node
		want  string
	}{
		{"flood", []results.Node{n("v1", "", false), n("v2", "", false)}, ""},
		{"all app", []results.Node{n("v1", "app", false), n("v2", "app", false)}, "mempool app on 2 nodes"},
		{"one nop, adaptive on one", []results.Node{n("v1", "", false), n("v2", "nop", false), n("v3", "", true)},
			"mempool nop on v2, adaptive sync on v3"},
		{"many", []results.Node{n("a", "app", true), n("b", "app", true), n("c", "app", true), n("d", "app", true), n("e", "", true)},
			"mempool app on 4 of 5 nodes, adaptive sync on 5 nodes"},
	} {
		if got := syncSettings(c.nodes); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
