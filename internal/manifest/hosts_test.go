package manifest

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

func init() {
	key, _ := filepath.Abs(filepath.Join(fixtures, "keys/qa_ed25519"))
	goodManifests["hosts.good.toml"] = Resolved{
		Name: "default", CometBFTVersion: "v0.40.0", App: "kvstore", LogLevel: "state:info,*:error", Links: "direct", Topology: "mesh",
		Config: map[string]any{},
		Nodes: []Node{
			{Name: "validator01", Mode: ModeValidator, Power: 1, Version: "v0.40.0", Config: map[string]any{}, Host: "h1"},
			{Name: "validator02", Mode: ModeValidator, Power: 1, Version: "v0.40.0", Config: map[string]any{}, Host: "h2"},
		},
		Load: defaultLoad,
		Hosts: []Host{
			{Name: "h1", Address: "10.213.0.11", SSHUser: "qa", SSHPort: 2222, SSHKey: key, Workdir: "/srv/cometlab", Firewall: true},
			{Name: "h2", Address: "node2.example.org", SSHUser: "qa", SSHPort: DefaultSSHPort, Workdir: "/var/tmp/cometlab-default"},
		},
	}

	loadHosts := defaultLoad
	loadHosts.Connections, loadHosts.Hosts = 3, []string{"load1", "h2"}
	goodManifests["loadhosts.good.toml"] = Resolved{
		Name: "default", CometBFTVersion: "v0.40.0", App: "kvstore", LogLevel: "state:info,*:error", Links: "direct", Topology: "mesh",
		Config: map[string]any{},
		Nodes: []Node{
			{Name: "validator01", Mode: ModeValidator, Power: 1, Version: "v0.40.0", Config: map[string]any{}, Host: "h1"},
			{Name: "validator02", Mode: ModeValidator, Power: 1, Version: "v0.40.0", Config: map[string]any{}, Host: "h2"},
		},
		Load: loadHosts,
		Hosts: []Host{
			{Name: "h1", Address: "10.213.0.11", SSHUser: "qa", SSHPort: DefaultSSHPort, Workdir: "/var/tmp/cometlab-default"},
			{Name: "h2", Address: "10.213.0.12", SSHUser: "qa", SSHPort: DefaultSSHPort, Workdir: "/var/tmp/cometlab-default"},
			{Name: "load1", Address: "10.213.0.15", SSHUser: "qa", SSHPort: DefaultSSHPort, Workdir: "/var/tmp/cometlab-default"},
		},
	}
	badManifests["loadhosts.bad.toml"] = []string{
		`loadhosts.bad.toml:4:1: load.hosts: host "h1" appears twice`,
		`loadhosts.bad.toml:4:1: load.hosts: unknown host "nope" (the manifest has h1, h2)`,
		"loadhosts.bad.toml:4:1: load.hosts: 4 load hosts share 2 connections: give at least one connection per host",
	}
	badManifests["loadhosts-local.bad.toml"] = []string{
		"loadhosts-local.bad.toml:2:1: load.hosts: load hosts need [host.NAME] tables (and a testnet started with `cometlab deploy`)",
	}

	badManifests["hosts.bad.toml"] = []string{
		`hosts.bad.toml:2:1: host.h1.address: invalid address "10.0.0.1 ; rm" (want an IP address or DNS name)`,
		`hosts.bad.toml:3:1: host.h1.ssh_user: invalid user name "Root User"`,
		"hosts.bad.toml:4:1: host.h1.ssh_port: must be a port between 1 and 65535, got 70000",
		`hosts.bad.toml:5:1: host.h1.workdir: must be an absolute directory other than /, got "relative/dir"`,
		`hosts.bad.toml:7:2: host.h2: needs address = "…" (an IP address or DNS name)`,
		`hosts.bad.toml:7:2: host.h2: needs ssh_user = "…"`,
		`hosts.bad.toml:12:1: node.b.host: unknown host "h3" (the manifest has h1, h2)`,
		`hosts.bad.toml:13:2: node.c: has no host: with [host.*] tables every node needs host = "…"`,
	}
	badManifests["hosts-missing.bad.toml"] = []string{
		"hosts-missing.bad.toml:2:1: node.a.host: a host needs a [host.h1] table with its address",
	}
	badManifests["hosts-features.bad.toml"] = []string{
		`hosts-features.bad.toml:1:1: links: relayed links are local: [host.*] testnets need links = "direct"`,
		"hosts-features.bad.toml:7:2: perturb: perturbations are not supported on [host.*] testnets",
	}
	badManifests["hosts-app.bad.toml"] = []string{
		`hosts-app.bad.toml:3:1: app: an external app is a process cometlab starts beside each local node: [host.*] testnets run the kvstore or the e2e app ("kvstore" or "e2e")`,
	}
}

func TestHostShares(t *testing.T) {
	for _, tc := range []struct {
		conns, hosts  int
		offsets, each []int
	}{
		{1, 1, []int{0}, []int{1}},
		{4, 1, []int{0}, []int{4}},
		{4, 2, []int{0, 2}, []int{2, 2}},
		{5, 2, []int{0, 3}, []int{3, 2}},
		{7, 3, []int{0, 3, 5}, []int{3, 2, 2}},
		{3, 0, nil, nil},
	} {
		l := Workload{Connections: tc.conns, Hosts: make([]string, tc.hosts)}
		off, each := l.HostShares()
		if !slices.Equal(off, tc.offsets) || !slices.Equal(each, tc.each) {
			t.Errorf("%d conns on %d hosts: offsets %v, connections %v; want %v, %v", tc.conns, tc.hosts, off, each, tc.offsets, tc.each)
		}
	}
}

// TestEncodeLoad: a load host's manifest carries the load (shape and
// all) without the load hosts, and reads back as the same load.
func TestEncodeLoad(t *testing.T) {
	d := Default()
	d.Load.Connections, d.Load.Rate, d.Load.Size, d.Load.Shape = 3, 150, 512, "ramp"
	to := 300.0
	d.Load.RateTo = &to
	r, err := d.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	l := r.Load
	l.Hosts, l.Target = []string{"load1"}, "validator03"
	text, err := EncodeLoad(l)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "load.toml")
	if err := os.WriteFile(path, text, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	back, err := m.Resolve()
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	want := r.Load
	if !reflect.DeepEqual(back.Load, want) {
		t.Errorf("load read back:\n got %+v\nwant %+v\n%s", back.Load, want, text)
	}
}
