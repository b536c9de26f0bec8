package main

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/cometlab/cometlab/internal/deploy"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/results"
)

// TestReadTestnetLoad: what `load --testnet DIR` takes from a deployment
// with a load host (its load target's websocket, every node's metrics,
// the load hosts with ssh and roles, DIR/manifest.toml), and from a local
// testnet (no load hosts, no manifest).
func TestReadTestnetLoad(t *testing.T) {
	dir := t.TempDir()
	ssh := []deploy.SSH{{Host: "h1", Address: "10.213.0.11", User: "qa", Port: 22}, {Host: "l1", Address: "10.213.0.15", User: "qa", Port: 22}}
	up := experiment.UpState{ChainID: "c", Deployed: true, LoadTarget: "validator02", Hosts: []string{"h1", "l1"},
		LoadHosts: []string{"l1"}, SSH: ssh, Roles: map[string]string{"h1": "validators", "l1": "load"},
		Nodes: []experiment.UpNode{
			{Host: "h1", Node: results.Node{Name: "validator01", RPC: "http://10.213.0.11:26657", Metrics: "http://10.213.0.11:26660/metrics"}},
			{Host: "h1", Node: results.Node{Name: "validator02", RPC: "http://10.213.0.11:26667", Metrics: "http://10.213.0.11:26670/metrics"}},
		}}
	if err := results.WriteJSON(filepath.Join(dir, experiment.TestnetFile), up); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, results.ManifestFile), []byte("[load]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tl, err := readTestnetLoad(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := testnetLoad{
		endpoint:     "ws://10.213.0.11:26667/websocket",
		urls:         []string{"http://10.213.0.11:26660/metrics", "http://10.213.0.11:26670/metrics"},
		names:        []string{"validator01", "validator02"},
		loadHosts:    &experiment.LoadHosts{Dir: dir, Hosts: []string{"l1"}, SSH: ssh, Roles: up.Roles},
		manifestPath: filepath.Join(dir, results.ManifestFile),
	}
	if !reflect.DeepEqual(tl, want) {
		t.Errorf("readTestnetLoad:\n got %+v\nwant %+v", tl, want)
	}

	local := t.TempDir()
	up = experiment.UpState{ChainID: "c", Nodes: up.Nodes}
	if err := results.WriteJSON(filepath.Join(local, experiment.TestnetFile), up); err != nil {
		t.Fatal(err)
	}
	if tl, err = readTestnetLoad(local); err != nil || tl.loadHosts != nil || tl.manifestPath != "" || tl.endpoint != "ws://10.213.0.11:26657/websocket" {
		t.Errorf("a local testnet: %+v, %v", tl, err)
	}
	if _, err := readTestnetLoad(t.TempDir()); err == nil {
		t.Error("no testnet.json was taken")
	}
}
