package manifest

import (
	"testing"
	"time"
)

func init() {
	rate0, burst10 := 0.0, 10
	l := defaultLoad
	l.Duration = 30 * time.Second
	l.Clients = []Client{
		{Name: "greedy", Key: "greedy", Connections: 4, Rate: 3600},
		{Name: "small1", Key: "small1", Connections: 1, Rate: 29},
		{Name: "small2", Key: "api-key-2", Connections: 1, Rate: 29},
	}
	l.Connections, l.Rate = 6, (4*3600+29+29)/6.0
	goodManifests["sentinel.good.toml"] = Resolved{
		Name: "default", CometBFTVersion: "v0.40.0", App: "kvstore", LogLevel: "state:info,*:error", Links: "direct", Topology: "mesh",
		Config: map[string]any{}, Nodes: validators(4, "v0.40.0"), Load: l,
		Sentinel: &ManifestSentinel{Rate: &rate0, PaceTarget: 4000,
			Clients: map[string]ManifestSentinelClient{"greedy": {Weight: 2, Burst: &burst10}}},
	}
	badManifests["clients.bad.toml"] = []string{
		"clients.bad.toml:2:1: load.rate: not with [[load.client]] tables: give each client its own rate",
		"clients.bad.toml:8:3: load.client[2].connections: must be >= 1, got -1",
		`clients.bad.toml:8:3: load.client[2].name: client "a" appears twice`,
		"clients.bad.toml:8:3: load.client[2].rate: must be > 0 and finite, got 0",
		"clients.bad.toml:13:3: load.client[3]: needs a name",
		`clients.bad.toml:13:3: load.client[3].key: key "a" is another client's too`,
	}
	badManifests["sentinel.bad.toml"] = []string{
		"sentinel.bad.toml:2:1: sentinel.rate: must be >= 0 and finite (0: no limit), got -1",
		"sentinel.bad.toml:3:1: sentinel.burst: must be >= 1, got 0",
		"sentinel.bad.toml:4:1: sentinel.max_rate: must be >= 0 and finite (0: pace), got -5",
		"sentinel.bad.toml:5:1: sentinel.buffer: must be >= 1 (absent: the default), got -2",
		"sentinel.bad.toml:8:1: sentinel.client.x.weight: must be >= 1 (absent: 1), got -1",
	}
}

// TestClientWorkloads: each client's workload is its own connections and
// rate, connections are numbered one client after another, and the
// expected count is the sum of the clients'.
func TestClientWorkloads(t *testing.T) {
	l := goodManifests["sentinel.good.toml"].Load
	for i, want := range []struct {
		first, conns int
		rate         float64
		txs          int64
	}{{0, 4, 3600, 432000}, {4, 1, 29, 870}, {5, 1, 29, 870}} {
		w := l.Client(i)
		if l.FirstConn(i) != want.first || w.Connections != want.conns || w.Rate != want.rate || w.Clients != nil || w.ExpectedTxs() != want.txs {
			t.Errorf("client %d: first %d, %d × %g, %d txs; want %+v", i, l.FirstConn(i), w.Connections, w.Rate, w.ExpectedTxs(), want)
		}
	}
	if got := l.ExpectedTxs(); got != 432000+870+870 {
		t.Errorf("expected %d txs, want %d", got, 432000+870+870)
	}
}
