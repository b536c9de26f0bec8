package experiment_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/experiment/experimenttest"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/testnet/nshoststest"
)

// awsZones are the zones of hostsManifest's validators on hosts.
var awsZones = []string{"N_Virginia", "Frankfurt", "Tokyo", "Sydney"}

// hostsManifest is 4 validators under 2 connections × 100 tx/s for 8 s,
// in 4 AWS zones (which on hosts only label them) for hostsInventory's
// hosts.
func hostsManifest(t *testing.T) manifest.Manifest {
	t.Helper()
	text := "links = \"direct\"\n[load]\nconnections = 2\nrate = 100\nduration = \"8s\"\ndrain_timeout = \"30s\"\n[zones]\nmatrix = \"aws\"\n"
	for i := 1; i <= 4; i++ {
		text += fmt.Sprintf("[node.validator%02d]\nzone = %q\n", i, awsZones[i-1])
	}
	// validator04 runs v0.40.0 built from its module source with a patch
	// (TestSourcePatchLibP2P's: one build for both): what a host is
	// shipped is the build of its node's code, as a release's binary is.
	text += fmt.Sprintf("cometbft_patches = [%q]\n", libp2pPatch(t))
	return manifestFile(t, "hosts.toml", text)
}

// hostsInventory writes a YAML inventory of n's 5 hosts and returns its
// path: validator01…04 on the first 4 (each its own workdir on the one
// file system), the load sent from the 5th and the 4th (a validator's:
// one connection each), every host's firewall managed; the ssh user, key
// and firewall are all's, each host's address and workdir its own.
func hostsInventory(t *testing.T, n *nshoststest.Net) string {
	t.Helper()
	text := fmt.Sprintf("all:\n  vars:\n    ansible_user: %s\n    ansible_ssh_private_key_file: %s\n    cometlab_firewall: yes\n  children:\n    validators:\n      hosts:\n", n.User, n.Key)
	host := func(name string, h nshoststest.Host) string {
		return fmt.Sprintf("        %s: {ansible_host: %s, cometlab_workdir: %q}\n", name, h.Address, h.Workdir)
	}
	for i, h := range n.Hosts[:4] {
		text += host(fmt.Sprintf("validator%02d", i+1), h)
	}
	text += "    loadrunners:\n      hosts:\n" + host(n.Hosts[4].Name, n.Hosts[4]) + "        validator04:\n"
	path := filepath.Join(t.TempDir(), "hosts.yml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// inventoryNames are the names hostsInventory gives n's hosts.
func inventoryNames(n *nshoststest.Net) []string {
	return []string{"validator01", "validator02", "validator03", "validator04", n.Hosts[4].Name}
}

// manifestFile writes the manifest text to a file name and reads it.
func manifestFile(t *testing.T, name, text string) manifest.Manifest {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// loadManifest writes the manifest text to a file name and resolves it.
func loadManifest(t *testing.T, name, text string) manifest.Resolved {
	t.Helper()
	m := manifestFile(t, name, text)
	r, err := m.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestDeployHosts deploys 4 validators to 4 network-namespace hosts
// through the real ansible-playbook over ssh, with cometlab on a 5th, the
// load host, the hosts taken from a YAML inventory as `cometlab deploy
// --inventory` takes them (experiment.LoadInventory). It loads them from the load host (cometlab load --testnet's
// path: load.yml starts `cometlab load` there at the start time, the
// control host reads the chain and scrapes the metrics over the bridge
// and merges the host's send log), checks that every transaction
// committed and that the clocks (one kernel's) agree within their
// bounds, then stops them with down.yml and checks that the logs came
// back and nothing is left. (The same manifest run locally gave the same
// block interval and committed rate within 5 %: docs/deploy.md.)
func TestDeployHosts(t *testing.T) {
	if testing.Short() {
		t.Skip("deploys a real testnet to namespace hosts")
	}
	experimenttest.Proves(t)
	nshoststest.Require(t)
	bin := buildCometlab(t)
	// validator04's patched build before the node lock (the manifest on
	// hosts resolves only with the inventory, made under the lock).
	patched := loadManifest(t, "patched.toml", fmt.Sprintf("cometbft_patches = [%q]\n", libp2pPatch(t)))
	if err := experiment.BuildPrograms(t.Context(), patched, experimenttest.BuildFetcher(t)); err != nil {
		t.Fatal(err)
	}
	f := experimenttest.Fetcher(t) // the node lock
	n := nshoststest.New(t, 5)
	n.DenyInbound(t) // locked-down hosts: deploy.yml must open the nodes' ports
	dir := filepath.Join(t.TempDir(), "deployed")
	var out bytes.Buffer
	onHosts, notes, err := experiment.LoadInventory(hostsManifest(t), hostsInventory(t, n), "")
	if err != nil || len(notes) > 0 {
		t.Fatalf("the inventory: %v (notes %q)", err, notes)
	}
	names := inventoryNames(n)
	start := time.Now()
	st, err := experiment.Deploy(context.Background(), experiment.DeployOptions{
		Manifest: onHosts, Dir: dir, Env: experiment.Env{Fetcher: f, Out: &out, StartTimeout: 60 * time.Second, SSHArgs: n.SSHArgs},
		Cometlab: bin})
	if err != nil {
		t.Log(out.String())
		logs, _ := os.ReadFile(filepath.Join(dir, "deploy.log"))
		t.Fatalf("%v\n%s", err, logs)
	}
	deployTime := time.Since(start)
	downed := false
	t.Cleanup(func() {
		if !downed {
			_ = experiment.DownHosts(context.Background(), dir, os.Stderr)
		}
	})
	checkFirewall(t, n, true)
	checkPatchedHost(t, n.Hosts[3], onHosts.Nodes[3])
	if !slices.Equal(st.LoadHosts, []string{names[4], names[3]}) || st.Roles[names[4]] != "load" ||
		st.Roles[names[3]] != "load, validators" || st.Roles[names[0]] != "validators" {
		t.Errorf("testnet.json: load hosts %v, roles %v", st.LoadHosts, st.Roles)
	}
	for i, node := range st.Nodes {
		if want := n.Hosts[i].Address; !strings.Contains(node.RPC, want) || node.Host != names[i] {
			t.Errorf("node %s: rpc %s on host %s, want %s on %s", node.Name, node.RPC, node.Host, want, names[i])
		}
	}
	if _, err := os.Stat(filepath.Join(dir, experiment.PrometheusFile)); err != nil {
		t.Errorf("Deploy wrote no %s: %v", experiment.PrometheusFile, err)
	}
	tl, err := experiment.ReadTestnetLoad(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Load(tl.Manifest) // deploy's copy, as load --testnet reads it
	if err != nil {
		t.Fatal(err)
	}
	rm, err := m.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	opts := experiment.LoadOptions{Manifest: rm, Dir: filepath.Join(t.TempDir(), "run"), Readback: true, Env: experiment.Env{Out: &out, Version: "test"}}
	tl.Apply(&opts)
	// The loads' start lead: the default 15 s, or a quarter of the
	// deploy's time on a slower machine. How long ansible-playbook takes
	// to reach the hosts depends on the machine (on one overloaded
	// machine deploy took 8 m 47 s and load.yml reached the hosts 55 s
	// after it began: both started late and failed, as they should).
	lh := *opts.LoadHosts
	lh.StartLead = max(experiment.DefaultStartLead, deployTime/4)
	opts.LoadHosts = &lh
	t.Logf("deploy took %s: start lead %s", deployTime.Round(100*time.Millisecond), lh.StartLead.Round(100*time.Millisecond))
	res, err := experiment.Load(context.Background(), opts)
	if err != nil {
		t.Log(out.String())
		t.Fatal(err)
	}
	checkAccounted(t, res, 1600)
	checkLoadHosts(t, res, []string{names[4], names[3]})
	// Every node followed over the bridge: a block reaches the last of 4
	// nodes some time after the first (one node alone would give 0).
	if mt := res.Summary.Metrics; res.Run.Target != "validator01" || len(res.Run.Nodes) != 4 || !(mt["adoption_blocks"] > 0 && mt["adoption_p100_ms"] > 0) {
		t.Errorf("run.json target %q, %d nodes; %v blocks adopted, p100 adoption %v ms: the testnet's nodes were not followed",
			res.Run.Target, len(res.Run.Nodes), mt["adoption_blocks"], mt["adoption_p100_ms"])
	}
	md, err := os.ReadFile(filepath.Join(res.Dir, results.ReportFile))
	for _, want := range []string{"## Load hosts and clocks", "## Zones", "not emulated", "| Tokyo | validator03 |"} {
		if err != nil || !bytes.Contains(md, []byte(want)) {
			t.Errorf("the report lacks %q (%v)", want, err)
		}
	}
	if z := res.Run.Zones; z == nil || !z.OnHosts || len(z.Zones) != 4 || res.Run.Nodes[2].Zone != "Tokyo" {
		t.Errorf("run.json zones %+v, nodes %+v: want the 4 zones labelling the nodes, on hosts", z, res.Run.Nodes)
	}
	if _, err := os.Stat(filepath.Join(res.Dir, "metrics.csv")); err != nil {
		t.Errorf("no metrics scraped over the bridge: %v", err)
	}
	interruptedID := interruptLoad(t, opts, n, n.Hosts[4])
	downStart := time.Now()
	if err := experiment.DownHosts(context.Background(), dir, &out); err != nil {
		t.Log(out.String())
		t.Fatal(err)
	}
	downed = true
	checkFirewall(t, n, false)
	// The interrupted load's own send log came back with the host's.
	if _, err := os.Stat(filepath.Join(dir, "collected", n.Hosts[4].Name, "load", interruptedID, "sent.csv")); err != nil {
		t.Errorf("the interrupted load's send log was not fetched back: %v", err)
	}
	downTime := time.Since(downStart)
	for i, h := range n.Hosts[:4] {
		h.Name = names[i]
		log := filepath.Join(dir, "collected", h.Name, "logs", fmt.Sprintf("validator%02d.log", i+1))
		if fi, err := os.Stat(log); err != nil || fi.Size() == 0 {
			t.Errorf("host %s: log not fetched back: %v", h.Name, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "collected", h.Name, "homes", fmt.Sprintf("validator%02d", i+1), "config", "config.toml")); err != nil {
			t.Errorf("host %s: home not fetched back: %v", h.Name, err)
		}
		if _, err := os.Stat(h.Workdir); err == nil {
			t.Errorf("host %s: workdir %s left after down", h.Name, h.Workdir)
		}
	}
	for _, p := range n.Processes() {
		if !strings.Contains(p, "sshd") {
			t.Errorf("left running after down: %s", p)
		}
	}

	t.Logf("deploy %s, down %s; on hosts: committed %v, committed_tps %.1f, block interval mean %.3f s",
		deployTime.Round(100*time.Millisecond), downTime.Round(100*time.Millisecond), res.Summary.Metrics["committed_txs"],
		res.Summary.Metrics["committed_tps"], res.Summary.Metrics["block_interval_mean_s"])
}

// checkLoadHosts checks a run's load from the load hosts named (two of
// 5 namespace hosts): their shares in run.json (one connection each,
// numbered apart, every transaction accounted for), their own send logs
// kept, and the clocks of the 5 hosts, all read from one kernel's clock,
// within their bounds of zero.
func checkLoadHosts(t *testing.T, res experiment.Result, names []string) {
	t.Helper()
	lh := res.Run.LoadHosts
	for i, name := range names {
		if len(lh) != 2 || lh[i].Name != name || lh[i].FirstConn != i || lh[i].Connections != 1 || lh[i].Sent+lh[i].Unsent != 800 ||
			lh[i].Sent == 0 || lh[i].Error != "" {
			t.Errorf("run.json load_hosts %+v, want %s: connection %d, 800 sent or unsent", lh, name, i)
		}
		if _, err := os.Stat(filepath.Join(res.Dir, experiment.HostsDir, name, "sent.csv")); err != nil {
			t.Errorf("load host %s's own send log: %v", name, err)
		}
	}
	if len(res.Run.Clocks) != 5 {
		t.Errorf("clocks of %d hosts, want 5: %+v", len(res.Run.Clocks), res.Run.Clocks)
	}
	for _, c := range res.Run.Clocks {
		// One kernel: the true offset is 0, within half the round trip
		// plus the answer's resolution; 20 µs of slack for the Go wall
		// clock against the monotonic one the round trip is timed by.
		if off := time.Duration(c.OffsetNs); off.Abs() > time.Duration(c.UncertaintyNs)+20*time.Microsecond || c.UncertaintyNs <= 0 {
			t.Errorf("host %s: clock offset %s ± %s, want 0 within the bound", c.Host, off, time.Duration(c.UncertaintyNs))
		}
	}
	t.Logf("clocks: %+v; bound %s", res.Run.Clocks, time.Duration(results.ClockBound(res.Run.Clocks)))
}

// buildCometlab builds the cometlab binary the load hosts run.
func buildCometlab(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "cometlab")
	start := time.Now()
	cmd := exec.Command("go", "build", "-o", bin, "github.com/cometlab/cometlab/cmd/cometlab")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build cometlab: %v\n%s", err, out)
	}
	t.Logf("built cometlab in %s", time.Since(start).Round(100*time.Millisecond))
	return bin
}

// checkFirewall checks the cometlab rules in the hosts' iptables: after
// deploy (open), each node host accepts its node's p2p, RPC and metrics
// ports and every host replies to its own connections; after down, none
// is left.
func checkFirewall(t *testing.T, n *nshoststest.Net, open bool) {
	t.Helper()
	for i, h := range n.Hosts {
		var ours []string
		for _, r := range n.Rules(t, h) {
			if strings.Contains(r, "cometlab") {
				ours = append(ours, r)
			}
		}
		want := 0
		if open {
			want = 2 // ports and replies
			if i == 4 {
				want = 1 // the load host listens on nothing
			}
		}
		if len(ours) != want || open && i < 4 && !strings.Contains(strings.Join(ours, "\n"), "26656,26657,26660") {
			t.Errorf("host %s: cometlab rules %q, want %d (open %v)", h.Name, ours, want, open)
		}
	}
}

// interruptLoad starts a 60-s load from the load hosts and interrupts it
// once host's own load is sending (its send log, in its workdir on the
// shared file system, holds a row): the run is partial, the hosts' loads
// are stopped (load-stop.yml: no `cometlab load` of the run is left on
// any host) and their send logs fetched and merged into the run's (host
// sent something). How long ansible-playbook takes to start `cometlab
// load` on the hosts depends on the machine, so the test waits for the
// load itself, up to 30 s past the start lead opts gives. It returns the
// run's id.
func interruptLoad(t *testing.T, opts experiment.LoadOptions, n *nshoststest.Net, host nshoststest.Host) string {
	t.Helper()
	lh := *opts.LoadHosts
	id := uuid.NewString()
	opts.LoadHosts, opts.Dir, opts.RunID = &lh, filepath.Join(t.TempDir(), "interrupted"), id
	opts.Manifest.Load.Rate, opts.Manifest.Load.Duration = 20, time.Minute
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan experiment.Result, 1)
	go func() {
		res, _ := experiment.Load(ctx, opts)
		done <- res
	}()
	sentLog := filepath.Join(host.Workdir, "load", id, results.SentFile)
	// The host's send log is flushed every second while its minute of
	// load runs: a row within 30 s of the start, or it was not.
	deadline := time.Now().Add(lh.StartLead + 30*time.Second)
	for !hasRow(sentLog) {
		select {
		case res := <-done:
			t.Fatalf("the load from the hosts ended before %s sent anything: status %q, errors %v", host.Name, res.Run.Status, res.Run.Errors)
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cancel()
			<-done
			t.Fatalf("host %s's send log had no row 30 s into its load (%s): not flushed while the load runs", host.Name, sentLog)
		}
	}
	cancel()
	res := <-done
	if res.Run.Status != results.StatusPartial {
		t.Errorf("interrupted load from the hosts: status %q, want partial (errors %v)", res.Run.Status, res.Run.Errors)
	}
	for _, p := range n.Processes() {
		if strings.Contains(p, "--run-id="+id) {
			t.Errorf("the interrupted load is still running on a host: %s", p)
		}
	}
	i := slices.IndexFunc(res.Run.LoadHosts, func(h results.LoadHost) bool { return h.Name == host.Name })
	if i < 0 || res.Run.LoadHosts[i].Sent == 0 {
		t.Errorf("run.json load_hosts %+v: want %s's sends, fetched and merged after the interrupt", res.Run.LoadHosts, host.Name)
	}
	return res.Run.ID
}

// hasRow reports whether the CSV file at path holds a row below its header.
func hasRow(path string) bool {
	b, err := os.ReadFile(path)
	return err == nil && bytes.Count(b, []byte("\n")) >= 2
}

// checkPatchedHost checks that host h, validator04's, was shipped the
// build of node's patched source (named by its code, not the release's
// binary) and runs it.
func checkPatchedHost(t *testing.T, h nshoststest.Host, node manifest.Node) {
	t.Helper()
	if node.Name != "validator04" || node.Source == nil || len(node.Source.Patches) != 1 {
		t.Fatalf("%s resolved with source %+v, want v0.40.0 with the patch", node.Name, node.Source)
	}
	bins, err := filepath.Glob(filepath.Join(h.Workdir, "bin", "cometbft-*-src-*"))
	if err != nil || len(bins) != 1 {
		t.Fatalf("%s's bin holds %v (%v): want the patched source's build alone", h.Name, bins, err)
	}
	pid, err := os.ReadFile(filepath.Join(h.Workdir, "run", node.Name+".pid"))
	if err != nil {
		t.Fatal(err)
	}
	if exe, err := os.Readlink(filepath.Join("/proc", strings.TrimSpace(string(pid)), "exe")); err != nil || exe != bins[0] {
		t.Errorf("%s runs %q (%v), want %s", node.Name, exe, err, bins[0])
	}
	others, _ := filepath.Glob(filepath.Join(h.Workdir, "..", "*", "bin", "cometbft-*-src-*"))
	if len(others) != 1 {
		t.Errorf("patched builds shipped: %v, want validator04's alone", others)
	}
}

// libp2pPatch is the path of the libp2p patch on v0.40.0 (testdata).
func libp2pPatch(t *testing.T) string {
	t.Helper()
	patch, err := filepath.Abs("../../testdata/patches/v0.40.0-libp2p-noblock-close.diff")
	if err != nil {
		t.Fatal(err)
	}
	return patch
}
