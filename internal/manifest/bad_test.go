package manifest

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// badManifests are the *.bad.toml fixtures and substrings their error must
// contain, each naming the file's line (and column) and key.
var badManifests = map[string][]string{
	"syntax.bad.toml":           {"syntax.bad.toml:2:6: expected ']' to close table name"},
	"wrong-type.bad.toml":       {"wrong-type.bad.toml:3:12: load.duration: wrong type: want a string, got a TOML integer"},
	"wrong-type-table.bad.toml": {"wrong-type-table.bad.toml:2:8: load: wrong type: want a table, got a TOML integer"},
	"unknown-keys.bad.toml": {
		"unknown-keys.bad.toml:3:1: valdators: unknown field",
		"unknown-keys.bad.toml:6:1: load.rtae: unknown field",
		"unknown-keys.bad.toml:9:1: node.validator01.powr: unknown field",
		"unknown-keys.bad.toml:11:2: lod: unknown table",
	},
	"duplicate-node.bad.toml":      {"duplicate-node.bad.toml:4:2: node.validator01: table validator01 already exists"},
	"config-conflict.bad.toml":     {"config-conflict.bad.toml:3:1: config.mempool.size: set twice (again on line 4)"},
	"config-prefix.bad.toml":       {"config-prefix.bad.toml:2:1: config.mempool: is both a value and a table: config.mempool.size is set too (line 3)"},
	"node-config-clash.bad.toml":   {"node-config-clash.bad.toml:5:12: node.validator01.config.mempool: clashes with the testnet's [config]: config.mempool.size (line 2)"},
	"rate-zero.bad.toml":           {"rate-zero.bad.toml:2:1: load.rate: must be > 0"},
	"rate-inf.bad.toml":            {"rate-inf.bad.toml:2:1: load.rate: must be > 0 and finite, got +Inf"},
	"connections.bad.toml":         {"connections.bad.toml:2:1: load.connections: must be >= 1, got 0"},
	"size-odd.bad.toml":            {"size-odd.bad.toml:2:1: load.size: must be even, got 1025"},
	"size-small.bad.toml":          {"size-small.bad.toml:2:1: load.size: must be >= 190"},
	"size-large.bad.toml":          {"size-large.bad.toml:2:1: load.size: must be <= 4194304 (4 MiB)"},
	"duration-negative.bad.toml":   {"duration-negative.bad.toml:2:1: load.duration: must be > 0, got -5s"},
	"duration-unparsable.bad.toml": {`duration-unparsable.bad.toml:2:1: load.duration: invalid duration "a minute"`},
	"drain-negative.bad.toml":      {"drain-negative.bad.toml:2:1: load.drain_timeout: must be >= 0, got -1s"},
	"late-zero.bad.toml":           {"late-zero.bad.toml:2:1: load.late_threshold: must be > 0, got 0s"},
	"pacing.bad.toml":              {`pacing.bad.toml:2:1: load.pacing: invalid pacing "poisson"`},
	"app.bad.toml":                 {`app.bad.toml:1:1: app: unsupported app "tendermint-app"`},
	"app-settings.bad.toml": {
		`app-settings.bad.toml:6:1: app.chain_id: "chain_id" is set by cometlab`,
		`app-settings.bad.toml:5:1: app.vote_extension_size: the e2e app of v0.38.26 has no key "vote_extension_size" (it takes: persist_interval, retain_blocks,`,
	},
	"app-kvstore-settings.bad.toml": {`app-kvstore-settings.bad.toml:2:1: app.snapshot_interval: app settings are for the e2e app (kind = "e2e")`},
	"app-sdk.bad.toml": {
		"app-sdk.bad.toml:7:1: app.amount: must be a positive integer, got 0",
		"app-sdk.bad.toml:8:1: app.sdk_version: cometlab's SDK chain is built for v0.53.8, v0.55.0, got v0.47.0",
		"app-sdk.bad.toml:9:1: app.moniker: unknown key for app = \"sdk\" (it takes: accounts, amount, bech32_prefix, denom, fee, gas, outputs, sdk_binary, sdk_version, unordered)",
		"app-sdk.bad.toml:1:1: cometbft_version: SDK v0.55.0 is built with CometBFT v0.40.0, and validator01, validator02, validator03, validator04 ask for v0.38.26",
		"app-sdk.bad.toml:2:1: key_type: cometlab's SDK chain makes its validators from ed25519 consensus keys",
		"app-sdk.bad.toml:14:1: load.txs: with app = \"sdk\" the load is the chain's signed bank sends",
		"app-sdk.bad.toml:6:1: app.accounts: 2 accounts for 4 connections",
		"app-sdk.bad.toml:10:1: app.outputs: 2 outputs from 2 accounts",
	},
	"app-sdk-binary.bad.toml": {
		"app-sdk-binary.bad.toml:7:1: app.bech32_prefix: must be an address prefix (lower-case letters and digits, starting with a letter), got \"Lab-1\"",
		"app-sdk-binary.bad.toml:8:1: app.denom: must be an SDK denom",
		"app-sdk-binary.bad.toml:6:1: app.sdk_version: builds cometlab's own chain; with sdk_binary the node is your chain's daemon",
		"app-sdk-binary.bad.toml:5:1: app.sdk_binary: say which CometBFT release your chain links: cometbft_version = \"vX.Y.Z\" (`sh version --long` lists it)",
	},
	"app-sdk-missing.bad.toml": {`app-sdk-missing.bad.toml:5:1: app.sdk_binary: "no-such-daemon-on-path" is not on PATH: give its path`},
	"app-external.bad.toml": {
		`app-external.bad.toml:3:1: app.abci: must be "socket" or "grpc", got http`,
		"app-external.bad.toml:2:1: app.command: must be a non-empty list of non-empty strings",
		"app-external.bad.toml:4:1: app.retain_blocks: unknown key for an external app (it takes command and abci)",
	},
	"app-binary.bad.toml":    {"app-binary.bad.toml:2:1: app: the e2e app is built from a CometBFT release"},
	"version.bad.toml":       {`version.bad.toml:1:1: cometbft_version: malformed version "0.38.17"`},
	"version-empty.bad.toml": {"version-empty.bad.toml:1:1: cometbft_version: must be set when cometbft_binary and cometbft_source are empty"},
	"node-version.bad.toml":  {`node-version.bad.toml:2:1: node.a.cometbft_version: malformed version "v1.0"`},
	"source-not-tree.bad.toml": {"source-not-tree.bad.toml:1:1: cometbft_source: not a CometBFT source tree: " +
		"../../testdata/trees/not-cometbft/go.mod declares module example.com/notcometbft, not CometBFT's"},
	"source-line.bad.toml": {"source-line.bad.toml:1:1: cometbft_source: release line unknown: ../../testdata/trees/v9: " +
		`version "9.1.0" (module github.com/cometbft/cometbft) is of no release line cometlab knows`},
	"source-binary.bad.toml":  {"source-binary.bad.toml:2:1: cometbft_source: cometbft_binary is a binary cometlab does not build: set one of cometbft_binary and cometbft_source"},
	"source-version.bad.toml": {"source-version.bad.toml:2:1: cometbft_source: a tree's release is read from its version file: set cometbft_version or cometbft_source, not both"},
	"patch-missing.bad.toml":  {"patch-missing.bad.toml:1:1: cometbft_patches: ../../testdata/patches/no-such.diff: no such file"},
	"node-source.bad.toml":    {"node-source.bad.toml:4:1: node.a.cometbft_source: a tree's release is read from its version file"},
	// A capability is judged on the tree's line: v0.39 has no ML-DSA keys.
	"source-keytype.bad.toml": {`source-keytype.bad.toml:2:1: key_type: "ml_dsa_65": `},
	"mode.bad.toml":           {`mode.bad.toml:2:1: node.a.mode: invalid mode "light"`},
	"node-name.bad.toml": {
		"node-name.bad.toml:1:2: node.Validator01: invalid node name",
		`node-name.bad.toml:3:2: node."my node": invalid node name`,
	},
	"power-zero.bad.toml":     {"power-zero.bad.toml:2:1: node.a.power: must be >= 1 for a validator, got 0"},
	"power-full.bad.toml":     {`power-full.bad.toml:5:1: node.b.power: only validators have voting power (mode is "full")`},
	"no-validator.bad.toml":   {"no-validator.bad.toml:2:2: node: no validator"},
	"target-unknown.bad.toml": {`target-unknown.bad.toml:4:1: load.target: no node named "validator03"`},
	"target-seed.bad.toml":    {`target-seed.bad.toml:7:1: load.target: node "s" is a seed`},
	"validators.bad.toml":     {"validators.bad.toml:1:1: validators: must be between 1 and 1000, got 0"},
	"name.bad.toml":           {"name.bad.toml:1:1: name: must not be empty"},
	"multi.bad.toml":          multiErrors,
	"links.bad.toml":          {`links.bad.toml:1:1: links: a disconnect perturbation needs links = "relay" (or "auto")`},
	"links-seed.bad.toml":     {"links-seed.bad.toml:1:1: links: relayed links of the mesh turn the peer exchange off, which seed s1 needs"},
	"topology.bad.toml":       {`topology.bad.toml:1:1: topology: invalid topology "ring" (want "mesh", "seeds" or "as-written")`},
	"topology-lists.bad.toml": {`topology-lists.bad.toml:4:1: node.validator01.seeds: a node's peers are taken with topology = "as-written" (topology is "mesh")`},
	"topology-names.bad.toml": {
		"topology-names.bad.toml:2:1: node.validator01.persistent_peers: names the node itself",
		`topology-names.bad.toml:2:1: node.validator01.persistent_peers: no node named "validator09"`,
		`topology-names.bad.toml:2:1: node.validator01.persistent_peers: names "validator02" twice`,
		`topology-names.bad.toml:4:1: node.validator02.seeds: node "ephemeral01" is a [rotate] ephemeral node`,
	},
	"topology-nopex.bad.toml":      {"topology-nopex.bad.toml:1:1: topology: node validator01 has seeds but p2p.pex = false"},
	"topology-seeds-none.bad.toml": {`topology-seeds-none.bad.toml:1:1: topology: topology "seeds" needs a node with mode = "seed"`},
	"links-mode.bad.toml":          {`links-mode.bad.toml:1:1: links: invalid links "wan" (want "auto", "direct" or "relay")`},
	"rotate.bad.toml": {
		"rotate.bad.toml:3:1: rotate.dwell: must be >= 0, got -1s",
		`rotate.bad.toml:6:1: load.target: node "ephemeral01" is a [rotate] ephemeral node`,
		`rotate.bad.toml:8:2: perturb.ephemeral01: node "ephemeral01" is a [rotate] ephemeral node`,
	},
	"rotate-many.bad.toml":  {"rotate-many.bad.toml:2:1: rotate.concurrency: must be between 0 and 16, got 17"},
	"rotate-clash.bad.toml": {"rotate-clash.bad.toml:2:2: node.ephemeral01: the name of a [rotate] ephemeral node"},
	"upgrade.bad.toml": {
		"upgrade.bad.toml:24:1: perturb.a.to: v1.0.0 is older than the node's release v1.0.1: a downgrade is refused",
		"upgrade.bad.toml:27:1: perturb.b.to: v0.38.26 → v1.0.1 crosses release lines and their stores are not compatible: the default db_backend is goleveldb in v0.38 and pebbledb in v1.0",
		"upgrade.bad.toml:30:1: perturb.c.to: v0.39.4 → v0.40.0 crosses release lines and their nodes cannot share a network: a block's time",
		`upgrade.bad.toml:33:1: perturb.d.to: version "v3.0.0" is of no release line cometlab knows`,
		"upgrade.bad.toml:35:1: perturb.e.action: an upgrade needs to, the release it starts the node with",
		`upgrade.bad.toml:38:1: perturb.f.to: only an upgrade has a to release (action is "kill")`,
		"upgrade.bad.toml:42:1: perturb.g.down: an upgrade has no down time",
		"upgrade.bad.toml:43:1: perturb.g.count: an upgrade happens once, got 2",
		"upgrade.bad.toml:44:1: perturb.g.every: an upgrade happens once: it has no every",
		"upgrade.bad.toml:47:1: perturb.h.to_source: not a CometBFT source tree: ../../testdata/trees/not-cometbft/go.mod declares module example.com/notcometbft",
		"upgrade.bad.toml:51:1: perturb.i.to_source: set to (a release) or to_source (a tree), not both",
		`upgrade.bad.toml:54:1: perturb.j.to_source: only an upgrade has a to_source tree (action is "kill")`,
		"upgrade.bad.toml:57:1: perturb.k.to_source: v0.40.0 is older than the node's release v1.0.1: a downgrade is refused",
	},
	"perturb-unknown.bad.toml": {"perturb-unknown.bad.toml:3:1: perturb.validator03.donw: unknown field"},
	"valupdate.bad.toml": {
		`valupdate.bad.toml:6:2: validator_update: the e2e app's validator updates (abci.UpdateValidator) carry ed25519 and secp256k1 keys only, not key_type "ml_dsa_65"`,
		`valupdate.bad.toml:6:2: validator_update.ten: the height must be an integer >= 0 (0 is InitChain), got "ten"`,
		`valupdate.bad.toml:9:1: validator_update.3.full01: no validator named "full01"`,
		"valupdate.bad.toml:10:1: validator_update.3.validator01: power must be 0 (removed) to 255 (the e2e app reads it as uint8), got 256",
		"valupdate.bad.toml:11:2: validator_update.4: leaves no validator with power from height 6",
	},
	"valupdate-app.bad.toml": {`valupdate-app.bad.toml:1:2: validator_update: validator updates are made by the e2e app (app = "e2e"), not by "kvstore"`},
	"statesync.bad.toml": {
		"statesync.bad.toml:6:1: node.validator04.state_sync: a node that joins by state sync starts late: set start_at",
		"statesync.bad.toml:9:1: node.validator05.state_sync: no other node takes snapshots: set snapshot_interval in [app] or a node's app settings",
	},
	"statesync-app.bad.toml": {`statesync-app.bad.toml:6:1: node.validator04.state_sync: the snapshots are the e2e app's (app = "e2e"): "kvstore" takes none`},
	"perturb-sequence.bad.toml": {
		"perturb-sequence.bad.toml:12:1: perturb.validator03-pause.at: node validator03 is still down from perturb.validator03 until 15s: its perturbations must not overlap",
		"perturb-sequence.bad.toml:17:1: perturb.validator03-late.height: node validator03's perturbations must all begin at times after the load starts, or all after the same height",
		"perturb-sequence.bad.toml:20:1: perturb.validator02.node: the table is named after node validator02: it perturbs that node, not \"validator01\"",
		"perturb-sequence.bad.toml:25:1: perturb.somebody.node: no node named \"nobody\"",
	},
	"perturb.bad.toml": {
		`perturb.bad.toml:5:1: perturb.validator03.action: invalid action "crash" (want kill, restart, pause, disconnect, wipe, upgrade)`,
		"perturb.bad.toml:6:1: perturb.validator03.at: begins at 1m10s, after the load ends (load.duration 1m0s)",
		"perturb.bad.toml:10:1: perturb.validator02.at: set at or height, not both",
		"perturb.bad.toml:13:1: perturb.validator02.every: must be longer than down (20s), got 10s",
		"perturb.bad.toml:18:1: perturb.validator04.down: a restart has no down time",
		"perturb.bad.toml:19:1: perturb.validator04.count: must be >= 1, got 0",
		`perturb.bad.toml:21:2: perturb.nobody: no node named "nobody"`,
		"perturb.bad.toml:23:1: perturb.nobody.count: is 2: every must be set too",
	},
	"shape-unknown.bad.toml": {`shape-unknown.bad.toml:2:1: load.shape: invalid shape "poisson"`},
	"shape-foreign-key.bad.toml": {
		`shape-foreign-key.bad.toml:4:1: load.on: only for shape = "square" (shape is "ramp")`,
		`shape-foreign-key.bad.toml:5:1: load.period: only for shape = "sine" (shape is "ramp")`,
	},
	"shape-missing.bad.toml":       {`shape-missing.bad.toml:2:1: load.shape: shape "square" needs off`},
	"shape-ramp-both.bad.toml":     {"shape-ramp-both.bad.toml:3:1: load.rate_to: give rate_to (a linear ramp) or steps, not both"},
	"shape-steps.bad.toml":         {"shape-steps.bad.toml:4:1: load.steps: step 2: must be >= 0 and finite, got -1"},
	"shape-steps-long.bad.toml":    {"shape-steps-long.bad.toml:4:1: load.steps: 3 steps of 30s: the last would start after the load ends (duration 1m0s)"},
	"shape-square.bad.toml":        {`shape-square.bad.toml:4:1: load.off: invalid duration "soon"`},
	"shape-burst.bad.toml":         {`shape-burst.bad.toml:2:1: load.pacing: burst pacing is for the constant shape only (shape is "square")`},
	"shape-trace-missing.bad.toml": {"shape-trace-missing.bad.toml:3:1: load.trace: trace: open no-such.csv: no such file"},
	"shape-trace.bad.toml": {
		"shape-trace.bad.toml:3:1: load.trace: bad-trace.csv:4: offset 20 s is not after the previous one (30 s): offsets must increase",
	},
	"shape-sine.bad.toml": {
		"shape-sine.bad.toml:4:1: load.amplitude: must be > 0 and <= rate (100), so the rate never goes below 0; got 150",
		"shape-sine.bad.toml:5:1: load.period: must be > 0, got -1s",
	},
}

// multiErrors is every problem in multi.bad.toml, in the order reported.
var multiErrors = []string{
	`multi.bad.toml:3:1: app: unsupported app "tendermint-app"`,
	`multi.bad.toml:4:1: cometbft_version: malformed version "latest"`,
	"multi.bad.toml:7:1: config.mempool.size: set twice (again on line 8)",
	"multi.bad.toml:11:1: node.v1.power: must be >= 1 for a validator, got 0",
	`multi.bad.toml:15:1: node.f1.power: only validators have voting power (mode is "full")`,
	`multi.bad.toml:18:1: node.x1.mode: invalid mode "observer"`,
	"multi.bad.toml:21:1: load.connections: must be >= 1, got 0",
	"multi.bad.toml:22:1: load.rate: must be > 0 and finite, got -1",
	"multi.bad.toml:23:1: load.size: must be even, got 1023",
	`multi.bad.toml:24:1: load.duration: invalid duration "forever"`,
	`multi.bad.toml:25:1: load.pacing: invalid pacing "random"`,
	`multi.bad.toml:26:1: load.target: no node named "nobody"`,
}

// loadAndResolve returns the error of Load, or else of Resolve.
func loadAndResolve(path string) error {
	m, err := Load(path)
	if err != nil {
		return err
	}
	_, err = m.Resolve()
	return err
}

func TestBadManifests(t *testing.T) {
	checkTable(t, ".bad.toml", badManifests)
	for name, wants := range badManifests {
		t.Run(name, func(t *testing.T) {
			err := loadAndResolve(filepath.Join(fixtures, name))
			if err == nil {
				t.Fatal("no error")
			}
			msg := strings.ReplaceAll(err.Error(), fixtures+"/", "")
			for _, want := range wants {
				if !strings.Contains(msg, want) {
					t.Errorf("error does not contain %q:\n%s", want, msg)
				}
			}
			if got := len(problemsOf(err)); got != len(wants) {
				t.Errorf("got %d problems, want %d:\n%s", got, len(wants), msg)
			}
			var e *Error
			if !errors.As(err, &e) || e.File != filepath.Join(fixtures, name) || e.Line == 0 {
				t.Errorf("errors.As(*Error) = %+v, want one naming the file and a line", e)
			}
		})
	}
}

// problemsOf returns the *Errors joined in err.
func problemsOf(err error) []*Error {
	var out []*Error
	if e, ok := err.(*Error); ok {
		return []*Error{e}
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			out = append(out, problemsOf(e)...)
		}
	}
	return out
}

// TestMultiError checks that one file's problems are all reported at once,
// one per line, in file order.
func TestMultiError(t *testing.T) {
	err := loadAndResolve(filepath.Join(fixtures, "multi.bad.toml"))
	if err == nil {
		t.Fatal("no error")
	}
	lines := strings.Split(strings.ReplaceAll(err.Error(), fixtures+"/", ""), "\n")
	if len(lines) != len(multiErrors) {
		t.Fatalf("got %d problems, want %d:\n%s", len(lines), len(multiErrors), err)
	}
	for i, want := range multiErrors {
		if !strings.HasPrefix(lines[i], want) {
			t.Errorf("problem %d = %q, want it to start with %q", i, lines[i], want)
		}
	}
}

func TestErrorString(t *testing.T) {
	for _, tc := range []struct {
		name string
		e    Error
		want string
	}{
		{"full", Error{File: "m.toml", Line: 7, Column: 1, Field: "load.rtae", Msg: "unknown field"}, "m.toml:7:1: load.rtae: unknown field"},
		{"no column", Error{File: "m.toml", Line: 7, Field: "load.rate", Msg: "bad"}, "m.toml:7: load.rate: bad"},
		{"default value", Error{File: "m.toml", Field: "load.target", Msg: "bad"}, "m.toml: load.target: bad"},
		{"no file", Error{Field: "load.rate", Msg: "bad"}, "load.rate: bad"},
		{"no file but a line", Error{Line: 3, Field: "app", Msg: "bad"}, "line 3: app: bad"},
		{"syntax", Error{File: "m.toml", Line: 2, Column: 6, Msg: "expected ']'"}, "m.toml:2:6: expected ']'"},
		{"flag", Error{File: "m.toml", Line: 9, Field: "load.rate", Flag: "--rate", Msg: "must be > 0"}, "--rate: must be > 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.e.Error(); got != tc.want {
				t.Errorf("Error() = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestManifestInCode checks errors for a manifest built in code: no file,
// no lines.
func TestManifestInCode(t *testing.T) {
	m := Default()
	m.Load.Rate = 0
	m.Nodes = map[string]ManifestNode{"a": {Mode: ModeFull}}
	err := m.Validate()
	want := "load.rate: must be > 0 and finite, got 0\nnode: no validator: at least one node needs mode = \"validator\""
	if err == nil || err.Error() != want {
		t.Errorf("Validate() = %v, want %q", err, want)
	}
}
