package manifest

import (
	"errors"
	"io/fs"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/shape"
)

// fixtures is where the *.good.toml and *.bad.toml manifests live.
const fixtures = "../../testdata/manifests"

// defaultLoad is the [load] of Default, resolved, with target validator01.
var defaultLoad = Workload{
	Connections:   1,
	Rate:          200,
	Size:          1024,
	Duration:      60 * time.Second,
	Pacing:        PacingEven,
	Target:        "validator01",
	DrainTimeout:  60 * time.Second,
	LateThreshold: 10 * time.Millisecond,
}

func validators(n int, version string) []Node {
	var nodes []Node
	for i := 1; i <= n; i++ {
		nodes = append(nodes, Node{Name: "validator0" + string(rune('0'+i)), Mode: ModeValidator, Power: 1, Version: version, Config: map[string]any{}})
	}
	return nodes
}

// goodManifests are the *.good.toml fixtures and what they resolve to
// (an entry without a key type has the default).
var goodManifests = map[string]Resolved{
	"empty.good.toml": {
		Name: "default", CometBFTVersion: "v0.40.0", App: "kvstore", LogLevel: "state:info,*:error", Links: "direct", Topology: "mesh",
		Config: map[string]any{},
		Nodes:  validators(4, "v0.40.0"),
		Load:   defaultLoad,
	},
	"default-explicit.good.toml": {
		Name: "default", CometBFTVersion: "v0.40.0", App: "kvstore", LogLevel: "state:info,*:error", Links: "direct", Topology: "mesh",
		Config: map[string]any{"mempool.size": int64(5000)},
		Nodes: []Node{
			{Name: "validator01", Mode: ModeValidator, Power: 1, Version: "v0.40.0", Config: map[string]any{"mempool.size": int64(10000)}},
		},
		Load: defaultLoad,
	},
	"full.good.toml": {
		Name: "full", CometBFTVersion: "v0.38.17", App: "kvstore", LogLevel: "consensus:debug,*:error", Links: "direct", Topology: "mesh",
		Config: map[string]any{"consensus.timeout_commit": "1s", "p2p.flush_throttle_timeout": "10ms"},
		Nodes: []Node{
			{Name: "val-b", Mode: ModeValidator, Power: 20, Version: "v0.39.0-rc.1", Config: map[string]any{"consensus.timeout_commit": "1s", "p2p.flush_throttle_timeout": "10ms"}},
			{Name: "val_a", Mode: ModeValidator, Power: 10, Version: "v0.38.17", Config: map[string]any{"consensus.timeout_commit": "1s", "p2p.flush_throttle_timeout": "10ms"}},
		},
		Load: Workload{Connections: 4, Rate: 12.5, Size: 2048, Duration: 150 * time.Second, Pacing: PacingBurst,
			Target: "val_a", DrainTimeout: 0, LateThreshold: 5 * time.Millisecond},
	},
	"mixed.good.toml": {
		Name: "mixed", CometBFTVersion: "v0.40.0", App: "kvstore", LogLevel: "state:info,*:error", Links: "direct", Topology: "mesh",
		Config: map[string]any{},
		Nodes: []Node{
			{Name: "validator01", Mode: ModeValidator, Power: 3, Version: "v0.40.0", Config: map[string]any{}},
			{Name: "validator02", Mode: ModeValidator, Power: 1, Version: "v0.40.0", Config: map[string]any{}},
			{Name: "full01", Mode: ModeFull, Version: "v0.37.15", Config: map[string]any{}},
			{Name: "full02", Mode: ModeFull, Version: "v0.40.0", Config: map[string]any{}},
			{Name: "seed01", Mode: ModeSeed, Version: "v0.40.0", Config: map[string]any{}},
		},
		Load: func() Workload { l := defaultLoad; l.Target = "full01"; return l }(),
	},
	"config-forms.good.toml": {
		Name: "default", CometBFTVersion: "v0.40.0", App: "kvstore", LogLevel: "state:info,*:error", Links: "direct", Topology: "mesh",
		Config: baseConfig(nil),
		Nodes: []Node{
			{Name: "validator01", Mode: ModeValidator, Power: 1, Version: "v0.40.0",
				Config: baseConfig(map[string]any{"mempool.size": int64(10000), "mempool.recheck": false})},
			{Name: "full01", Mode: ModeFull, Version: "v0.40.0",
				Config: baseConfig(map[string]any{"mempool.size": int64(1), "p2p.pex": true})},
		},
		Load: defaultLoad,
	},
	"app-e2e.good.toml": {
		Name: "default", CometBFTVersion: "v0.40.0", App: "e2e", LogLevel: "state:info,*:error", Links: "direct", Topology: "mesh",
		AppConfig: map[string]any{"vote_extension_size": int64(2048), "retain_blocks": int64(100), "vote_extensions_enable_height": int64(1)},
		Config:    map[string]any{},
		Nodes:     validators(4, "v0.40.0"),
		Load:      defaultLoad,
	},
	"app-external.good.toml": {
		Name: "default", CometBFTVersion: "v0.40.0", App: "external", LogLevel: "state:info,*:error", Links: "direct", Topology: "mesh",
		AppConfig: map[string]any{"command": []any{"./myappd", "start", "--address", "{addr}", "--home", "{home}/app"}, "abci": "grpc"},
		Config:    map[string]any{},
		Nodes:     validators(4, "v0.40.0"),
		Load:      defaultLoad,
	},
	"app-sdk.good.toml": {
		Name: "default", CometBFTVersion: "v0.40.0", App: "sdk", LogLevel: "state:info,*:error", Links: "direct", Topology: "mesh",
		AppConfig: map[string]any{"sdk_version": "v0.55.0", "accounts": int64(200), "amount": int64(1), "fee": int64(10), "gas": int64(100000), "unordered": false, "outputs": int64(0),
			"bech32_prefix": "cosmos", "denom": "stake"},
		Config: map[string]any{},
		Nodes:  validators(4, "v0.40.0"),
		Load:   func() Workload { l := defaultLoad; l.Sync = true; return l }(), // every CheckTx verdict in the replies
	},
	"app-sdk-binary.good.toml": {
		Name: "default", CometBFTVersion: "v0.38.26", App: "sdk", LogLevel: "state:info,*:error", Links: "direct", Topology: "mesh",
		AppConfig: map[string]any{"accounts": int64(100), "amount": int64(1), "fee": int64(0), "gas": int64(100000), "unordered": false, "outputs": int64(0),
			"sdk_binary": "/bin/sh", "bech32_prefix": "lab", "denom": "ulab"},
		Config: map[string]any{},
		Nodes:  validators(4, "v0.38.26"),
		Load:   func() Workload { l := defaultLoad; l.Sync = true; return l }(),
	},
	"binary.good.toml": {
		Name: "default", CometBFTBinary: "/opt/cometbft/bin/cometbft", App: "kvstore", LogLevel: "state:info,*:error", Links: "direct", Topology: "mesh",
		Config: map[string]any{},
		Nodes: []Node{
			{Name: "new", Mode: ModeValidator, Power: 1, Config: map[string]any{}},
			{Name: "old", Mode: ModeValidator, Power: 1, Version: "v0.38.0", Config: map[string]any{}},
		},
		Load: func() Workload { l := defaultLoad; l.Rate, l.Duration, l.Target = 1000, time.Second, "new"; return l }(),
	},
	"shape-ramp.good.toml":   shaped(400, 40*time.Second, 1, shape.Spec{Kind: shape.Ramp, RateTo: 2400}),
	"shape-steps.good.toml":  shaped(200, 90*time.Second, 1, shape.Spec{Kind: shape.Ramp, Steps: []float64{200, 400, 800}, Step: 30 * time.Second}),
	"shape-square.good.toml": shaped(300, time.Minute, 2, shape.Spec{Kind: shape.Square, On: 20 * time.Second, Off: 10 * time.Second}),
	"shape-sine.good.toml":   shaped(500, 2*time.Minute, 1, shape.Spec{Kind: shape.Sine, Amplitude: 300, Period: time.Minute}),
	"shape-trace.good.toml": func() Resolved {
		r := shaped(200, 90*time.Second, 1, shape.Spec{Kind: shape.Trace,
			Trace: []shape.Point{{Offset: 0, Rate: 200}, {Offset: 30 * time.Second, Rate: 800}, {Offset: time.Minute, Rate: 400}}})
		abs, _ := filepath.Abs(filepath.Join(fixtures, "trace.csv"))
		r.Load.TraceFile = abs
		return r
	}(),
}

// withKeyType gives a goodManifests entry without a key type the
// default one.
func withKeyType(r Resolved) Resolved {
	if r.KeyType == "" {
		r.KeyType = DefaultKeyType
	}
	return r
}

// shaped is the default testnet with a shaped load.
func shaped(rate float64, d time.Duration, c int, s shape.Spec) Resolved {
	l := defaultLoad
	l.Rate, l.Duration, l.Connections, l.Shape = rate, d, c, s
	return Resolved{
		Name: "default", CometBFTVersion: "v0.40.0", App: "kvstore", LogLevel: "state:info,*:error", Links: "direct", Topology: "mesh",
		Config: map[string]any{}, Nodes: validators(4, "v0.40.0"), Load: l,
	}
}

// TestShapeExpectedTxs checks that the expected count follows the shape.
func TestShapeExpectedTxs(t *testing.T) {
	for name, want := range map[string]int64{
		"shape-ramp.good.toml":   (400 + 2400) / 2 * 40,
		"shape-steps.good.toml":  (200 + 400 + 800) * 30,
		"shape-square.good.toml": 2 * 300 * 40,
		"shape-sine.good.toml":   500 * 120,
		"shape-trace.good.toml":  (200 + 800 + 400) * 30,
	} {
		if got := goodManifests[name].Load.ExpectedTxs(); got != want {
			t.Errorf("%s: ExpectedTxs = %d, want %d", name, got, want)
		}
	}
}

func init() {
	goodManifests["perturb.good.toml"] = perturbed(2*time.Minute, "v0.40.0",
		Perturbation{Node: "validator01", Action: ActionWipe, At: time.Minute, Count: 1},
		Perturbation{Node: "validator02", Action: ActionPause, Height: 50, Down: 5 * time.Second, Count: 1},
		Perturbation{Node: "validator03", Action: ActionKill, At: 20 * time.Second, Down: 5 * time.Second, Every: time.Minute, Count: 2},
		Perturbation{Node: "validator04", Action: ActionRestart, At: 40 * time.Second, Count: 1})
	seq := perturbed(2*time.Minute, "v0.40.0",
		Perturbation{Node: "validator03", Action: ActionDisconnect, At: 5 * time.Second, Down: 10 * time.Second, Count: 1},
		Perturbation{Name: "validator03-kill", Node: "validator03", Action: ActionKill, At: 80 * time.Second, Down: 5 * time.Second, Count: 1},
		Perturbation{Name: "validator03-pause", Node: "validator03", Action: ActionPause, At: 30 * time.Second, Down: 10 * time.Second, Every: 20 * time.Second, Count: 2})
	seq.Links = LinksRelay // a disconnect
	vu := perturbed(time.Minute, "v0.40.0")
	vu.App, vu.AppConfig = AppE2E, map[string]any{"vote_extensions_enable_height": int64(1)}
	vu.ValidatorUpdates = []ValidatorUpdate{{Height: 10, Node: "validator01", Power: 5}, {Height: 20, Node: "validator04", Power: 0}}
	goodManifests["valupdate.good.toml"] = vu
	ss := perturbed(time.Minute, "v0.40.0")
	ss.App, ss.AppConfig = AppE2E, map[string]any{"vote_extensions_enable_height": int64(1), "snapshot_interval": int64(5)}
	ss.Nodes[3].StartAt, ss.Nodes[3].StateSync = 10, true
	goodManifests["statesync.good.toml"] = ss
	goodManifests["perturb-sequence.good.toml"] = seq
}

// perturbed is the default testnet of release version with a load of
// duration d and perturbations ps, resolved.
func perturbed(d time.Duration, version string, ps ...Perturbation) Resolved {
	l := defaultLoad
	l.Duration = d
	return Resolved{
		Name: "default", CometBFTVersion: version, App: "kvstore", LogLevel: "state:info,*:error", Links: "direct", Topology: "mesh",
		Config: map[string]any{}, Nodes: validators(4, version), Load: l, Perturbations: ps,
	}
}

func init() {
	nodes := validators(4, "v0.40.0")
	for _, n := range []string{"ephemeral01", "ephemeral02"} {
		nodes = append(nodes, Node{Name: n, Mode: ModeFull, Version: "v0.40.0", Config: map[string]any{}, Ephemeral: true})
	}
	goodManifests["rotate.good.toml"] = Resolved{
		Name: "default", CometBFTVersion: "v0.40.0", App: "kvstore", LogLevel: "state:info,*:error", Links: "direct", Topology: "mesh",
		Config: map[string]any{}, Nodes: nodes, Load: defaultLoad,
		Rotate: &Rotation{Nodes: []string{"ephemeral01", "ephemeral02"}, Dwell: 5 * time.Second},
	}
}

// baseConfig is config-forms.good.toml's [config], with extra laid over it.
func baseConfig(extra map[string]any) map[string]any {
	c := map[string]any{
		"mempool.size":                   int64(5000),
		"consensus.timeout_commit":       "1s",
		"p2p.pex":                        false,
		"rpc.max_open_connections":       int64(0),
		"instrumentation.prometheus":     true,
		"statesync.rpc_servers":          []any{"a:26657", "b:26657"},
		"mempool.cache_size":             1.0e4,
		"storage.discard_abci_responses": true,
	}
	for k, v := range extra {
		c[k] = v
	}
	return c
}

// fixtureNames returns the fixture file names ending in suffix.
func fixtureNames(t *testing.T, suffix string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(fixtures, "*"+suffix))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range paths {
		names = append(names, filepath.Base(p))
	}
	return names
}

// checkTable fails when the fixtures on disk and the table's keys differ.
func checkTable[V any](t *testing.T, suffix string, table map[string]V) {
	t.Helper()
	onDisk := fixtureNames(t, suffix)
	for _, name := range onDisk {
		if _, ok := table[name]; !ok {
			t.Errorf("%s has no entry in the test table", name)
		}
	}
	for name := range table {
		if !slices.Contains(onDisk, name) {
			t.Errorf("test table entry %s has no file in %s", name, fixtures)
		}
	}
}

func TestGoodManifests(t *testing.T) {
	checkTable(t, ".good.toml", goodManifests)
	for name, want := range goodManifests {
		t.Run(name, func(t *testing.T) {
			m, err := Load(filepath.Join(fixtures, name))
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if err := m.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			got, err := m.Resolve()
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			if want.TimeScale == 0 {
				want.TimeScale = 1 // real time, unless the fixture says
			}
			if want = withKeyType(want); !reflect.DeepEqual(got, want) {
				t.Errorf("Resolve:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestRoundTrip(t *testing.T) {
	for name := range goodManifests {
		t.Run(name, func(t *testing.T) {
			m, err := Load(filepath.Join(fixtures, name))
			if err != nil {
				t.Fatal(err)
			}
			want, err := m.Resolve()
			if err != nil {
				t.Fatal(err)
			}
			data, err := Encode(want)
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			again, err := Parse("encoded.toml", data)
			if err != nil {
				t.Fatalf("Parse(Encode(r)): %v\n%s", err, data)
			}
			got, err := again.Resolve()
			if err != nil {
				t.Fatalf("Resolve(Parse(Encode(r))): %v\n%s", err, data)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("round trip changed the manifest:\n got %+v\nwant %+v\nfile:\n%s", got, want, data)
			}
			if !strings.HasPrefix(string(data), "# cometlab resolved manifest") {
				t.Errorf("Encode output does not start with its header:\n%s", data)
			}
		})
	}
}

// exported returns m without the bookkeeping Parse adds.
func exported(m Manifest) Manifest {
	m.file, m.pos, m.origin = "", nil, nil
	return m
}

func TestDefault(t *testing.T) {
	m, err := Parse("empty.toml", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := exported(m), Default(); !reflect.DeepEqual(got, want) {
		t.Errorf("Parse of an empty file:\n got %+v\nwant %+v", got, want)
	}

	// The default made explicit (the documented example) differs from
	// Default only by its example [config] and [node] tables.
	m, err = Load(filepath.Join(fixtures, "default-explicit.good.toml"))
	if err != nil {
		t.Fatal(err)
	}
	got := exported(m)
	got.Config, got.Nodes = nil, nil
	if want := Default(); !reflect.DeepEqual(got, want) {
		t.Errorf("default-explicit.good.toml:\n got %+v\nwant %+v", got, want)
	}

	// Default returns fresh values: changing one changes no other.
	a := Default()
	a.Config = map[string]any{"x": 1}
	if b := Default(); b.Config != nil {
		t.Error("Default shares its Config map")
	}
}

func TestGeneratedValidatorNames(t *testing.T) {
	for _, tc := range []struct {
		n           int
		first, last string
	}{
		{1, "validator01", "validator01"},
		{12, "validator01", "validator12"},
		{32, "validator01", "validator32"}, // bench/scale.sh's largest
		{100, "validator001", "validator100"},
	} {
		t.Run(tc.last, func(t *testing.T) {
			m := Default()
			m.Validators = tc.n
			r, err := m.Resolve()
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Nodes) != tc.n || r.Nodes[0].Name != tc.first || r.Nodes[tc.n-1].Name != tc.last {
				t.Errorf("got %d nodes %q … %q, want %d nodes %q … %q",
					len(r.Nodes), r.Nodes[0].Name, r.Nodes[len(r.Nodes)-1].Name, tc.n, tc.first, tc.last)
			}
			if !slices.IsSortedFunc(r.Nodes, func(a, b Node) int { return strings.Compare(a.Name, b.Name) }) {
				t.Error("generated validators are not in name order")
			}
		})
	}
}

func TestExpectedTxs(t *testing.T) {
	for _, tc := range []struct {
		name string
		l    Workload
		want int64
	}{
		{"default", defaultLoad, 12000},
		{"several connections", Workload{Connections: 4, Rate: 400, Duration: 90 * time.Second}, 144000},
		{"fractional rate", Workload{Connections: 1, Rate: 2.5, Duration: 3 * time.Second}, 7},
		{"float product just below an integer", Workload{Connections: 1, Rate: 4.35, Duration: 100 * time.Second}, 435},
		{"sub-second duration", Workload{Connections: 2, Rate: 100, Duration: 1500 * time.Millisecond}, 300},
		{"rounded down", Workload{Connections: 1, Rate: 3, Duration: 1900 * time.Millisecond}, 5},
		{"large, not rounded up", Workload{Connections: 1, Rate: 1e9 + 0.5, Duration: time.Second}, 1e9},
		{"overflow", Workload{Connections: 1 << 40, Rate: 1e9, Duration: time.Hour}, math.MaxInt64},
		{"zero", Workload{}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.l.ExpectedTxs(); got != tc.want {
				t.Errorf("ExpectedTxs() = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestKeyPositions(t *testing.T) {
	doc := "name = 'x'\n" +
		"[config]\n" +
		"mempool.size = 1\n" +
		"  'p2p.pex' = true\n" +
		"[node.a]\n" +
		"config = { 'rpc.laddr' = 'x', consensus = { timeout_commit = '1s' } }\n" +
		"load.rate = 5\n" +
		"[config]\n" +
		"'mempool.size' = 2\n"
	pos := keyPositions([]byte(doc))
	for key, want := range map[string][]position{
		"name":                                   {{1, 1}},
		"config":                                 {{2, 2}, {8, 2}},
		"config.mempool":                         {{3, 1}},
		"config.mempool.size":                    {{3, 1}, {9, 1}},
		"config.p2p.pex":                         {{4, 3}},
		"node":                                   {{5, 2}},
		"node.a":                                 {{5, 2}},
		"node.a.config":                          {{6, 1}},
		"node.a.config.rpc.laddr":                {{6, 12}},
		"node.a.config.consensus":                {{6, 31}},
		"node.a.config.consensus.timeout_commit": {{6, 45}},
		"node.a.load":                            {{7, 1}},
		"node.a.load.rate":                       {{7, 1}},
	} {
		if got := pos[key]; !slices.Equal(got, want) {
			t.Errorf("positions of %q = %v, want %v", key, got, want)
		}
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope.toml"))
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "nope.toml") {
		t.Errorf("Load of a missing file: %v, want a not-exist error naming the file", err)
	}
}
