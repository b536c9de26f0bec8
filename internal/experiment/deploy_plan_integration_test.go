package experiment_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
	dir := t.TempDir()
	var out bytes.Buffer
	st, err := experiment.Deploy(t.Context(), experiment.DeployOptions{Manifest: plan200Manifest(t), Dir: dir, Fetcher: buildFetcher(t),
		Out: &out, StartTimeout: time.Minute, Plan: true})
	if err != nil {
		t.Fatalf("deploy --plan: %v\n%s", err, out.String())
	}
	if len(st.Nodes) != 200 || len(st.Hosts) != 50 {
		t.Errorf("the plan has %d nodes on %d hosts, want 200 on 50", len(st.Nodes), len(st.Hosts))
	}
	if want := "39800 peer addresses resolve to a node of the plan"; !strings.Contains(out.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, out.String())
	}
	for _, f := range []string{deploy.InventoryFile, deploy.DeployBook, deploy.DownBook, deploy.LoadBook, "homes-host49.tgz", "manifest.toml"} {
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
