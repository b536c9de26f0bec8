package manifest

import "testing"

func init() {
	const why = `mempool lanes (v2.0's e2e app) are not mapped by cometlab: the app reads a transaction's lane from ` +
		`loadtime's payload field 7 (a string, v2.0), where cometlab's payload carries its connection index, so cometlab's load ` +
		`cannot pick a lane: CheckTx names none, and every transaction goes to the mempool's default lane`
	badManifests["app-lanes.bad.toml"] = []string{
		`app-lanes.bad.toml:7:2: app.lanes: ` + why,
		`app-lanes.bad.toml:5:1: app.no_lanes: ` + why + ` (no_lanes may only be false, its default)`,
	}
}

// TestAppLanes: of the [app] keys that configure lanes, only no_lanes =
// false (the e2e app's default) is accepted.
func TestAppLanes(t *testing.T) {
	for _, c := range []struct {
		key, value string
		refused    bool
	}{
		{"no_lanes", "false", false},
		{"no_lanes", "true", true},
		{"lanes", "{}", true},
	} {
		t.Run(c.key+"="+c.value, func(t *testing.T) {
			m := Default()
			m.CometBFTVersion = "v2.0.0-rc1"
			if err := m.Set("app", "e2e"); err != nil {
				t.Fatal(err)
			}
			if err := m.Set("app."+c.key, c.value); err != nil {
				t.Fatal(err)
			}
			_, err := m.Resolve()
			if (err != nil) != c.refused {
				t.Fatalf("refused = %v, want %v: %v", err != nil, c.refused, err)
			}
		})
	}
}
