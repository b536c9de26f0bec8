package experiment_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/deploy"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/experiment/experimenttest"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
)

// plan200Manifest is the QA team's 200-node testnet in cometlab's own
// format: 200 validators, 4 on each of 50 hosts (qa-infra's 200-nodes.toml
// itself has no hosts, and its seeds and persistent peers wait for the
// topology of issue 27's part 2).
func plan200Manifest(t *testing.T) manifest.Resolved {
	t.Helper()
	var b strings.Builder
	b.WriteString("name = \"qa-200\"\nlinks = \"direct\"\n[load]\nconnections = 1\nrate = 400\nduration = \"90s\"\n")
	for h := range 50 {
		fmt.Fprintf(&b, "[host.host%02d]\naddress = \"10.0.%d.%d\"\nssh_user = \"qa\"\n", h, h/10, h%10+1)
	}
	for i := range 200 {
		fmt.Fprintf(&b, "[node.validator%03d]\nhost = \"host%02d\"\n", i, i/4)
	}
	return loadManifest(t, "qa-200.toml", b.String())
}

// TestDeployPlan is `cometlab deploy --plan` on a 200-node manifest: the
// homes, the inventory of 50 hosts and the playbooks are written and
// checked (every node's 199 persistent peers resolve to a host's address
// and P2P port, ports unique per host), and nothing runs: no Ansible, no
// node, no testnet.json. deploy.TestCheck shows each check failing.
func TestDeployPlan(t *testing.T) {
	if testing.Short() {
		t.Skip("runs cometbft init for 200 homes")
	}
	dir, _ := planChecked(t, plan200Manifest(t), 200, 50, 39800)
	for _, f := range []string{deploy.InventoryFile, deploy.DeployBook, deploy.DownBook, deploy.LoadBook, deploy.LoadStopBook, "homes-host49.tgz", "manifest.toml"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("plan: %v", err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, experiment.TestnetFile)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a plan wrote %s (%v): it must start nothing", experiment.TestnetFile, err)
	}
	b, err := os.ReadFile(filepath.Join(dir, deploy.InventoryFile))
	if err != nil {
		t.Fatal(err)
	}
	var inv struct {
		All struct {
			Children map[string]struct {
				Hosts map[string]struct {
					Nodes []map[string]any `json:"cometlab_nodes"`
				} `json:"hosts"`
			} `json:"children"`
		} `json:"all"`
	}
	if err := json.Unmarshal(b, &inv); err != nil {
		t.Fatal(err)
	}
	hosts := inv.All.Children["cometlab_hosts"].Hosts
	if len(hosts) != 50 || len(hosts["host07"].Nodes) != 4 {
		t.Errorf("inventory: %d hosts, host07 with %d nodes; want 50 and 4", len(hosts), len(hosts["host07"].Nodes))
	}
}

// TestDeployPlanYAMLInventory is `cometlab deploy --plan --inventory
// hosts.yml`: qa-infra's inventory in its YAML form (a host per node
// named by name and at its internal_ip, ansible_user a variable of all,
// the load runner, the Prometheus host noted) puts a manifest without
// hosts on its hosts, and the plan is written and checked as from
// [host.*] tables; the inventory.json it writes reads back (JSON being
// YAML) with the nodes' hosts at their internal addresses.
func TestDeployPlanYAMLInventory(t *testing.T) {
	if testing.Short() {
		t.Skip("runs cometbft init for 8 homes")
	}
	var mf, inv strings.Builder
	mf.WriteString("name = \"qa-yaml\"\nlinks = \"direct\"\n[load]\nconnections = 1\nrate = 100\nduration = \"30s\"\n")
	inv.WriteString("all:\n  vars:\n    ansible_user: root\n  children:\n    validators:\n      hosts:\n")
	for i := range 8 {
		fmt.Fprintf(&mf, "[node.validator%03d]\n", i)
		fmt.Fprintf(&inv, "        203.0.113.%d:\n          name: validator%03d\n          internal_ip: 10.10.0.%d\n", 10+i, i, 2+i)
	}
	inv.WriteString("    prometheus:\n      hosts:\n        203.0.113.90: {name: testnet-prometheus, internal_ip: 10.10.0.90}\n" +
		"    loadrunners:\n      hosts:\n        203.0.113.91: {name: testnet-load-runner, internal_ip: 10.10.0.91}\n    ephemeral:\n")
	hosts, err := deploy.ParseInventory(strings.NewReader(inv.String()), "hosts.yml")
	if err != nil {
		t.Fatal(err)
	}
	m, notes, err := experiment.ApplyInventory(loadManifest(t, "qa-yaml.toml", mf.String()), hosts, "hosts.yml", "")
	if err != nil || len(notes) != 1 {
		t.Fatalf("ApplyInventory: %v; notes %q, want one (the prometheus host)", err, notes)
	}
	dir, _ := planChecked(t, m, 8, 9, 56) // one host the load runner
	f, err := os.Open(filepath.Join(dir, deploy.InventoryFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	written, err := deploy.ParseInventory(f, deploy.InventoryFile)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range written {
		got = append(got, h.Group+" "+h.Name()+" "+h.Vars["ansible_user"]+"@"+h.NodeAddress())
	}
	for _, w := range []string{"cometlab_hosts validator003 root@10.10.0.5", "cometlab_hosts testnet-load-runner root@10.10.0.91"} {
		if !slices.Contains(got, w) {
			t.Errorf("%s: %q lacks %q", deploy.InventoryFile, got, w)
		}
	}
}

// planChecked runs `deploy --plan` for m into a new directory, which it
// returns, checking that the plan has nodes on hosts and says that links
// peer addresses resolve.
func planChecked(t *testing.T, m manifest.Resolved, nodes, hosts, links int) (string, string) {
	t.Helper()
	dir := t.TempDir()
	var out bytes.Buffer
	st, err := experiment.Deploy(t.Context(), experiment.DeployOptions{Manifest: m, Dir: dir,
		Env: experiment.Env{Fetcher: experimenttest.BuildFetcher(t), Out: &out, StartTimeout: time.Minute}, Plan: true})
	if err != nil {
		t.Fatalf("deploy --plan: %v\n%s", err, out.String())
	}
	if len(st.Nodes) != nodes || len(st.Hosts) != hosts {
		t.Errorf("the plan has %d nodes on %d hosts, want %d on %d", len(st.Nodes), len(st.Hosts), nodes, hosts)
	}
	if want := fmt.Sprintf("%d peer addresses resolve to a node of the plan", links); !strings.Contains(out.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, out.String())
	}
	return dir, out.String()
}

// TestDeployPlanQAInfra200 is `cometlab deploy --plan --inventory
// hosts.ini --ssh-user root` of qa-infra's own testnets/200-nodes.toml,
// copied unchanged (CometBFT's e2e format: 5 seeds, 20 full nodes, 175
// validators, its seeds and persistent peers as written, the e2e app
// with vote extensions and PBTS from height 1), on a 200-host inventory
// in the form qa-infra's Terraform writes (tf/templates/hosts.tmpl: one
// host per node, named by name, at its internal_ip; a load runner; a
// Prometheus host, noted). The plan is written and checked, and it runs
// the e2e app node: each host gets e2e-node of the manifest's release,
// marked to start from its app.toml, whose data directory is on the host
// and whose vote-extension height the genesis shares.
func TestDeployPlanQAInfra200(t *testing.T) {
	if testing.Short() {
		t.Skip("runs cometbft init for 200 homes")
	}
	m, warns, err := manifest.LoadFile(filepath.Join("..", "manifest", "testdata", "e2e", "200-nodes.toml"), manifest.ReadOptions{})
	if err != nil || len(warns) > 0 {
		t.Fatalf("200-nodes.toml: %v (warnings %q)", err, warns)
	}
	var inv strings.Builder
	inv.WriteString("[validators]\n")
	for i, name := range slices.Sorted(maps.Keys(m.Nodes)) {
		fmt.Fprintf(&inv, "198.51.%d.%d name=%s internal_ip=10.20.%d.%d\n", i/200, 10+i%200, name, i/200, 10+i%200)
	}
	inv.WriteString("\n[prometheus]\n198.51.9.1 name=testnet-prometheus internal_ip=10.20.9.1\n\n" +
		"[loadrunners]\n198.51.9.2 name=testnet-load-runner internal_ip=10.20.9.2\n\n[ephemeral]\n")
	path := filepath.Join(t.TempDir(), "hosts.ini")
	if err := os.WriteFile(path, []byte(inv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	r, notes, err := experiment.LoadInventory(m, path, "root")
	if err != nil {
		t.Fatalf("--inventory: %v (notes %q)", err, notes)
	}
	if len(r.Nodes) != 200 || r.App != manifest.AppE2E || r.AppConfig["vote_extensions_enable_height"] != int64(1) {
		t.Fatalf("the manifest on its hosts: %d nodes, app %q %v; want 200 nodes of the e2e app with vote extensions from height 1",
			len(r.Nodes), r.App, r.AppConfig)
	}
	links := 0 // every seed and persistent peer as written, each resolved
	for _, n := range r.Nodes {
		links += len(n.Seeds) + len(n.PersistentPeers)
	}
	dir, out := planChecked(t, r, 200, 201, links) // one host the load runner
	const app = "running CometBFT's e2e app node (e2e-node-v1.0.1; app.toml: pbts_enable_height = 1, vote_extensions_enable_height = 1)"
	if !strings.Contains(out, app) {
		t.Errorf("the plan does not say %q:\n%s", app, out)
	}
	checkE2EPlan(t, dir, r)
}

// checkE2EPlan checks the e2e app in the deployment plan of r written in
// dir: every node of inventory.json is its release's e2e app node, to
// start from its app.toml, and each home's app.toml keeps the app's data
// in the home deploy.yml unpacks on the host; the genesis carries the
// app's vote-extension height.
func checkE2EPlan(t *testing.T, dir string, r manifest.Resolved) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, deploy.InventoryFile))
	if err != nil {
		t.Fatal(err)
	}
	var inv struct {
		All struct {
			Children map[string]struct {
				Hosts map[string]struct {
					Workdir string `json:"cometlab_workdir"`
					Nodes   []struct {
						Name, Binary string
						Src          string `json:"binary_src"`
						E2E          bool
					} `json:"cometlab_nodes"`
				} `json:"hosts"`
			} `json:"children"`
		} `json:"all"`
	}
	if err := json.Unmarshal(b, &inv); err != nil {
		t.Fatal(err)
	}
	nodes := 0
	for host, h := range inv.All.Children["cometlab_hosts"].Hosts {
		for _, n := range h.Nodes {
			nodes++
			if !n.E2E || n.Binary != "e2e-node-"+r.CometBFTVersion || filepath.Base(n.Src) != cometbft.E2ENodeProgram.Name {
				t.Errorf("host %s: node %s runs %s from %s (e2e %v), want e2e-node-%s built as %s", host, n.Name, n.Binary, n.Src, n.E2E,
					r.CometBFTVersion, cometbft.E2ENodeProgram.Name)
				continue
			}
			app, err := os.ReadFile(filepath.Join(dir, results.NodesDir, n.Name, "config", "app.toml"))
			if want := fmt.Sprintf("dir = '%s/homes/%s/data/app'", h.Workdir, n.Name); err != nil || !strings.Contains(string(app), want) {
				t.Errorf("node %s: app.toml lacks %q (%v):\n%s", n.Name, want, err, app)
			}
		}
	}
	if nodes != len(r.Nodes) {
		t.Errorf("inventory.json has %d nodes, want %d", nodes, len(r.Nodes))
	}
	gen, err := os.ReadFile(filepath.Join(dir, results.NodesDir, r.Nodes[0].Name, "config", "genesis.json"))
	if err != nil || !strings.Contains(string(gen), `"vote_extensions_enable_height": "1"`) {
		t.Errorf("the genesis lacks the app's vote-extension height 1 (%v)", err)
	}
}
