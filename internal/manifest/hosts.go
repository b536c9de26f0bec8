package manifest

import (
	"fmt"
	"maps"
	"net"
	"path"
	"path/filepath"
	"regexp"
	"slices"
)

// DefaultSSHPort is a [host.NAME] table's ssh_port when it gives none.
const DefaultSSHPort = 22

// ManifestHost is one [host.NAME] table: a machine `cometlab deploy`
// reaches over ssh (through ansible-playbook) and runs nodes on. Nodes
// name their host with host = "NAME"; a manifest with hosts puts every
// node on one.
type ManifestHost struct {
	// Address is the host's IP address or DNS name, as the control host
	// reaches it and as the other hosts' nodes dial it: the nodes' p2p,
	// RPC and metrics listeners bind it. Required.
	//
	//	address = "10.0.0.11"
	Address string `toml:"address"`

	// SSHUser is the user ansible logs in as. Required.
	//
	//	ssh_user = "cometlab"
	SSHUser string `toml:"ssh_user"`

	// SSHPort is the host's ssh port (1–65535). Default 22.
	//
	//	ssh_port = 2222
	SSHPort int `toml:"ssh_port,omitempty"`

	// SSHKey is the private key ansible logs in with, relative to the
	// manifest's directory. Default "" (ssh's own default keys or agent).
	//
	//	ssh_key = "keys/qa_ed25519"
	SSHKey string `toml:"ssh_key,omitempty"`

	// Workdir is the absolute directory on the host that holds the node
	// binary, the homes, logs and pid files. Default
	// "/var/tmp/cometlab-<testnet name>".
	//
	//	workdir = "/srv/cometlab"
	Workdir string `toml:"workdir,omitempty"`

	// Firewall makes deploy.yml open the ports the host's nodes listen on
	// (p2p, RPC, metrics), and accept replies to the connections the host
	// makes, in the host's iptables INPUT chain (rules commented
	// "cometlab", removed again by down.yml), for a host whose firewall
	// drops what it does not allow. Needs iptables on the host, and root
	// (the ssh user, or passwordless sudo). Default false (the firewall is
	// left alone).
	//
	//	firewall = true
	Firewall bool `toml:"firewall,omitempty"`
}

// Host is a resolved [host.NAME] table.
type Host struct {
	Name    string
	Address string
	SSHUser string
	SSHPort int
	// SSHKey is the absolute path of the private key; "" for ssh's own.
	SSHKey   string
	Workdir  string
	Firewall bool
}

// hostAddress is what a host's address may be when it is not an IP
// address: a DNS name.
var hostAddress = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$`)

// sshUser is what an ssh user may be.
var sshUser = regexp.MustCompile(`^[a-z_][a-z0-9_.-]*$`)

// resolveHosts reads the [host.NAME] tables and each node's host, which it
// sets on nodes. Without hosts it checks that no node names one.
func (m *Manifest) resolveHosts(ps *problems, r *Resolved) []Host {
	nodes := r.Nodes
	var hosts []Host
	for _, name := range slices.Sorted(maps.Keys(m.Hosts)) {
		mh := m.Hosts[name]
		h := Host{Name: name, Address: mh.Address, SSHUser: mh.SSHUser, SSHPort: mh.SSHPort, Workdir: mh.Workdir, Firewall: mh.Firewall}
		if !nodeName.MatchString(name) {
			ps.add(f("host", name), "invalid host name (want [a-z0-9_-]+)")
		}
		switch {
		case h.Address == "":
			ps.add(f("host", name), "needs address = \"…\" (an IP address or DNS name)")
		case net.ParseIP(h.Address) == nil && !hostAddress.MatchString(h.Address):
			ps.add(f("host", name, "address"), "invalid address %q (want an IP address or DNS name)", h.Address)
		}
		switch {
		case h.SSHUser == "":
			ps.add(f("host", name), "needs ssh_user = \"…\"")
		case !sshUser.MatchString(h.SSHUser):
			ps.add(f("host", name, "ssh_user"), "invalid user name %q", h.SSHUser)
		}
		if h.SSHPort == 0 {
			h.SSHPort = DefaultSSHPort
		} else if h.SSHPort < 1 || h.SSHPort > 65535 {
			ps.add(f("host", name, "ssh_port"), "must be a port between 1 and 65535, got %d", h.SSHPort)
		}
		if mh.SSHKey != "" {
			p := m.relative(mh.SSHKey, "host."+name+".ssh_key")
			if abs, err := filepath.Abs(p); err == nil {
				p = abs
			}
			h.SSHKey = p
		}
		if h.Workdir == "" {
			h.Workdir = "/var/tmp/cometlab-" + m.Name
		} else if !path.IsAbs(h.Workdir) || path.Clean(h.Workdir) == "/" {
			ps.add(f("host", name, "workdir"), "must be an absolute directory other than /, got %q", h.Workdir)
		}
		hosts = append(hosts, h)
	}
	for i, n := range nodes {
		mn, explicit := m.Nodes[n.Name]
		switch {
		case mn.Host == "" && len(hosts) > 0 && !n.Ephemeral:
			if explicit {
				ps.add(f("node", n.Name), "has no host: with [host.*] tables every node needs host = \"…\"")
			} else {
				ps.add(f("host"), "with [host.*] tables give explicit [node.NAME] tables, each with host = \"…\"")
				return hosts
			}
		case mn.Host == "":
		case len(hosts) == 0:
			ps.add(f("node", n.Name, "host"), "a host needs a [host.%s] table with its address", mn.Host)
		case !slices.ContainsFunc(hosts, func(h Host) bool { return h.Name == mn.Host }):
			ps.add(f("node", n.Name, "host"), "unknown host %q (the manifest has %s)", mn.Host, hostNames(hosts))
		default:
			nodes[i].Host = mn.Host
		}
	}
	if len(hosts) > 0 {
		checkHostFeatures(ps, r)
	}
	r.Load.Hosts = m.resolveLoadHosts(ps, hosts, r.Load)
	return hosts
}

// resolveLoadHosts checks [load] hosts: known [host.*] tables, each once,
// no more than the connections, and a load they can send (loadtime
// payloads of a shape without a trace file, one client).
func (m *Manifest) resolveLoadHosts(ps *problems, hosts []Host, l Workload) []string {
	names := m.Load.Hosts
	if len(names) == 0 {
		return nil
	}
	seen := map[string]bool{}
	for _, name := range names {
		switch {
		case len(hosts) == 0:
			ps.add(f("load", "hosts"), "load hosts need [host.NAME] tables (and a testnet started with `cometlab deploy`)")
			return nil
		case seen[name]:
			ps.add(f("load", "hosts"), "host %q appears twice", name)
		case !slices.ContainsFunc(hosts, func(h Host) bool { return h.Name == name }):
			ps.add(f("load", "hosts"), "unknown host %q (the manifest has %s)", name, hostNames(hosts))
		}
		seen[name] = true
	}
	for _, msg := range l.LoadHostsProblems(len(names)) {
		ps.add(f("load", "hosts"), "%s", msg)
	}
	return slices.Clone(names)
}

// LoadHostsProblems says why n load hosts cannot send l (none when they
// can): each sends a share of one client's connections, of loadtime
// payloads, of a shape without a trace file.
func (l Workload) LoadHostsProblems(n int) []string {
	var out []string
	switch {
	case len(l.Clients) > 0:
		out = append(out, "load hosts send one client's load: not with [[load.client]] tables")
	case l.Connections < n:
		out = append(out, fmt.Sprintf("%d load hosts share %d connections: give at least one connection per host", n, l.Connections))
	}
	if l.TxsFile != "" {
		out = append(out, "load hosts send loadtime payloads: not with txs = \"…\"")
	}
	if l.TraceFile != "" {
		out = append(out, "load hosts cannot replay a trace file: give the shape by its parameters")
	}
	return out
}

// HostShares splits the load's connections between its load hosts: host
// i gets Connections[i] connections numbered from Offsets[i], the first
// hosts one more when they do not divide evenly.
func (l Workload) HostShares() (offsets, connections []int) {
	n := len(l.Hosts)
	off := 0
	for i := range n {
		c := l.Connections / n
		if i < l.Connections%n {
			c++
		}
		offsets, connections = append(offsets, off), append(connections, c)
		off += c
	}
	return offsets, connections
}

// checkHostFeatures refuses what a deployed testnet cannot do yet: its
// nodes are started by ansible on other machines, so cometlab cannot run
// their relays, perturb them, rotate nodes or start an app beside them
// (the kvstore is built into the node, the e2e app node is one binary
// that deploy.yml starts instead of cometbft).
// Zones are taken as labels (the report's figures per zone, the matrix
// for reference); their delays, jitter and bandwidth are the hosts' own.
func checkHostFeatures(ps *problems, r *Resolved) {
	if z := r.Zones; z != nil { // zones label the nodes; the hosts' own network is the delay
		if z.Jitter > 0 {
			ps.add(f("zones", "jitter"), "jitter is emulated by local relays: on [host.*] testnets the hosts' own network is the delay")
		}
		if z.BandwidthMbps > 0 || len(z.BandwidthPairs) > 0 {
			ps.add(f("zones", "bandwidth_mbps"), "bandwidth is emulated by local relays: on [host.*] testnets the hosts' own network is the limit")
		}
	}
	if len(r.Perturbations) > 0 {
		ps.add(f("perturb"), "perturbations are not supported on [host.*] testnets")
	}
	if r.Rotate != nil {
		ps.add(f("rotate"), "rotation is not supported on [host.*] testnets")
	}
	if len(r.AbsentNames()) > 0 {
		ps.add(f("absent"), "absent validators are not supported on [host.*] testnets")
	}
	if r.Evidence > 0 {
		ps.add(f("evidence"), "injected evidence is not supported on [host.*] testnets")
	}
	if r.Partition != nil {
		ps.add(f("partition"), "a partition cuts local relays: it is not supported on [host.*] testnets")
	}
	if r.Links == LinksRelay {
		ps.add(f("links"), "relayed links are local: [host.*] testnets need links = %q", LinksDirect)
	}
	if r.Sentinel != nil {
		ps.add(f("sentinel"), "the sentinel is not supported on [host.*] testnets")
	}
	if r.App == AppExternal {
		ps.add(f("app"), "an external app is a process cometlab starts beside each local node: [host.*] testnets run the kvstore or the e2e app (%q or %q)", AppKVStore, AppE2E)
	}
	if r.TimeScale != 1 || r.TimeScaleAuto {
		ps.add(f("time_scale"), "a time-scaled run scales every delay and rate: on [host.*] testnets the hosts' own network (its delays and bandwidth) cannot be scaled")
	}
}

func hostNames(hosts []Host) string {
	s := ""
	for i, h := range hosts {
		if i > 0 {
			s += ", "
		}
		s += h.Name
	}
	return s
}

// encodeHosts is the [host.NAME] tables Encode writes; nil without hosts.
func encodeHosts(hosts []Host) map[string]ManifestHost {
	if len(hosts) == 0 {
		return nil
	}
	out := make(map[string]ManifestHost, len(hosts))
	for _, h := range hosts {
		out[h.Name] = ManifestHost{Address: h.Address, SSHUser: h.SSHUser, SSHPort: h.SSHPort, SSHKey: h.SSHKey, Workdir: h.Workdir, Firewall: h.Firewall}
	}
	return out
}

// HostOf returns the host named name and whether r has it.
func (r Resolved) HostOf(name string) (Host, bool) {
	for _, h := range r.Hosts {
		if h.Name == name {
			return h, true
		}
	}
	return Host{}, false
}

// String describes h for a log line: user@address:port.
func (h Host) String() string { return fmt.Sprintf("%s@%s:%d", h.SSHUser, h.Address, h.SSHPort) }
