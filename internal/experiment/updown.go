package experiment

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/google/uuid"

	"github.com/cometlab/cometlab/internal/collect"
	"github.com/cometlab/cometlab/internal/deploy"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/testnet"
)

// TestnetFile describes a testnet kept up by `cometlab testnet up`.
const TestnetFile = "testnet.json"

// PrometheusFile is the prometheus.yml Deploy writes beside TestnetFile:
// one job scraping every node of the deployment (PromJob).
const PrometheusFile = "prometheus.yml"

// UpNode is one node of a kept-up testnet.
type UpNode struct {
	results.Node
	PID int `json:"pid"`
	// Host is the node's [host.NAME] in a deployed testnet.
	Host string `json:"host,omitempty"`
}

// UpState is testnet.json.
type UpState struct {
	ChainID string    `json:"chain_id"`
	Started time.Time `json:"started"`
	Nodes   []UpNode  `json:"nodes"`
	// Deployed marks a testnet `cometlab deploy` runs on hosts (Hosts, by
	// name); it is stopped with `testnet down --hosts`.
	Deployed bool     `json:"deployed,omitempty"`
	Hosts    []string `json:"hosts,omitempty"`
	// LoadTarget is the manifest's load target, which `cometlab load
	// --testnet` sends to.
	LoadTarget string `json:"load_target,omitempty"`
	// LoadHosts are a deployed testnet's [load] hosts, from which `cometlab
	// load --testnet` sends the load; SSH reaches each of its hosts (to
	// measure their clocks), and Roles say what each runs ("load",
	// "validators", "nodes", comma-separated), by host name.
	LoadHosts []string `json:"load_hosts,omitempty"`
	// Zones are a deployed testnet's [zones], labels of its nodes (the
	// matrix not emulated: OnHosts); nil without zones.
	Zones *results.Zones    `json:"zones,omitempty"`
	SSH   []deploy.SSH      `json:"ssh,omitempty"`
	Roles map[string]string `json:"roles,omitempty"`
}

// PromJob is the Prometheus scrape job of the testnet st describes: named
// after its chain, one target per node with a metrics endpoint.
func (st UpState) PromJob() collect.PromJob {
	j := collect.PromJob{Name: st.ChainID}
	for _, n := range st.Nodes {
		if n.Metrics != "" {
			j.Targets = append(j.Targets, collect.Target{Name: n.Name, URL: n.Metrics})
		}
	}
	return j
}

// UpOptions configure `testnet up`.
type UpOptions struct {
	Manifest manifest.Resolved
	Dir      string
	// Env is the environment: its Fetcher, Out, Logger and StartTimeout
	// are used; Version and Hard are not (no run is recorded, and the
	// nodes are left running).
	Env
}

// Up starts a testnet that keeps running after cometlab exits, and writes
// Dir/testnet.json for Down. If the nodes do not become healthy they are
// stopped again.
func Up(ctx context.Context, opts UpOptions) (UpState, error) {
	out := NewPrinter(opts.Out)
	if _, err := os.Stat(filepath.Join(opts.Dir, TestnetFile)); err == nil {
		return UpState{}, fmt.Errorf("%s already holds a testnet; run `cometlab testnet down %s` first", opts.Dir, opts.Dir)
	}
	m := opts.Manifest
	chainID := "cometlab-" + uuid.NewString()[:8]
	ln, err := startLocal(ctx, m, netOptions{mode: netUp, dir: opts.Dir, chainID: chainID, out: out,
		env: opts.Env})
	if err != nil {
		return UpState{}, err
	}
	tn := ln.tn
	spec := ln.spec
	st := UpState{ChainID: spec.ChainID, Started: time.Now(), LoadTarget: m.Load.Target}
	for _, n := range tn.Nodes {
		st.Nodes = append(st.Nodes, UpNode{PID: n.PID(), Node: results.Node{Name: n.Name, Mode: n.Mode,
			RPC: n.RPCAddr(), P2P: n.P2PAddr(), Metrics: n.MetricsAddr(), Home: n.Dir}})
	}
	if err := results.WriteJSON(filepath.Join(opts.Dir, TestnetFile), st); err != nil {
		tn.Stop(10 * time.Second)
		return UpState{}, err
	}
	out.Phase("testnet up: %d nodes, chain %s; stop it with `cometlab testnet down %s`", len(st.Nodes), st.ChainID, opts.Dir)
	return st, nil
}

// Down stops the testnet described by dir/testnet.json: SIGTERM, then
// SIGKILL after grace. A process whose command line no longer names its
// node home (the pid was reused) is left alone.
func Down(dir string, grace time.Duration, out io.Writer) error {
	var st UpState
	path := filepath.Join(dir, TestnetFile)
	if err := results.ReadJSON(path, &st); err != nil {
		return fmt.Errorf("no running testnet in %s: %w", dir, err)
	}
	if st.Deployed {
		return exitcode.With(fmt.Errorf("%s holds a testnet deployed to hosts: stop it with `cometlab testnet down --hosts %s`", dir, dir), exitcode.Usage)
	}
	p := NewPrinter(out)
	var pids []int
	for _, n := range st.Nodes {
		if testnet.NodeRunning(n.PID, n.Home) {
			pids = append(pids, n.PID)
		}
	}
	testnet.StopPIDs(pids, grace)
	p.Phase("testnet down: stopped %d node processes", len(pids))
	return os.Rename(path, path+".down")
}
