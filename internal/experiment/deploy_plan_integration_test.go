package experiment_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/deploy"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/manifest"
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
	dir := planChecked(t, plan200Manifest(t), 200, 50, 39800)
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
	dir := planChecked(t, m, 8, 9, 56) // one host the load runner
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
func planChecked(t *testing.T, m manifest.Resolved, nodes, hosts, links int) string {
	t.Helper()
	dir := t.TempDir()
	var out bytes.Buffer
	st, err := experiment.Deploy(t.Context(), experiment.DeployOptions{Manifest: m, Dir: dir,
		Env: experiment.Env{Fetcher: buildFetcher(t), Out: &out, StartTimeout: time.Minute}, Plan: true})
	if err != nil {
		t.Fatalf("deploy --plan: %v\n%s", err, out.String())
	}
	if len(st.Nodes) != nodes || len(st.Hosts) != hosts {
		t.Errorf("the plan has %d nodes on %d hosts, want %d on %d", len(st.Nodes), len(st.Hosts), nodes, hosts)
	}
	if want := fmt.Sprintf("%d peer addresses resolve to a node of the plan", links); !strings.Contains(out.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, out.String())
	}
	return dir
}
