package deploy

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// TestFailures reads a real ansible-playbook 2.14 output (one unreachable
// host, one failed task) and names both hosts with their reasons.
func TestFailures(t *testing.T) {
	out, err := os.ReadFile("testdata/failed.txt")
	if err != nil {
		t.Fatal(err)
	}
	got := Failures(string(out))
	want := []Failure{
		{Host: "h1", Msg: `task "Fail on purpose": unreachable: Failed to connect to the host via ssh: ssh: connect to host 127.0.0.1 port 1: Connection refused`},
		{Host: "h2", Msg: `task "Fail on purpose": non-zero return code: ls: cannot access '/nonexistent-dir': No such file or directory`},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Failures:\n got %q\nwant %q", got, want)
	}
	if f := Failures("PLAY RECAP ***\nh1 : ok=3    changed=1    unreachable=0    failed=0    skipped=0\n"); len(f) != 0 {
		t.Errorf("a clean recap gave %v", f)
	}
}

// TestInventory checks the inventory against its golden file.
func TestInventory(t *testing.T) {
	p := Plan{
		Homes: "/ctl/out/nodes", SSHArgs: "-o UserKnownHostsFile=/ctl/known_hosts", StartTimeout: time.Minute, Grace: 10 * time.Second,
		Hosts: []Host{
			{Name: "h1", Address: "10.213.0.11", SSHUser: "qa", SSHPort: 22, SSHKey: "/ctl/key", Workdir: "/srv/cometlab", Firewall: true,
				Nodes: []Node{{Name: "validator01", BinarySrc: "/cache/cometbft", Binary: "cometbft-v1.0.1", RPCPort: 26657, P2PPort: 26656, MetricsPort: 26660},
					{Name: "validator02", BinarySrc: "/cache/cometbft", Binary: "cometbft-v1.0.1", RPCPort: 26667, P2PPort: 26666, MetricsPort: 26670}}},
			{Name: "h2", Address: "node2.example.org", SSHUser: "qa", SSHPort: 2222, Workdir: "/var/tmp/cometlab-default",
				// the e2e app node (its testnet's app is network-wide; one plan shows both kinds here)
				Nodes: []Node{{Name: "validator03", BinarySrc: "/cache/e2e-node", Binary: "e2e-node-v1.0.1", RPCPort: 26657, E2E: true}}, Load: true},
			{Name: "load1", Address: "10.213.0.15", SSHUser: "qa", SSHPort: 22, Workdir: "/var/tmp/cometlab-default", Load: true},
		},
		Cometlab: "/ctl/bin/cometlab",
	}
	got, err := Inventory(p, "/ctl/out")
	if err != nil {
		t.Fatal(err)
	}
	resultstest.Golden(t, "testdata/inventory.json", got)
}

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	if err := Write(Plan{Homes: "/x"}, dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{InventoryFile, DeployBook, DownBook} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || len(b) == 0 {
			t.Errorf("%s: %v (%d bytes)", f, err, len(b))
		}
		if strings.HasSuffix(f, ".yml") && strings.Contains(string(b), "community.") {
			t.Errorf("%s uses a module outside ansible.builtin", f)
		}
	}
}

func tgz(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var b bytes.Buffer
	gz := gzip.NewWriter(&b)
	tw := tar.NewWriter(gz)
	for name, body := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	tw.Close()
	gz.Close()
	return b.Bytes()
}

func TestUnpack(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, CollectDir), 0o755)
	os.WriteFile(filepath.Join(dir, CollectDir, "h1.tgz"), tgz(t, map[string]string{"logs/validator01.log": "hello"}), 0o644)
	os.WriteFile(filepath.Join(dir, CollectDir, "h2.tgz"), tgz(t, map[string]string{"../../escape": "x"}), 0o644)
	err := Unpack(dir, []string{"h1", "h2"})
	if err == nil || !strings.Contains(err.Error(), "host h2") || !strings.Contains(err.Error(), "leaves the directory") {
		t.Errorf("Unpack error %v, want host h2's entry refused", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, CollectDir, "h1", "logs", "validator01.log")); string(b) != "hello" {
		t.Errorf("h1's log: %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "escape")); err == nil {
		t.Error("an entry escaped the directory")
	}
}

// TestPlaybookError: the hosts that failed, and the text that names each
// with its reason.
func TestPlaybookError(t *testing.T) {
	e := &PlaybookError{Book: LoadBook, Log: "/d/load.log", Failures: []Failure{{Host: "h2", Msg: "unreachable: no route"}, {Host: "h10", Msg: "non-zero return code"}}}
	if !e.Failed("h2") || !e.Failed("h10") || e.Failed("h1") {
		t.Errorf("Failed: h2 %v, h10 %v, h1 %v", e.Failed("h2"), e.Failed("h10"), e.Failed("h1"))
	}
	want := "ansible-playbook load.yml failed (see /d/load.log):\nhost h2: unreachable: no route\nhost h10: non-zero return code"
	if got := e.Error(); got != want {
		t.Errorf("Error:\n got %q\nwant %q", got, want)
	}
}

// TestAnsibleEnv: cometlab's defaults, each one the environment sets kept
// as the environment has it.
func TestAnsibleEnv(t *testing.T) {
	env := ansibleEnv([]string{"PATH=/bin", "ANSIBLE_FORKS=200"})
	for _, want := range []string{"PATH=/bin", "ANSIBLE_FORKS=200", "ANSIBLE_PIPELINING=1", "ANSIBLE_NOCOLOR=1"} {
		if !slices.Contains(env, want) {
			t.Errorf("env lacks %q: %v", want, env)
		}
	}
	if slices.Contains(env, "ANSIBLE_FORKS=50") {
		t.Errorf("the environment's ANSIBLE_FORKS was overridden: %v", env)
	}
}

// TestWritePacksHomes: each host with nodes gets one archive of its
// nodes' homes (modes kept), named in the inventory; a host without
// nodes none.
func TestWritePacksHomes(t *testing.T) {
	homes, dir := t.TempDir(), t.TempDir()
	for _, n := range []string{"validator01", "validator02"} {
		os.MkdirAll(filepath.Join(homes, n, "config"), 0o755)
		os.WriteFile(filepath.Join(homes, n, "config", "priv_validator_key.json"), []byte(n), 0o600)
	}
	p := Plan{Homes: homes, Hosts: []Host{
		{Name: "h1", Workdir: "/w", Nodes: []Node{{Name: "validator01", Binary: "cometbft-v1", BinarySrc: "/c"}, {Name: "validator02", Binary: "cometbft-v1", BinarySrc: "/c"}}},
		{Name: "load1", Workdir: "/w", Load: true},
	}}
	if err := Write(p, dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, HomesArchive("load1"))); err == nil {
		t.Error("a host without nodes got a homes archive")
	}
	out := t.TempDir()
	if err := untar(filepath.Join(dir, HomesArchive("h1")), out); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"validator01", "validator02"} {
		path := filepath.Join(out, n, "config", "priv_validator_key.json")
		fi, err := os.Stat(path)
		if b, _ := os.ReadFile(path); err != nil || string(b) != n || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, %q, mode %v", path, err, b, fi)
		}
	}
	inv, _ := os.ReadFile(filepath.Join(dir, InventoryFile))
	if n := strings.Count(string(inv), `"name": "cometbft-v1"`); n != 1 {
		t.Errorf("cometlab_binaries lists the release %d times for 2 nodes, want once", n)
	}
}
