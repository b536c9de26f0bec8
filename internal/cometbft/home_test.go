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
