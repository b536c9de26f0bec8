package manifest

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestSettableKey(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"validators", "validators", ""},
		{"size", "load.size", ""},
		{"load.duration", "load.duration", ""},
		{"drain_timeout", "load.drain_timeout", ""},
		{"mempool.size", "mempool.size", ""},
		{"config.consensus.timeout_commit", "consensus.timeout_commit", ""},
		{"load.rate", "", "not a manifest key"},
		{"load.bogus", "", "not a manifest key"},
		{"mempool", "mempool", ""},
		{"adaptive_sync", "adaptive_sync", ""},
		{"mempool..size", "", "not a manifest key"},
		{"config.db_backend", "config.db_backend", ""},
		{"db_backend", "", "not a manifest key"},
		{"config.", "", "not a manifest key"},
		{"app", "app", ""},
		{"topology", "topology", ""},
		{"app.vote_extension_size", "app.vote_extension_size", ""},
		{"app.kind", "", "not an app setting"},
		{"app.", "", "not an app setting"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := SettableKey(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error %v, want one naming %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestSetTopLevelConfig(t *testing.T) {
	m := Default()
	k, err := SettableKey("config.db_backend")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Set(k, "pebbledb"); err != nil { // the canonical key is settable again (a sweep's cells)
		t.Fatal(err)
	}
	r, err := m.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	if r.Config["db_backend"] != "pebbledb" {
		t.Errorf("config %v, want db_backend = pebbledb", r.Config)
	}
}

// TestSetTopology: a sweep's --set topology=seeds gives the nodes the
// seeds (there is one), and a bad value is an error naming the key.
func TestSetTopology(t *testing.T) {
	m, err := Parse("t.toml", []byte("[node.v1]\n[node.s1]\nmode = \"seed\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	c := m
	if err := c.Set("topology", "seeds"); err != nil {
		t.Fatal(err)
	}
	r, err := c.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	if r.Topology != TopologySeeds || len(r.Nodes[0].Seeds) != 1 || r.Nodes[0].Seeds[0] != "s1" {
		t.Errorf("topology %q, v1's seeds %v", r.Topology, r.Nodes[0].Seeds)
	}
	if err := c.Set("topology", "star"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Resolve(); err == nil || !strings.Contains(err.Error(), `topology: invalid topology "star"`) {
		t.Errorf("resolve with topology star: %v", err)
	}
}

func TestSetApp(t *testing.T) {
	m := Default()
	c := m
	for _, kv := range [][2]string{{"app", "e2e"}, {"app.vote_extension_size", "4096"}, {"app.retain_blocks", "10"}} {
		if err := c.Set(kv[0], kv[1]); err != nil {
			t.Fatalf("%s=%s: %v", kv[0], kv[1], err)
		}
	}
	r, err := c.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"vote_extension_size": int64(4096), "retain_blocks": int64(10), "vote_extensions_enable_height": int64(1)}
	if r.App != AppE2E || !reflect.DeepEqual(r.AppConfig, want) {
		t.Errorf("resolved app %q %v, want e2e %v", r.App, r.AppConfig, want)
	}
	if m.App != AppKVStore {
		t.Errorf("Set changed the manifest it was copied from: app %v", m.App)
	}
	// A sweep over the size changes only the size.
	d := c
	if err := d.Set("app.vote_extension_size", "0"); err != nil {
		t.Fatal(err)
	}
	if c.App.(map[string]any)["vote_extension_size"] != int64(4096) {
		t.Error("Set changed the [app] table of the manifest it was copied from")
	}
	// An unknown key of this release's e2e app is an error naming it.
	if err := d.Set("app.vote_extension_sise", "1"); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Resolve(); err == nil || !strings.Contains(err.Error(), `app.vote_extension_sise: the e2e app of v0.40.0 has no key`) {
		t.Errorf("resolve with a misspelt app key: %v", err)
	}
}

func TestSet(t *testing.T) {
	m := Default()
	m.Config = map[string]any{"mempool": map[string]any{"size": int64(5000), "recheck": true}}
	c := m
	for k, v := range map[string]string{"validators": "3", "size": "512", "load.duration": "10s", "log_level": "*:info",
		"drain_timeout": "5s", "config.mempool.size": "1000"} {
		if err := c.Set(k, v); err != nil {
			t.Fatalf("%s=%s: %v", k, v, err)
		}
	}
	if c.Validators != 3 || c.Load.Size != 512 || c.Load.Duration != (10*time.Second).String() || c.LogLevel != "*:info" ||
		c.Load.DrainTimeout != "5s" || c.Config["mempool.size"] != int64(1000) || c.Config["mempool"].(map[string]any)["recheck"] != true {
		t.Errorf("after Set: %+v", c)
	}
	if m.Config["mempool"].(map[string]any)["size"] != int64(5000) {
		t.Error("Set changed the [config] table of the manifest it was copied from")
	}
	for k, v := range map[string]string{"validators": "x", "size": "3", "bogus": "1"} {
		before := c
		if err := c.Set(k, v); err == nil {
			t.Errorf("%s=%s: no error", k, v)
		}
		if c.Validators != before.Validators || c.Load.Size != before.Load.Size {
			t.Errorf("%s=%s: the failed Set changed the manifest", k, v)
		}
	}
	if err := c.Set("validators", "0"); err == nil || !strings.Contains(err.Error(), "--validators") {
		t.Errorf("validators=0: %v, want an error naming --validators", err)
	}
}

func TestConfigValue(t *testing.T) {
	for in, want := range map[string]any{"1000": int64(1000), "0.5": 0.5, "true": true, "1s": "1s", "v0.38": "v0.38"} {
		if got := configValue(in); got != want {
			t.Errorf("%q: %#v, want %#v", in, got, want)
		}
	}
}

// TestSweepKey: c and r have flags of their own; every other key is
// manifest.SettableKey's (tested there).
func TestSweepKey(t *testing.T) {
	for _, key := range []string{"c", "rate", "load.connections"} {
		if _, err := SweepKey(key); err == nil || !strings.Contains(err.Error(), "--connections and --rates") {
			t.Errorf("%s: error %v, want one naming the flags", key, err)
		}
	}
	if got, err := SweepKey("size"); got != "load.size" || err != nil {
		t.Errorf("size: got %q, %v", got, err)
	}
	if _, err := SweepKey("load.bogus"); err == nil {
		t.Error("load.bogus: no error")
	}
}
