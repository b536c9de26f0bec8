package cometbft

import (
	"os"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// TestNodeID checks the id derivation against `cometbft show-node-id` of
// the same key (v0.40.0 printed 92c117eaa1cd84cc727adfa19e7dd6eefb8a2b4e).
func TestNodeID(t *testing.T) {
	id, err := nodeID("testdata/home")
	if err != nil {
		t.Fatal(err)
	}
	if id != "92c117eaa1cd84cc727adfa19e7dd6eefb8a2b4e" {
		t.Errorf("node id %s", id)
	}
}

func TestSetKey(t *testing.T) {
	b, err := os.ReadFile("testdata/config_v0.40.0.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		key string
		val any
		err string
	}{
		{"mempool.size", int64(10000), ""},
		{"consensus.timeout_commit", "500ms", ""},
		{"p2p.pex", false, ""},
		{"log_level", "error", ""},
		{"mempool.sise", int64(1), `no key "mempool.sise"`},
		{"mempol.size", int64(1), "no section [mempol]"},
		{"mempool.size", "big", "does not fit"},
		{"p2p.pex", int64(1), "does not fit"},
	} {
		cfg := map[string]any{}
		if err := toml.Unmarshal(b, &cfg); err != nil {
			t.Fatal(err)
		}
		err := setKey(cfg, c.key, c.val)
		if c.err == "" {
			if err != nil {
				t.Errorf("setKey(%s): %v", c.key, err)
				continue
			}
			parts := strings.Split(c.key, ".")
			m := cfg
			for _, p := range parts[:len(parts)-1] {
				m = m[p].(map[string]any)
			}
			if m[parts[len(parts)-1]] != c.val {
				t.Errorf("setKey(%s): value %v", c.key, m[parts[len(parts)-1]])
			}
		} else if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("setKey(%s=%v): error %v, want %q", c.key, c.val, err, c.err)
		}
	}
}

// TestHomeAddrs checks the addresses of a local node and of a node on a
// host (a deployed testnet's), IPv6 bracketed.
func TestHomeAddrs(t *testing.T) {
	for _, c := range []struct {
		h                 Home
		rpc, p2p, metrics string
	}{
		{Home{ID: "ab", RPCPort: 1, P2PPort: 2, MetricsPort: 3}, "http://127.0.0.1:1", "ab@127.0.0.1:2", "http://127.0.0.1:3/metrics"},
		{Home{ID: "ab", RPCPort: HostRPCPort, P2PPort: HostP2PPort, MetricsPort: HostMetricsPort, Address: "10.213.0.11"},
			"http://10.213.0.11:26657", "ab@10.213.0.11:26656", "http://10.213.0.11:26660/metrics"},
		{Home{ID: "ab", RPCPort: 5, P2PPort: 6, MetricsPort: 7, Address: "fd00::1"}, "http://[fd00::1]:5", "ab@[fd00::1]:6", "http://[fd00::1]:7/metrics"},
	} {
		if got := c.h.RPCAddr(); got != c.rpc {
			t.Errorf("RPCAddr %s, want %s", got, c.rpc)
		}
		if got := c.h.P2PAddr(); got != c.p2p {
			t.Errorf("P2PAddr %s, want %s", got, c.p2p)
		}
		if got := c.h.MetricsAddr(); got != c.metrics {
			t.Errorf("MetricsAddr %s, want %s", got, c.metrics)
		}
	}
}
