package manifest

import (
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/payload"
)

func init() {
	badManifests["app-lanes.bad.toml"] = []string{
		`app-lanes.bad.toml:7:2: app.lanes: lane "foo": priority 0, want an integer in [1, 4294967295]`,
		`app-lanes.bad.toml:5:1: app.no_lanes: must be a boolean`,
		`app-lanes.bad.toml:12:1: load.lane_weights: no lane "baz": the app's lanes are "bar" (priority 2), "foo" (priority 0)`,
	}
}

// TestResolveLanes: [load] lane_weights on v2.0's e2e app gives the load
// its lanes, by id; every way it cannot is refused naming the key.
func TestResolveLanes(t *testing.T) {
	for _, c := range []struct {
		name    string
		version string
		set     map[string]string // keys to Set, in order of the slice below
		keys    []string
		want    []payload.LaneWeight
		refused string
	}{
		{"default lanes", "v2.0.0-rc1", map[string]string{"app": "e2e", "load.lane_weights": `{"100" = 1, "1" = 3}`},
			[]string{"app", "load.lane_weights"}, []payload.LaneWeight{{ID: "1", Weight: 3}, {ID: "100", Weight: 1}}, ""},
		{"own lanes", "v2.0.0-rc1", map[string]string{"app": "e2e", "app.lanes": `{hi = 9, lo = 1}`, "load.lane_weights": `{hi = 1, lo = 0}`},
			[]string{"app", "app.lanes", "load.lane_weights"}, []payload.LaneWeight{{ID: "hi", Weight: 1}, {ID: "lo", Weight: 0}}, ""},
		{"kvstore", "v2.0.0-rc1", map[string]string{"load.lane_weights": `{"100" = 1}`},
			[]string{"load.lane_weights"}, nil, `mempool lanes are the e2e app's (app = "e2e", a v2.0 release): the kvstore app names no lane`},
		{"v0.40", "v0.40.0", map[string]string{"app": "e2e", "load.lane_weights": `{"100" = 1}`},
			[]string{"app", "load.lane_weights"}, nil, "the e2e app of v0.40.0 has no mempool lanes"},
		{"no_lanes", "v2.0.0-rc1", map[string]string{"app": "e2e", "app.no_lanes": "true", "load.lane_weights": `{"100" = 1}`},
			[]string{"app", "app.no_lanes", "load.lane_weights"}, nil, "no_lanes = true turns the app's lanes off"},
		{"unknown lane", "v2.0.0-rc1", map[string]string{"app": "e2e", "load.lane_weights": `{"7" = 1}`},
			[]string{"app", "load.lane_weights"}, nil, `no lane "7": the app's lanes are "100" (priority 100), "50" (priority 50)`},
		{"all zero", "v2.0.0-rc1", map[string]string{"app": "e2e", "load.lane_weights": `{"100" = 0}`},
			[]string{"app", "load.lane_weights"}, nil, "every weight is 0"},
		{"too small", "v2.0.0-rc1", map[string]string{"app": "e2e", "load.size": "190", "load.lane_weights": `{"100" = 1}`},
			[]string{"app", "load.size", "load.lane_weights"}, nil, "190 bytes do not hold a payload with a lane id of 3 bytes: at least 200"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := Default()
			m.CometBFTVersion = c.version
			for _, k := range c.keys {
				if err := m.Set(k, c.set[k]); err != nil {
					t.Fatalf("Set %s: %v", k, err)
				}
			}
			r, err := m.Resolve()
			if c.refused != "" {
				if err == nil || !strings.Contains(err.Error(), c.refused) {
					t.Fatalf("Resolve: %v, want an error with %q", err, c.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Load.Lanes) != len(c.want) {
				t.Fatalf("lanes %v, want %v", r.Load.Lanes, c.want)
			}
			for i := range c.want {
				if r.Load.Lanes[i] != c.want[i] {
					t.Errorf("lanes %v, want %v", r.Load.Lanes, c.want)
				}
			}
			// The resolved manifest written and read again keeps them.
			text, err := Encode(r)
			if err != nil {
				t.Fatal(err)
			}
			again, err := Parse("manifest.toml", text)
			if err != nil {
				t.Fatal(err)
			}
			r2, err := again.Resolve()
			if err != nil || len(r2.Load.Lanes) != len(c.want) {
				t.Errorf("re-read: lanes %v, %v", r2.Load.Lanes, err)
			}
		})
	}
}

// TestAppLanes: no_lanes (a boolean) and lanes (ids → priorities) are
// the e2e app's settings on v2.0, and AppLanes reads them.
func TestAppLanes(t *testing.T) {
	if got := AppLanes(nil); len(got) != 5 || got["100"] != 100 {
		t.Errorf("AppLanes(nil) = %v, want the app's five defaults", got)
	}
	if got := AppLanes(map[string]any{"no_lanes": true}); got != nil {
		t.Errorf("no_lanes: %v", got)
	}
	if got := AppLanes(map[string]any{"lanes": map[string]any{"a": int64(3)}}); len(got) != 1 || got["a"] != 3 {
		t.Errorf("own lanes: %v", got)
	}
	for _, c := range []struct {
		key, value string
		refused    bool
	}{
		{"no_lanes", "false", false},
		{"no_lanes", "true", false},
		{"lanes", "{a = 1}", false},
		{"lanes", "{}", true},
		{"lanes", "{a = 0}", true},
		{"lanes", `{a = "x"}`, true},
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
