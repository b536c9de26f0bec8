package manifest

import (
	"path/filepath"
)

func init() {
	key, _ := filepath.Abs(filepath.Join(fixtures, "keys/qa_ed25519"))
	goodManifests["hosts.good.toml"] = Resolved{
		Name: "default", CometBFTVersion: "v0.40.0", App: "kvstore", LogLevel: "state:info,*:error", Links: "direct",
		Config: map[string]any{},
		Nodes: []Node{
			{Name: "validator01", Mode: ModeValidator, Power: 1, Version: "v0.40.0", Config: map[string]any{}, Host: "h1"},
			{Name: "validator02", Mode: ModeValidator, Power: 1, Version: "v0.40.0", Config: map[string]any{}, Host: "h2"},
		},
		Load: defaultLoad,
		Hosts: []Host{
			{Name: "h1", Address: "10.213.0.11", SSHUser: "qa", SSHPort: 2222, SSHKey: key, Workdir: "/srv/cometlab"},
			{Name: "h2", Address: "node2.example.org", SSHUser: "qa", SSHPort: DefaultSSHPort, Workdir: "/var/tmp/cometlab-default"},
		},
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
}
