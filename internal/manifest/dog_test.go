package manifest

import (
	"testing"
	"time"
)

func init() {
	nodes := []Node{
		{Name: "validator01", Mode: ModeValidator, Power: 1, Version: "v2.0.0-rc1", Config: map[string]any{}},
		{Name: "validator02", Mode: ModeValidator, Power: 1, Version: "v2.0.0-rc1", Config: map[string]any{}},
	}
	goodManifests["dog.good.toml"] = Resolved{
		Name: "default", CometBFTVersion: "v2.0.0-rc1", App: "kvstore", LogLevel: "state:info,*:error", Links: "direct", Topology: "mesh",
		Config: map[string]any{}, Nodes: nodes, Load: defaultLoad, KeyType: "ed25519",
		DOG: &DOG{TargetRedundancy: 0.5, AdjustInterval: 2 * time.Second},
	}
	badManifests["dog.bad.toml"] = []string{
		`dog.bad.toml:1:1: dog: v0.40.0 has no DOG gossip (mempool.dog_protocol_enabled: v2.0 only)`,
	}
	badManifests["dog-off.bad.toml"] = []string{
		`dog-off.bad.toml:2:1: dog_target_redundancy: is for the DOG gossip: set dog = true`,
	}
	badManifests["dog-values.bad.toml"] = []string{
		`dog-values.bad.toml:3:1: dog_target_redundancy: must be > 0, got -1`,
		`dog-values.bad.toml:4:1: dog_adjust_interval: must be ≥ 1s (CometBFT refuses a shorter one), got 500ms`,
	}
	badManifests["dog-config.bad.toml"] = []string{
		`dog-config.bad.toml:2:1: dog: config.toml's mempool.dog_protocol_enabled is the dog keys' to set ([config] sets it too)`,
	}
}

// TestDOGConfig: DOG turns into the three mempool keys of config.toml.
func TestDOGConfig(t *testing.T) {
	m := Default()
	m.CometBFTVersion = "v2.0.0-rc1"
	if err := m.Set("dog", "true"); err != nil {
		t.Fatal(err)
	}
	r, err := m.Resolve()
	if err != nil || r.DOG == nil {
		t.Fatalf("DOG %v (%v)", r.DOG, err)
	}
	c := r.DOG.Config()
	if c["mempool.dog_protocol_enabled"] != true || c["mempool.dog_target_redundancy"] != 1.0 || c["mempool.dog_adjust_interval"] != "1s" {
		t.Errorf("config %v: want DOG on with CometBFT's defaults", c)
	}
}
