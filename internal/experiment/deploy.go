package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/cometlab/cometlab/internal/collect"
	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/deploy"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/rpc"
	"github.com/cometlab/cometlab/internal/testnet"
)

// DeployOptions configure `cometlab deploy`.
type DeployOptions struct {
	Manifest manifest.Resolved
	// Dir receives the homes, inventory, playbooks, their logs and
	// testnet.json (and, after DownHosts, what it fetched back).
	Dir string
	// Env is the environment: its Fetcher, Out and StartTimeout are used;
	// Logger, Version and Hard are not (Ansible logs into Dir, and no run
	// is recorded).
	Env
	// Keep leaves the hosts' work directories after DownHosts.
	Keep bool
	// Cometlab is the cometlab binary copied to the load hosts ([load]
	// hosts); "" means this process's own executable.
	Cometlab string
	// Plan stops once the homes, inventory and playbooks are written and
	// checked (checkPlan): Ansible is not run, no node started.
	Plan bool
}

// Deploy generates the homes of a manifest whose nodes are on [host.*]
// hosts, with each node's listeners on its host's address, writes the
// Ansible inventory and playbooks into Dir and runs deploy.yml: the node
// binary and homes are copied to each host and the nodes started there.
// It then waits until every node advances, over the network, and writes
// Dir/prometheus.yml (PrometheusFile) and Dir/testnet.json. If anything
// fails after the playbook started, the nodes are stopped again through
// down.yml.
func Deploy(ctx context.Context, opts DeployOptions) (UpState, error) {
	m, out := opts.Manifest, NewPrinter(opts.Out)
	if len(m.Hosts) == 0 {
		return UpState{}, exitcode.With(errors.New("the manifest has no [host.NAME] tables: `cometlab deploy` runs nodes on hosts (use `cometlab testnet up` for a local testnet)"), exitcode.Usage)
	}
	if _, err := os.Stat(filepath.Join(opts.Dir, TestnetFile)); err == nil {
		return UpState{}, fmt.Errorf("%s already holds a testnet; run `cometlab testnet down --hosts %s` first", opts.Dir, opts.Dir)
	}
	chainID := "cometlab-" + uuid.NewString()[:8]
	spec, err := testnetSpec(ctx, m, opts.Fetcher, chainID)
	if err != nil {
		return UpState{}, err
	}
	for i, n := range m.Nodes {
		h, _ := m.HostOf(n.Host)
		spec.Nodes[i].Address, spec.Nodes[i].HostHome = h.Address, deploy.HostHome(h.Workdir, n.Name)
	}
	homesDir, err := filepath.Abs(filepath.Join(opts.Dir, results.NodesDir))
	if err != nil {
		return UpState{}, err
	}
	homes, err := cometbft.Generate(ctx, homesDir, spec)
	if err != nil {
		return UpState{}, fmt.Errorf("generate node homes: %w", err)
	}
	plan := deployPlan(m, spec, homes, homesDir, opts)
	if len(m.Load.Hosts) > 0 && plan.Cometlab == "" {
		if plan.Cometlab, err = os.Executable(); err != nil {
			return UpState{}, fmt.Errorf("the cometlab binary for the load hosts: %w", err)
		}
	}
	if err := deploy.Write(plan, opts.Dir); err != nil {
		return UpState{}, err
	}
	if err := writeManifest(filepath.Join(opts.Dir, results.ManifestFile), m); err != nil {
		return UpState{}, err
	}
	st := UpState{ChainID: chainID, Deployed: true, LoadTarget: m.Load.Target, LoadHosts: m.Load.Hosts, Roles: hostRoles(m),
		Zones: zonesRecord(m)}
	if st.Zones != nil {
		st.Zones.OnHosts = true
		out.Phase("zones: %d zones label the nodes; between hosts the delays are the network's own, the matrix is not emulated", len(st.Zones.Zones))
	}
	for _, h := range m.Hosts {
		st.Hosts = append(st.Hosts, h.Name)
		st.SSH = append(st.SSH, deploy.SSH{Host: h.Name, Address: h.Address, User: h.SSHUser, Port: h.SSHPort, Key: h.SSHKey, Args: opts.Env.SSHArgs})
	}
	for i, h := range homes {
		st.Nodes = append(st.Nodes, UpNode{Host: m.Nodes[i].Host, Node: results.Node{Name: h.Name, Mode: h.Mode,
			Version: nodeVersion(m, m.Nodes[i]), RPC: h.RPCAddr(), P2P: h.P2PAddr(), Metrics: h.MetricsAddr(), Home: h.Dir, Zone: m.Nodes[i].Zone,
			Seeds: m.Nodes[i].Seeds, PersistentPeers: m.Nodes[i].PersistentPeers}})
	}
	if opts.Plan {
		links, err := checkPlan(plan, homes, opts.Dir)
		if err != nil {
			return UpState{}, err
		}
		out.Phase("plan: %d nodes on %d hosts in %s, running %s: homes, %s, %s, %s, %s and %s written; %d peer addresses resolve to a node of the plan, no host has two listeners on one port; ansible-playbook not run",
			len(homes), len(m.Hosts), opts.Dir, deployedApp(plan, m), deploy.InventoryFile, deploy.DeployBook, deploy.DownBook, deploy.LoadBook, deploy.LoadStopBook, links)
		return st, nil
	}
	start := time.Now()
	out.Phase("deploy: %d nodes on %d hosts, running %s, through ansible-playbook %s", len(homes), len(m.Hosts), deployedApp(plan, m), deploy.DeployBook)
	err = deploy.Playbook(ctx, opts.Dir, deploy.DeployBook, "", nil)
	if err == nil {
		err = waitRemote(ctx, st, opts.StartTimeout)
	}
	if err == nil {
		st.Started = time.Now()
		err = writeDeployed(opts.Dir, st)
	}
	if err != nil {
		out.Phase("deploy failed; stopping whatever started through %s", deploy.DownBook)
		if derr := deploy.Playbook(context.WithoutCancel(ctx), opts.Dir, deploy.DownBook, "", nil); derr != nil {
			err = errors.Join(err, fmt.Errorf("and stopping the nodes: %w", derr))
		}
		return UpState{}, err
	}
	out.Phase("deploy: %d nodes advancing after %s, chain %s; stop them with `cometlab testnet down --hosts %s`",
		len(st.Nodes), time.Since(start).Round(100*time.Millisecond), chainID, opts.Dir)
	return st, nil
}

// writeDeployed writes what describes a running deployment into dir:
// prometheus.yml (a job scraping every node), then testnet.json, which
// says it runs.
func writeDeployed(dir string, st UpState) error {
	b, err := collect.PrometheusConfig([]collect.PromJob{st.PromJob()})
	if err != nil {
		return err
	}
	if err := results.WriteFileAtomic(filepath.Join(dir, PrometheusFile), b); err != nil {
		return err
	}
	return results.WriteJSON(filepath.Join(dir, TestnetFile), st)
}

// deployPlan is the inventory of m's deployment: each host with its nodes
// and their binaries.
func deployPlan(m manifest.Resolved, spec cometbft.Spec, homes []cometbft.Home, homesDir string, opts DeployOptions) deploy.Plan {
	p := deploy.Plan{Homes: homesDir, SSHArgs: opts.Env.SSHArgs, StartTimeout: opts.StartTimeout, Grace: 10 * time.Second, Keep: opts.Keep,
		Cometlab: opts.Cometlab}
	if p.StartTimeout == 0 {
		p.StartTimeout = defaultStartTimeout
	}
	for _, h := range m.Hosts {
		dh := deploy.Host{Name: h.Name, Address: h.Address, SSHUser: h.SSHUser, SSHPort: h.SSHPort, SSHKey: h.SSHKey, Workdir: h.Workdir,
			Load: slices.Contains(m.Load.Hosts, h.Name), Firewall: h.Firewall}
		for i, n := range m.Nodes {
			if n.Host != h.Name {
				continue
			}
			bin, src, e2e := "cometbft", spec.Nodes[i].Binary, spec.Nodes[i].AppBinary != ""
			if e2e { // the e2e app node runs instead of cometbft, as locally
				bin, src = "e2e-node", spec.Nodes[i].AppBinary
			}
			if spec.Nodes[i].Version != "" {
				bin += "-" + spec.Nodes[i].Version
			}
			if s := spec.Nodes[i].Source; s != nil { // not the release's binary: named by its code
				bin += "-src-" + s.Key[:12]
			}
			dh.Nodes = append(dh.Nodes, deploy.Node{Name: n.Name, BinarySrc: src, Binary: bin, E2E: e2e,
				RPCPort: homes[i].RPCPort, P2PPort: homes[i].P2PPort, MetricsPort: homes[i].MetricsPort, Seed: n.Mode == manifest.ModeSeed})
		}
		p.Hosts = append(p.Hosts, dh)
	}
	return p
}

// deployedApp says what the nodes of plan run, for the plan's and the
// deploy's first line: the binaries copied to the hosts, by name, and
// for the e2e app node the app.toml settings m gives every node.
func deployedApp(plan deploy.Plan, m manifest.Resolved) string {
	var bins []string
	e2e := false
	for _, h := range plan.Hosts {
		for _, n := range h.Nodes {
			e2e = e2e || n.E2E
			if !slices.Contains(bins, n.Binary) {
				bins = append(bins, n.Binary)
			}
		}
	}
	slices.Sort(bins)
	if !e2e {
		return fmt.Sprintf("the kvstore app built into %s", strings.Join(bins, ", "))
	}
	var set []string
	for _, k := range slices.Sorted(maps.Keys(m.AppConfig)) {
		set = append(set, fmt.Sprintf("%s = %v", k, m.AppConfig[k]))
	}
	settings := "its defaults"
	if len(set) > 0 {
		settings = strings.Join(set, ", ")
	}
	return fmt.Sprintf("CometBFT's e2e app node (%s; app.toml: %s)", strings.Join(bins, ", "), settings)
}

// checkPlan checks a written deployment plan (deploy.Check): every
// persistent peer and seed of every node, as its home's config.toml
// gives them, is a node of the plan on its host's address, and no host
// has two listeners on one port. It returns how many peer addresses it
// resolved.
func checkPlan(p deploy.Plan, homes []cometbft.Home, dir string) (int, error) {
	peers, links := map[string]deploy.PeerConfig{}, 0
	for _, h := range homes {
		pc, err := deploy.ReadPeerConfig(h.Dir)
		if err != nil {
			return 0, fmt.Errorf("plan: node %s: %w", h.Name, err)
		}
		pc.ID = h.ID
		peers[h.Name] = pc
		links += len(pc.PersistentPeers) + len(pc.Seeds)
	}
	if err := deploy.Check(p, peers); err != nil {
		return links, exitcode.With(fmt.Errorf("the deployment plan in %s fails its checks:\n%w", dir, err), exitcode.Failed)
	}
	return links, nil
}

// writeManifest writes the resolved manifest m to path (a deployment's
// manifest.toml, whose [load] `cometlab load --testnet` takes by default).
func writeManifest(path string, m manifest.Resolved) error {
	text, err := manifest.Encode(m)
	if err != nil {
		return err
	}
	return os.WriteFile(path, text, 0o644)
}

// hostRoles says what each host of m runs: "load" (a [load] host),
// "validators", "nodes" (full nodes or seeds), comma-separated.
func hostRoles(m manifest.Resolved) map[string]string {
	roles := map[string]string{}
	for _, h := range m.Hosts {
		var parts []string
		if slices.Contains(m.Load.Hosts, h.Name) {
			parts = append(parts, "load")
		}
		if slices.ContainsFunc(m.Nodes, func(n manifest.Node) bool { return n.Host == h.Name && n.Mode == manifest.ModeValidator }) {
			parts = append(parts, "validators")
		}
		if slices.ContainsFunc(m.Nodes, func(n manifest.Node) bool { return n.Host == h.Name && n.Mode != manifest.ModeValidator }) {
			parts = append(parts, "nodes")
		}
		roles[h.Name] = strings.Join(parts, ", ")
	}
	return roles
}

// DownHosts stops the testnet `cometlab deploy` started from dir through
// down.yml, which fetches each host's logs and homes back; they are
// unpacked under dir/collected/HOST.
func DownHosts(ctx context.Context, dir string, out io.Writer) error {
	var st UpState
	path := filepath.Join(dir, TestnetFile)
	if err := results.ReadJSON(path, &st); err != nil {
		return fmt.Errorf("no deployed testnet in %s: %w", dir, err)
	}
	if !st.Deployed {
		return exitcode.With(fmt.Errorf("%s holds a local testnet: stop it with `cometlab testnet down %s`", dir, dir), exitcode.Usage)
	}
	p := NewPrinter(out)
	start := time.Now()
	if err := deploy.Playbook(ctx, dir, deploy.DownBook, "", nil); err != nil {
		return err
	}
	if err := deploy.Unpack(dir, st.Hosts); err != nil {
		return err
	}
	p.Phase("testnet down: %d nodes on %d hosts stopped in %s; logs and homes in %s",
		len(st.Nodes), len(st.Hosts), time.Since(start).Round(100*time.Millisecond), filepath.Join(dir, deploy.CollectDir))
	return os.Rename(path, path+".down")
}

// waitRemote waits until every deployed node (seeds aside) has advanced
// two heights beyond where it was first seen, over its RPC; the error
// names the node and its host.
func waitRemote(ctx context.Context, st UpState, timeout time.Duration) error {
	if timeout == 0 {
		timeout = defaultStartTimeout
	}
	watched := make([]testnet.Watched, len(st.Nodes))
	for i, n := range st.Nodes {
		watched[i] = testnet.Watched{Name: n.Name, RPC: rpc.New(n.RPC), Skip: n.Mode == cometbft.ModeSeed}
	}
	err := testnet.WaitAdvanced(ctx, watched, timeout, nil)
	var stall *testnet.StallError
	if !errors.As(err, &stall) {
		return err
	}
	for _, n := range st.Nodes {
		if n.Name == stall.Node {
			return fmt.Errorf("node %s on host %s did not advance two heights within %s (%s); its log is fetched by `cometlab testnet down --hosts`",
				n.Name, n.Host, stall.Timeout, stall.Why)
		}
	}
	return err
}

// TestnetLoad is what `cometlab load --testnet DIR` takes from a running
// testnet's testnet.json (see [ReadTestnetLoad]).
type TestnetLoad struct {
	// Endpoint is the websocket of the load target (the first node when
	// testnet.json names none), Target its name.
	Endpoint, Target string
	// Nodes are every node of the testnet; MetricsURLs and NodeNames the
	// Prometheus endpoints of those that have one, by name.
	Nodes                  []results.Node
	MetricsURLs, NodeNames []string
	// LoadHosts are a deployment's [load] hosts; nil when it has none.
	LoadHosts *LoadHosts
	// Zones are a deployment's zones (labels); nil without.
	Zones *results.Zones
	// Manifest is a deployment's resolved manifest (DIR/manifest.toml);
	// "" when the directory holds none.
	Manifest string
	// App and AppConfig are the app the deployment's nodes run and its
	// settings, from Manifest, whatever manifest the load's [load] comes
	// from; "" and nil without a manifest.
	App       string
	AppConfig map[string]any
}

// ReadTestnetLoad reads what a load of the testnet running from dir
// needs (`cometlab testnet up --dir` or `cometlab deploy --out`).
func ReadTestnetLoad(dir string) (TestnetLoad, error) {
	var up UpState
	var tl TestnetLoad
	if err := results.ReadJSON(filepath.Join(dir, TestnetFile), &up); err != nil {
		return tl, exitcode.With(fmt.Errorf("--testnet: no running testnet in %s: %w", dir, err), exitcode.Usage)
	}
	for i, n := range up.Nodes {
		if n.Name == up.LoadTarget || up.LoadTarget == "" && i == 0 {
			tl.Endpoint, tl.Target = rpc.WSAddr(n.RPC), n.Name
		}
		tl.Nodes = append(tl.Nodes, n.Node)
		if n.Metrics != "" {
			tl.MetricsURLs, tl.NodeNames = append(tl.MetricsURLs, n.Metrics), append(tl.NodeNames, n.Name)
		}
	}
	if tl.Endpoint == "" {
		return tl, fmt.Errorf("--testnet %s: no node %q in testnet.json", dir, up.LoadTarget)
	}
	tl.Zones = up.Zones
	if len(up.LoadHosts) > 0 {
		tl.LoadHosts = &LoadHosts{Dir: dir, Hosts: up.LoadHosts, SSH: up.SSH, Roles: up.Roles}
	}
	if p := filepath.Join(dir, results.ManifestFile); exists(p) {
		tl.Manifest = p
		m, err := manifest.Load(p)
		if err != nil {
			return tl, exitcode.With(fmt.Errorf("--testnet %s: %w", dir, err), exitcode.Usage)
		}
		r, err := m.Resolve()
		if err != nil {
			return tl, exitcode.With(fmt.Errorf("--testnet %s: %w", dir, err), exitcode.Usage)
		}
		tl.App, tl.AppConfig = r.App, r.AppConfig
	}
	return tl, nil
}

// Apply sets what o takes from the testnet: its endpoint, nodes, target,
// zones, metrics endpoints, load hosts and app.
func (tl TestnetLoad) Apply(o *LoadOptions) {
	o.Endpoint, o.Nodes, o.Target, o.Zones = tl.Endpoint, tl.Nodes, tl.Target, tl.Zones
	o.MetricsURLs, o.NodeNames, o.LoadHosts = tl.MetricsURLs, tl.NodeNames, tl.LoadHosts
	o.App, o.AppConfig = tl.App, tl.AppConfig
}
