package experiment

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/deploy"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
)

// TestReadTestnetLoad: what `load --testnet DIR` takes from a deployment
// with a load host (its load target's websocket and name, every node and
// its metrics, the load hosts with ssh and roles, DIR/manifest.toml), and
// from a local testnet (no load hosts, no manifest).
func TestReadTestnetLoad(t *testing.T) {
	dir := t.TempDir()
	ssh := []deploy.SSH{{Host: "h1", Address: "10.213.0.11", User: "qa", Port: 22}, {Host: "l1", Address: "10.213.0.15", User: "qa", Port: 22}}
	nodes := []results.Node{
		{Name: "validator01", Mode: "validator", RPC: "http://10.213.0.11:26657", Metrics: "http://10.213.0.11:26660/metrics"},
		{Name: "validator02", Mode: "validator", RPC: "http://10.213.0.11:26667", Metrics: "http://10.213.0.11:26670/metrics"},
	}
	up := UpState{ChainID: "c", Deployed: true, LoadTarget: "validator02", Hosts: []string{"h1", "l1"},
		LoadHosts: []string{"l1"}, SSH: ssh, Roles: map[string]string{"h1": "validators", "l1": "load"},
		Nodes: []UpNode{{Host: "h1", Node: nodes[0]}, {Host: "h1", Node: nodes[1]}}}
	if err := results.WriteJSON(filepath.Join(dir, TestnetFile), up); err != nil {
		t.Fatal(err)
	}
	man := "[load]\n[app]\nkind = \"e2e\"\nvote_extension_size = 2048\n"
	if err := os.WriteFile(filepath.Join(dir, results.ManifestFile), []byte(man), 0o644); err != nil {
		t.Fatal(err)
	}
	tl, err := ReadTestnetLoad(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := TestnetLoad{
		Endpoint: "ws://10.213.0.11:26667/websocket", Target: "validator02", Nodes: nodes,
		MetricsURLs: []string{"http://10.213.0.11:26660/metrics", "http://10.213.0.11:26670/metrics"},
		NodeNames:   []string{"validator01", "validator02"},
		LoadHosts:   &LoadHosts{Dir: dir, Hosts: []string{"l1"}, SSH: ssh, Roles: up.Roles},
		Manifest:    filepath.Join(dir, results.ManifestFile),
		App:         "e2e", AppConfig: map[string]any{"vote_extension_size": int64(2048), "vote_extensions_enable_height": int64(1)},
	}
	if !reflect.DeepEqual(tl, want) {
		t.Errorf("ReadTestnetLoad:\n got %+v\nwant %+v", tl, want)
	}
	var o LoadOptions
	tl.Apply(&o)
	if o.App != "e2e" || !reflect.DeepEqual(o.AppConfig, want.AppConfig) {
		t.Errorf("Apply: app %q %v, want the deployment's", o.App, o.AppConfig)
	}

	local := t.TempDir()
	up = UpState{ChainID: "c", Nodes: up.Nodes}
	if err := results.WriteJSON(filepath.Join(local, TestnetFile), up); err != nil {
		t.Fatal(err)
	}
	if tl, err = ReadTestnetLoad(local); err != nil || tl.LoadHosts != nil || tl.Manifest != "" || tl.App != "" || tl.Target != "validator01" {
		t.Errorf("a local testnet: %+v, %v", tl, err)
	}
	if _, err := ReadTestnetLoad(t.TempDir()); err == nil {
		t.Error("no testnet.json was taken")
	}
}

// TestWriteDeployed: a deployment's directory gets prometheus.yml, one
// job named after the chain with a target per node that has a metrics
// endpoint, labelled by name, beside testnet.json.
func TestWriteDeployed(t *testing.T) {
	dir := t.TempDir()
	up := UpState{ChainID: "cometlab-ab12cd34", Deployed: true, Nodes: []UpNode{
		{Host: "h1", Node: results.Node{Name: "validator01", Metrics: "http://10.213.0.11:26660/metrics"}},
		{Host: "h1", Node: results.Node{Name: "seed01", Mode: "seed"}},
		{Host: "h2", Node: results.Node{Name: "validator02", Metrics: "http://10.213.0.12:26660/metrics"}},
	}}
	if err := writeDeployed(dir, up); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, PrometheusFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`job_name: "cometlab-ab12cd34"`, "10.213.0.11:26660", "validator01", "10.213.0.12:26660", "validator02"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("prometheus.yml lacks %q:\n%s", want, b)
		}
	}
	if strings.Contains(string(b), "seed01") {
		t.Errorf("prometheus.yml scrapes seed01, which has no metrics endpoint:\n%s", b)
	}
	var got UpState
	if err := results.ReadJSON(filepath.Join(dir, TestnetFile), &got); err != nil || got.ChainID != up.ChainID {
		t.Errorf("testnet.json: %+v, %v", got, err)
	}
}

// TestDeployPlanApp: with the e2e app each node's host gets its release's
// e2e app node (not cometbft) marked to start from its app.toml, and the
// plan's line says so with the app's settings; with the kvstore, cometbft.
func TestDeployPlanApp(t *testing.T) {
	m := manifest.Resolved{App: manifest.AppE2E, AppConfig: map[string]any{"vote_extensions_enable_height": int64(1), "pbts_enable_height": int64(1)},
		Hosts: []manifest.Host{{Name: "h1", Address: "10.0.0.1", SSHUser: "qa", SSHPort: 22, Workdir: "/srv/c"}},
		Nodes: []manifest.Node{{Name: "validator01", Mode: manifest.ModeValidator, Host: "h1"}, {Name: "seed0", Mode: manifest.ModeSeed, Host: "h1"}}}
	spec := cometbft.Spec{App: cometbft.AppE2E, Nodes: []cometbft.NodeSpec{
		{Name: "validator01", Version: "v1.0.1", Binary: "/cache/cometbft", AppBinary: "/cache/e2e-node"},
		{Name: "seed0", Version: "v1.0.1", Binary: "/cache/cometbft", AppBinary: "/cache/e2e-node"}}}
	homes := []cometbft.Home{{RPCPort: 26657, P2PPort: 26656, MetricsPort: 26660}, {RPCPort: 26667, P2PPort: 26666, MetricsPort: 26670}}
	p := deployPlan(m, spec, homes, "/ctl/nodes", DeployOptions{})
	want := []deploy.Node{
		{Name: "validator01", BinarySrc: "/cache/e2e-node", Binary: "e2e-node-v1.0.1", E2E: true, RPCPort: 26657, P2PPort: 26656, MetricsPort: 26660},
		{Name: "seed0", BinarySrc: "/cache/e2e-node", Binary: "e2e-node-v1.0.1", E2E: true, RPCPort: 26667, P2PPort: 26666, MetricsPort: 26670, Seed: true},
	}
	if len(p.Hosts) != 1 || !reflect.DeepEqual(p.Hosts[0].Nodes, want) {
		t.Errorf("deployPlan nodes:\n got %+v\nwant %+v", p.Hosts, want)
	}
	if got, want := deployedApp(p, m), "CometBFT's e2e app node (e2e-node-v1.0.1; app.toml: pbts_enable_height = 1, vote_extensions_enable_height = 1)"; got != want {
		t.Errorf("deployedApp = %q, want %q", got, want)
	}
	m.App, m.AppConfig = manifest.AppKVStore, nil
	for i := range spec.Nodes {
		spec.Nodes[i].AppBinary = ""
	}
	p = deployPlan(m, spec, homes, "/ctl/nodes", DeployOptions{})
	if n := p.Hosts[0].Nodes[0]; n.E2E || n.Binary != "cometbft-v1.0.1" || n.BinarySrc != "/cache/cometbft" {
		t.Errorf("kvstore node %+v, want cometbft-v1.0.1 from /cache/cometbft", n)
	}
	if got, want := deployedApp(p, m), "the kvstore app built into cometbft-v1.0.1"; got != want {
		t.Errorf("deployedApp = %q, want %q", got, want)
	}
}
