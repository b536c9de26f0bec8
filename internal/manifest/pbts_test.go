package manifest

import (
	"strings"
	"testing"
)

func init() {
	nodes := []Node{
		{Name: "validator01", Mode: ModeValidator, Power: 1, Version: "v1.0.1", Config: map[string]any{}},
		{Name: "validator02", Mode: ModeValidator, Power: 1, Version: "v1.0.1", Config: map[string]any{}},
	}
	goodManifests["pbts.good.toml"] = Resolved{
		Name: "default", CometBFTVersion: "v1.0.1", App: "kvstore", LogLevel: "state:info,*:error", Links: "direct", Topology: "mesh",
		Config: map[string]any{}, Nodes: nodes, Load: defaultLoad, KeyType: "ed25519", PBTSEnableHeight: 1,
	}
	badManifests["pbts.bad.toml"] = []string{
		`pbts.bad.toml:1:1: pbts_enable_height: v0.40.0 has no PBTS (feature.pbts_enable_height: v1.0, v2.0 only)`,
	}
	badManifests["pbts-binary.bad.toml"] = []string{
		`pbts-binary.bad.toml:2:1: pbts_enable_height: cometbft_binary's release is unknown: PBTS needs a release whose genesis has feature.pbts_enable_height (v1.0 and later)`,
	}
	badManifests["pbts-negative.bad.toml"] = []string{
		`pbts-negative.bad.toml:2:1: pbts_enable_height: must be ≥ 0 (0 keeps BFT time), got -1`,
	}
	badManifests["pbts-app.bad.toml"] = []string{
		`pbts-app.bad.toml:5:1: app.pbts_enable_height: is 3 but pbts_enable_height is 2: set one of them`,
	}
}

// TestPBTSApp: with the e2e app, pbts_enable_height is also the app's
// setting, either way round.
func TestPBTSApp(t *testing.T) {
	for _, c := range []struct {
		name string
		set  func(m *Manifest) error
	}{
		{"manifest key", func(m *Manifest) error { return m.Set("pbts_enable_height", "3") }},
		{"app key", func(m *Manifest) error { return m.Set("app.pbts_enable_height", "3") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := Default()
			m.CometBFTVersion = "v1.0.1"
			if err := m.Set("app", "e2e"); err != nil {
				t.Fatal(err)
			}
			if err := c.set(&m); err != nil {
				t.Fatal(err)
			}
			r, err := m.Resolve()
			if err != nil {
				t.Fatal(err)
			}
			if r.PBTSEnableHeight != 3 || r.AppConfig["pbts_enable_height"] != int64(3) {
				t.Errorf("pbts_enable_height %d, app's %v: want 3 and 3", r.PBTSEnableHeight, r.AppConfig["pbts_enable_height"])
			}
		})
	}
	m := Default()
	if err := m.Set("pbts_enable_height", "x"); err == nil || !strings.Contains(err.Error(), "want an integer") {
		t.Errorf("pbts_enable_height=x: %v", err)
	}
}
