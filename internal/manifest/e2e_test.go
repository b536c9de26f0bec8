package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// e2eFixtures are the e2e manifests copied from CometBFT and qa-infra.
const e2eFixtures = "testdata/e2e"

// TestE2EFixtures reads every real e2e manifest and checks the outcome
// against a table (runs, runs with warnings under --lenient, or refused)
// and, in its golden file, the exact refusals, the warnings and the
// resolved manifest.
func TestE2EFixtures(t *testing.T) {
	want := map[string]string{
		"simple.toml":               "runs",
		"single.toml":               "cometlab", // [node.validator] alone reads the same in both formats
		"ci.toml":                   "refused",
		"varyVESize.toml":           "refused",
		"upgrade.toml":              "refused",
		"long.toml":                 "refused",
		"example.toml":              "runs",
		"rotating.toml":             "runs",
		"vote_extention.toml":       "runs",
		"200-nodes.toml":            "runs",
		"200-nodes-with-zones.toml": "runs",
		"mldsa65.toml":              "runs", // v0.40.0's post-quantum network
		"secp256k1eth.toml":         "runs",
		"libp2p-simple.toml":        "runs", // v0.40.0's libp2p networks
		"secp256k1eth-libp2p.toml":  "runs",
		"app-mempool-simple.toml":   "runs", // v0.40.0's app-side mempool networks
		"app-mempool-pertrub.toml":  "runs",
		"adaptive-sync.toml":        "runs", // state sync, and perturb = ["disconnect", "pause"]
	}
	paths, err := filepath.Glob(filepath.Join(e2eFixtures, "*.toml"))
	if err != nil || len(paths) != len(want) {
		t.Fatalf("fixtures %v (%v), want the %d of the table", paths, err, len(want))
	}
	for _, p := range paths {
		name := filepath.Base(p)
		t.Run(name, func(t *testing.T) {
			out, outcome := e2eOutcome(t, p)
			if outcome != want[name] {
				t.Errorf("%s: outcome %q, want %q\n%s", name, outcome, want[name], out)
			}
			resultstest.Golden(t, filepath.Join(e2eFixtures, "golden", strings.TrimSuffix(name, ".toml")+".txt"), []byte(out))
		})
	}
}

// e2eOutcome reads the fixture at path strictly, then leniently, and
// returns what each gave and the strict outcome: "runs", "refused" or
// "cometlab" (detected as cometlab's own format).
func e2eOutcome(t *testing.T, path string) (string, string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Base(path)
	format, reason := DetectFormat(data)
	var b strings.Builder
	b.WriteString("format: " + format + " (" + reason + ")\n")
	outcome := "runs"
	if format != FormatE2E {
		outcome = "cometlab"
	}
	for _, lenient := range []bool{false, true} {
		b.WriteString("\n== lenient=" + map[bool]string{false: "false", true: "true"}[lenient] + "\n")
		m, warnings, err := Read(name, data, ReadOptions{Format: FormatE2E, Lenient: lenient})
		var r Resolved
		if err == nil {
			r, err = m.Resolve()
		}
		for _, w := range warnings {
			b.WriteString("warning: " + w + "\n")
		}
		if err != nil {
			b.WriteString("refused:\n" + err.Error() + "\n")
			if !lenient && outcome == "runs" {
				outcome = "refused"
			}
			continue
		}
		enc, err := Encode(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(enc)
	}
	return b.String(), outcome
}

// TestE2ERefusals checks each kind of refusal, with its file:line:key.
func TestE2ENodeApp(t *testing.T) {
	for _, tc := range []struct {
		name, toml string
		app        map[string]any            // the testnet's [app], less what the e2e reader always sets
		nodes      map[string]map[string]any // each node's own app settings
	}{
		{"differs: the node's own", "[node.v]\n[node.w]\npersist_interval = 3\nretain_blocks = 20\n", map[string]any{},
			map[string]map[string]any{"w": {"persist_interval": int64(3), "retain_blocks": int64(20)}}},
		{"one for all: the testnet's", "[node.v]\nsnapshot_interval = 5\n[node.w]\nsnapshot_interval = 5\n", map[string]any{"snapshot_interval": int64(5)}, nil},
		{"the runner's default everywhere: the testnet's", "[node.v]\npersist_interval = 1\n[node.w]\n", map[string]any{"persist_interval": int64(1)}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _, err := Read("x.toml", []byte(tc.toml), ReadOptions{Format: FormatE2E})
			if err != nil {
				t.Fatal(err)
			}
			r, err := m.Resolve()
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tc.app {
				if r.AppConfig[k] != v {
					t.Errorf("[app] %s = %v, want %v (app %v)", k, r.AppConfig[k], v, r.AppConfig)
				}
			}
			for _, k := range []string{"persist_interval", "retain_blocks", "snapshot_interval"} {
				if _, set := r.AppConfig[k]; set && tc.app[k] == nil {
					t.Errorf("[app] has %s = %v, want it per node", k, r.AppConfig[k])
				}
			}
			for _, n := range r.Nodes {
				if !reflect.DeepEqual(n.App, tc.nodes[n.Name]) {
					t.Errorf("node %s app %v, want %v", n.Name, n.App, tc.nodes[n.Name])
				}
			}
		})
	}
}

func TestE2ERefusals(t *testing.T) {
	for _, tc := range []struct {
		name, toml, want string
		lenient          bool
	}{
		{"unknown top key", "ipv7 = true\n[node.v]\n", "x.toml:1:1: ipv7: unknown field: not a key of the e2e manifest format (test/e2e/pkg/manifest.go)", false},
		{"unknown node key", "[node.v]\nkey_type = \"x\"\n", "x.toml:2:1: node.v.key_type: unknown field: not a node key of the e2e manifest format (CometBFT's runner would ignore it silently)", false},
		{"wrong type", "evidence = \"5\"\n[node.v]\n", "x.toml:1:1: evidence: wrong type: want an integer, got a TOML string", false},
		{"lenient key, strict", "ipv6 = true\n[node.v]\n", "x.toml:1:1: ipv6: cometlab's nodes listen on IPv4 loopback (--lenient takes the file without it)", false},
		{"light node", "[validators]\nv = 1\n[node.v]\n[node.l]\nmode = \"light\"\n", "x.toml:5:1: node.l.mode: cometlab runs no light clients (a light node follows the chain through RPC, outside consensus)", false},
		{"validator update of a full node", "[node.v]\n[node.w]\nmode = \"full\"\n[validator_update.10]\nw = 5\n", "x.toml:5:1: validator_update.10.w: no validator named \"w\"", false},
		{"start_at without a quorum at the start", "[node.v]\n[node.w]\nstart_at = 10\n", "x.toml:3:1: node.w.start_at: the validators that start with the testnet hold 100 of the 200 voting power, not more than 2/3", false},
		{"start_at on a seed", "[node.v]\n[node.s]\nmode = \"seed\"\nstart_at = 10\n", "x.toml:4:1: node.s.start_at: a seed starts first", false},
		{"upgrade", "[node.v]\nperturb = [\"upgrade\"]\n", "x.toml:2:1: node.v.perturb: an e2e upgrade starts the upgrade_version Docker image; cometlab upgrades to a release: [perturb.NODE] action upgrade with to", false},
		{"docker image", "[node.v]\nversion = \"cometbft/v0.38.x\"\n", "x.toml:2:1: node.v.version: the Docker image \"cometbft/v0.38.x\" names no release cometlab can build (want an image tag such as cometbft/e2e-node:v1.0.1)", false},
		{"database", "[node.v]\ndatabase = \"rocksdb\"\n", "x.toml:2:1: node.v.database: cometlab builds releases without the build tags (and C libraries) rocksdb needs; it runs goleveldb, and pebbledb on v1.0", false},
		{"not in validators", "[validators]\nv = 5\n[node.v]\n[node.w]\n", "x.toml:4:2: node.w: validator w is not in [validators]: the e2e runner starts it without voting power (it may join through a later [validator_update]), while cometlab makes every validator a genesis validator", false},
		{"unknown validator", "[validators]\nv = 5\nx = 1\n[node.v]\n", "x.toml:3:1: validators.x: no node named \"x\"", false},
		{"abci protocol", "abci_protocol = \"tcp\"\n[node.v]\n", "x.toml:1:1: abci_protocol: cometlab runs the e2e app inside the node process (builtin); \"tcp\" puts a connection between node and app that changes the latencies measured", false},
		{"partial zones", "[node.v]\nzone = \"Tokyo\"\n[node.w]\n", "x.toml:2:1: node.v.zone: nodes w have no zone and there is no default_zone, so the e2e runner emulates no latency; cometlab takes zones only for every node (--lenient runs without zones, as the runner would) (--lenient takes the file without it)", false},
		{"unknown zone, from resolve", "[node.v]\nzone = \"Mars\"\n", "x.toml:2:1: node.v.zone:", false},
		{"perturbation after the load", "load_max_seconds = 10\n[node.v]\nperturb = [\"pause\"]\n[node.w]\nperturb = [\"pause\"]\n", "x.toml:5:1: perturb.w.at: begins at 38s, after the load ends", false},
		{"all send_no_load", "[node.v]\nsend_no_load = true\n", "x.toml:2:1: node.v.send_no_load: every node has send_no_load: the e2e runner would send no load, and a cometlab run is a load", false},
		{"lenient still refuses the rest", "ipv6 = true\ninitial_height = 3\n[node.v]\n", "x.toml:2:1: initial_height: cometlab's genesis starts the chain at height 1", true},
		{"key type of no release", "key_type = \"sr25519\"\n[node.v]\n", `x.toml:1:1: key_type: unknown key type "sr25519"`, false},
		{"key type the release lacks", "key_type = \"ml_dsa_65\"\n[node.v]\nversion = \"cometbft/e2e-node:v1.0.1\"\n", `x.toml:1:1: key_type: "ml_dsa_65": v1.0.1 has only ed25519, secp256k1, bls12_381 (node v)`, false},
		{"mixed transports", "[node.v]\nuse_libp2p = true\n[node.w]\n", "x.toml:2:1: node.v.use_libp2p: mixed transports: v use libp2p (QUIC over UDP) and w CometBFT's p2p (TCP), which cannot connect to each other", false},
		{"libp2p on a release without it", "[node.v]\nuse_libp2p = true\nversion = \"cometbft/e2e-node:v1.0.1\"\n", "x.toml:2:1: libp2p: v1.0.1 has no libp2p networking ([p2p.libp2p] came with v0.39)", false},
		{"libp2p with a seed", "[node.v]\nuse_libp2p = true\n[node.s]\nmode = \"seed\"\nuse_libp2p = true\n", "libp2p: node s is a seed, but libp2p nodes have no peer exchange", false},
		{"evidence", "evidence = 3\n[node.v]\n", "x.toml:1:1: evidence: the e2e runner makes 1 in 4 of its 3 pieces a light-client attack (half of those invalid); cometlab injects duplicate votes only, with its own evidence key (docs/scenarios.md) (--lenient takes the file without it)", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _, err := Read("x.toml", []byte(tc.toml), ReadOptions{Format: FormatE2E, Lenient: tc.lenient})
			if err == nil {
				_, err = m.Resolve()
			}
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error\n%v\nwant it to contain\n%s", err, tc.want)
			}
			var e *Error
			if !errors.As(err, &e) || e.Line == 0 {
				t.Errorf("error %v has no line", err)
			}
		})
	}
}

// TestE2EPerturbSequence checks that a node's perturb list runs in the
// order written, one slot after the other as the runner's (down + 20 s
// recovery + 3 s), runs of one action as one table with count.
func TestE2EPerturbSequence(t *testing.T) {
	doc := "[node.v]\nperturb = [\"disconnect\", \"pause\", \"pause\", \"kill\"]\n[node.w]\nperturb = [\"restart\"]\n"
	m, _, err := Read("x.toml", []byte(doc), ReadOptions{Format: FormatE2E})
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	s := time.Second
	want := []Perturbation{
		{Node: "v", Action: ActionDisconnect, At: 5 * s, Down: 10 * s, Count: 1},
		{Name: "v-2", Node: "v", Action: ActionPause, At: 38 * s, Down: 10 * s, Every: 33 * s, Count: 2},
		{Name: "v-3", Node: "v", Action: ActionKill, At: 104 * s, Down: s, Count: 1},
		{Node: "w", Action: ActionRestart, At: 128 * s, Count: 1},
	}
	if !reflect.DeepEqual(r.Perturbations, want) {
		t.Errorf("perturbations\n%+v\nwant\n%+v", r.Perturbations, want)
	}
	if want := 128*s + 23*s + 5*s; r.Load.Duration != want {
		t.Errorf("load duration %s, want %s", r.Load.Duration, want)
	}
	enc, err := Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	again, _, err := Read("again.toml", enc, ReadOptions{})
	if err != nil {
		t.Fatalf("the encoded manifest does not read again: %v\n%s", err, enc)
	}
	r2, err := again.Resolve()
	if err != nil || !reflect.DeepEqual(r2.Perturbations, want) {
		t.Errorf("encoded and read again: %+v (%v)\n%s", r2.Perturbations, err, enc)
	}
}
