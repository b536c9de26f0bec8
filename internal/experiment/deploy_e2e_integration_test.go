package experiment_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/experiment/experimenttest"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/testnet/nshoststest"
)

// TestDeployHostsE2EApp deploys CometBFT's e2e app node (v0.40.0, 1 KiB
// vote extensions) as 3 validators on 2 network-namespace hosts (two on
// the first: the second host's ports) through the real ansible-playbook
// over ssh, loads them from the control host (`cometlab load --testnet`),
// checks that every transaction committed, that the hosts ran the e2e app
// node from its app.toml with its data in the home on the host, then
// stops them with down.yml and checks, in the logs fetched back, that
// every validator extended its votes with 1024 bytes and verified its
// peers', and that nothing is left running.
func TestDeployHostsE2EApp(t *testing.T) {
	if testing.Short() {
		t.Skip("deploys a real e2e-app testnet to namespace hosts")
	}
	experimenttest.Proves(t)
	nshoststest.Require(t)
	const size = 1024
	var text strings.Builder
	text.WriteString("name = \"e2e-hosts\"\nlinks = \"direct\"\n[app]\nkind = \"e2e\"\nvote_extension_size = 1024\n" +
		"[load]\nconnections = 1\nrate = 50\nduration = \"6s\"\ndrain_timeout = \"30s\"\n")
	m := func(n *nshoststest.Net) manifest.Resolved {
		for i, h := range n.Hosts {
			fmt.Fprintf(&text, "[host.h%d]\naddress = %q\nssh_user = %q\nssh_key = %q\nworkdir = %q\n", i+1, h.Address, n.User, n.Key, h.Workdir)
		}
		for i, host := range []string{"h1", "h1", "h2"} {
			fmt.Fprintf(&text, "[node.validator%02d]\nhost = %q\n", i+1, host)
		}
		return loadManifest(t, "e2e-hosts.toml", text.String())
	}
	f := experimenttest.Fetcher(t) // the node lock
	n := nshoststest.New(t, 2)
	onHosts := m(n)
	dir := filepath.Join(t.TempDir(), "deployed")
	var out bytes.Buffer
	if _, err := experiment.Deploy(context.Background(), experiment.DeployOptions{Manifest: onHosts, Dir: dir,
		Env: experiment.Env{Fetcher: f, Out: &out, StartTimeout: 60 * time.Second, SSHArgs: n.SSHArgs}}); err != nil {
		logs, _ := os.ReadFile(filepath.Join(dir, "deploy.log"))
		t.Fatalf("%v\n%s\n%s", err, out.String(), logs)
	}
	downed := false
	t.Cleanup(func() {
		if !downed {
			_ = experiment.DownHosts(context.Background(), dir, os.Stderr)
		}
	})
	if want := "running CometBFT's e2e app node (e2e-node-v0.40.0; app.toml: vote_extension_size = 1024, vote_extensions_enable_height = 1)"; !strings.Contains(out.String(), want) {
		t.Errorf("deploy's output lacks %q:\n%s", want, out.String())
	}
	nodes := map[string]string{"validator01": n.Hosts[0].Workdir, "validator02": n.Hosts[0].Workdir, "validator03": n.Hosts[1].Workdir}
	procs := strings.Join(n.Processes(), "\n")
	for name, workdir := range nodes {
		home := filepath.Join(workdir, "homes", name)
		if want := fmt.Sprintf("%s/bin/e2e-node-v0.40.0 %s/config/app.toml", workdir, home); !strings.Contains(procs, want) {
			t.Errorf("no process %q on the hosts:\n%s", want, procs)
		}
		if ents, err := os.ReadDir(filepath.Join(home, "data", "app")); err != nil || len(ents) == 0 {
			t.Errorf("node %s: the app's data directory in its home on the host is empty (%v)", name, err)
		}
	}

	tl, err := experiment.ReadTestnetLoad(dir)
	if err != nil {
		t.Fatal(err)
	}
	mf, err := manifest.Load(tl.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	rm, err := mf.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	opts := experiment.LoadOptions{Manifest: rm, Dir: filepath.Join(t.TempDir(), "run"), Readback: true, Env: experiment.Env{Out: &out, Version: "test"}}
	tl.Apply(&opts)
	res, err := experiment.Load(context.Background(), opts)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	checkAccounted(t, res, 300)
	if rep, err := os.ReadFile(filepath.Join(res.Dir, results.ReportFile)); err != nil ||
		!strings.Contains(string(rep), "| app | e2e (vote_extension_size = 1024, vote_extensions_enable_height = 1) |") {
		t.Errorf("the load's report does not state the deployment's app (%v):\n%s", err, rep)
	}

	if err := experiment.DownHosts(context.Background(), dir, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	downed = true
	// The e2e app logs every extension it makes and every one it verifies.
	generated := regexp.MustCompile(`generated vote extension .* len=(\d+)`)
	verified := regexp.MustCompile(`verified vote extension value .* num=(\d+)`)
	for name, host := range map[string]string{"validator01": "h1", "validator02": "h1", "validator03": "h2"} {
		b, err := os.ReadFile(filepath.Join(dir, "collected", host, "logs", name+".log"))
		if err != nil {
			t.Fatal(err)
		}
		for _, re := range []*regexp.Regexp{generated, verified} {
			ms := re.FindAllStringSubmatch(string(b), -1)
			if len(ms) < 5 {
				t.Errorf("%s: %d log lines matching %q, want one per height (≥ 5)", name, len(ms), re)
			}
			for _, m := range ms {
				if m[1] != fmt.Sprint(size) {
					t.Errorf("%s: %q, want an extension of %d bytes", name, m[0], size)
					break
				}
			}
		}
	}
	for _, p := range n.Processes() {
		if !strings.Contains(p, "sshd") {
			t.Errorf("left running after down: %s", p)
		}
	}
	t.Logf("on hosts, the e2e app: committed %v, committed_tps %.1f, block interval mean %.3f s", res.Summary.Metrics["committed_txs"],
		res.Summary.Metrics["committed_tps"], res.Summary.Metrics["block_interval_mean_s"])
}
