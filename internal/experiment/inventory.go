package experiment

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cometlab/cometlab/internal/deploy"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/manifest"
)

// Inventory groups of qa-infra's tf/templates/hosts.tmpl and what
// ApplyInventory does with them.
var (
	nodeGroups = []string{"validators", "validators2", "ephemeral"} // hosts named after a node: the node's host
	loadGroup  = "loadrunners"                                      // the load hosts, unless [load] names its own
	promGroup  = "prometheus"                                       // noted, not used (cometlab writes prometheus.yml)
)

// LoadInventory puts the nodes of m (the manifest as written, flags
// applied, not resolved) on the hosts of the Ansible inventory file, INI
// or YAML, as `cometlab deploy --inventory` does: deploy.ParseInventory,
// then ApplyInventory on m resolved with links = "auto" (which places
// the nodes; settings a local testnet refuses and hosts take, such as
// zones with direct links, wait for the hosts), then m, with those hosts
// as its [host.*] tables, each node's host and the load hosts, resolved
// as a manifest with hosts is: its zones labels, its links direct, what
// hosts cannot do refused, and what Deploy writes into DIR/manifest.toml
// resolving the same. It returns ApplyInventory's notes; every error is
// a usage error.
func LoadInventory(m manifest.Manifest, file, sshUser string) (manifest.Resolved, []string, error) {
	placed, notes, err := PlaceOnInventory(m, file, sshUser)
	if err != nil {
		return manifest.Resolved{}, notes, err
	}
	r, err := placed.Resolve()
	if err != nil {
		return r, notes, exitcode.With(fmt.Errorf("--inventory %s: the manifest on its hosts: %w", file, err), exitcode.Usage)
	}
	return r, notes, nil
}

// PlaceOnInventory is LoadInventory but the last step: m with the
// inventory's hosts as its [host.*] tables, each node's host and the load
// hosts, not resolved (`qa --inventory` lays each side's release over it
// first).
func PlaceOnInventory(m manifest.Manifest, file, sshUser string) (manifest.Manifest, []string, error) {
	f, err := os.Open(file)
	if err != nil {
		return m, nil, exitcode.With(fmt.Errorf("--inventory: %w", err), exitcode.Usage)
	}
	defer f.Close()
	hosts, err := deploy.ParseInventory(f, file)
	if err != nil {
		return m, nil, exitcode.With(fmt.Errorf("--inventory: %w", err), exitcode.Usage)
	}
	probe := m
	probe.Links = manifest.LinksAuto
	local, err := probe.Resolve()
	if err != nil {
		return m, nil, exitcode.With(err, exitcode.Usage)
	}
	placed, notes, err := ApplyInventory(local, hosts, file, sshUser)
	if err != nil {
		return m, notes, err
	}
	m.Hosts, m.Nodes = map[string]manifest.ManifestHost{}, maps.Clone(m.Nodes)
	if m.Nodes == nil {
		m.Nodes = map[string]manifest.ManifestNode{} // the generated validators, made explicit
	}
	for _, h := range placed.Hosts {
		if h.SSHKey != "" {
			if h.SSHKey, err = filepath.Abs(h.SSHKey); err != nil { // as Ansible reads it: from the working directory
				return m, notes, err
			}
		}
		m.Hosts[h.Name] = manifest.ManifestHost{Address: h.Address, SSHUser: h.SSHUser, SSHPort: h.SSHPort, SSHKey: h.SSHKey, Workdir: h.Workdir, Firewall: h.Firewall}
	}
	for _, n := range placed.Nodes {
		mn := m.Nodes[n.Name]
		mn.Host = n.Host
		m.Nodes[n.Name] = mn
	}
	m.Load.Hosts = placed.Load.Hosts
	return m, notes, nil
}

// ApplyInventory puts m's nodes on the hosts of an Ansible inventory, INI
// or YAML (deploy.ParseInventory of file), as `cometlab deploy
// --inventory` does: each node goes to the host of the validators,
// validators2 or ephemeral group whose name is the node's name (its
// inventory hostname without one), on that host's internal_ip (else its
// ansible_host, else its hostname: cometlab, run inside the testnet's
// network as its read-back and scrape need, reaches the nodes and their
// ssh there); the loadrunners hosts become the load hosts when [load]
// names none. ssh_user, ansible_port and ansible_ssh_private_key_file
// come from the host's ansible_user, ansible_port and
// ansible_ssh_private_key_file (its own or its groups'), else sshUser and
// port 22; its workdir and firewall from cometlab_workdir and
// cometlab_firewall, else /var/tmp/cometlab-TESTNET and off. A host in
// two groups is one host: the node's and a load host, or a node's listed
// again in validators2 (qa-infra's validators of another version: noted,
// the version being the manifest's). It returns notes for what it does
// not use (the prometheus group), and a usage error naming file:line for
// a node without a host, a host naming no node, another group, or a
// manifest with [host.*] tables of its own.
func ApplyInventory(m manifest.Resolved, hosts []deploy.InventoryHost, file, sshUser string) (manifest.Resolved, []string, error) {
	if len(m.Hosts) > 0 {
		return m, nil, exitcode.With(fmt.Errorf("--inventory %s: the manifest has [host.*] tables of its own; give one or the other", file), exitcode.Usage)
	}
	m.Nodes, m.Hosts = slices.Clone(m.Nodes), nil
	var errs []error
	var notes, loads []string
	placed := map[string]bool{}
	for _, ih := range hosts {
		at := fmt.Sprintf("%s:%d", file, ih.Line)
		h, err := inventoryHost(ih, m.Name, sshUser)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", at, err))
			continue
		}
		switch {
		case slices.Contains(nodeGroups, ih.Group):
			i := slices.IndexFunc(m.Nodes, func(n manifest.Node) bool { return n.Name == ih.Name() })
			if i < 0 {
				errs = append(errs, fmt.Errorf("%s: [%s] host %s (name=%s) is no node of the manifest", at, ih.Group, ih.Address, ih.Name()))
				continue
			}
			if placed[ih.Name()] {
				notes = append(notes, fmt.Sprintf("%s: [%s] host %s (name=%s) is in another node group too: one host for the node, whose version is the manifest's", at, ih.Group, ih.Address, ih.Name()))
				continue
			}
			m.Nodes[i].Host, placed[ih.Name()] = h.Name, true
		case ih.Group == loadGroup && len(m.Load.Hosts) == 0:
			loads = append(loads, h.Name)
		case ih.Group == loadGroup:
			notes = append(notes, fmt.Sprintf("%s: [%s] host %s not used: [load] hosts names the load hosts", at, loadGroup, ih.Name()))
			continue
		case ih.Group == promGroup:
			notes = append(notes, fmt.Sprintf("%s: [%s] host %s not used: cometlab writes prometheus.yml for a server; read its series back with --prometheus URL", at, promGroup, ih.Name()))
			continue
		default:
			errs = append(errs, fmt.Errorf("%s: group [%s]: cometlab reads %v, %s and %s", at, ih.Group, nodeGroups, loadGroup, promGroup))
			continue
		}
		if !slices.ContainsFunc(m.Hosts, func(x manifest.Host) bool { return x.Name == h.Name }) {
			m.Hosts = append(m.Hosts, h) // once, though in two groups (a node's and the load's)
		}
	}
	for _, n := range m.Nodes {
		if !placed[n.Name] {
			errs = append(errs, fmt.Errorf("--inventory %s: node %s has no host (no name=%s in %v)", file, n.Name, n.Name, nodeGroups))
		}
	}
	for _, l := range m.Load.Hosts {
		if _, ok := m.HostOf(l); !ok {
			errs = append(errs, fmt.Errorf("--inventory %s: load host %s of [load] hosts is not in it", file, l))
		}
	}
	if len(m.Load.Hosts) == 0 {
		m.Load.Hosts = loads
	}
	if err := errors.Join(errs...); err != nil {
		return m, notes, exitcode.With(err, exitcode.Usage)
	}
	return m, notes, nil
}

// inventoryHost is the manifest host of an inventory line: its
// cometlab_workdir (else /var/tmp/cometlab-TESTNET, as a [host.*] table's
// default) and cometlab_firewall (else false) as ParseInventory checked
// them.
func inventoryHost(ih deploy.InventoryHost, testnet, sshUser string) (manifest.Host, error) {
	h := manifest.Host{Name: ih.Name(), Address: ih.NodeAddress(), SSHUser: sshUser, SSHPort: manifest.DefaultSSHPort,
		SSHKey: ih.Vars["ansible_ssh_private_key_file"], Workdir: "/var/tmp/cometlab-" + testnet}
	if u := ih.Vars["ansible_user"]; u != "" {
		h.SSHUser = u
	}
	if w := ih.Written(); len(w) > 0 {
		return h, fmt.Errorf("host %s: %s: cometlab writes these into its own inventory.json and does not read them (an inventory sets %s and %s)",
			ih.Address, strings.Join(w, ", "), deploy.VarWorkdir, deploy.VarFirewall)
	}
	if w := ih.Vars[deploy.VarWorkdir]; w != "" {
		h.Workdir = w
	}
	if f, ok := ih.Vars[deploy.VarFirewall]; ok {
		on, err := deploy.AnsibleBool(f)
		if err != nil {
			return h, fmt.Errorf("host %s: %s=%q: %w", ih.Address, deploy.VarFirewall, f, err)
		}
		h.Firewall = on
	}
	if p := ih.Vars["ansible_port"]; p != "" {
		port, err := strconv.Atoi(p)
		if err != nil || port < 1 || port > 65535 {
			return h, fmt.Errorf("host %s: ansible_port=%q is not a port", ih.Address, p)
		}
		h.SSHPort = port
	}
	if h.SSHUser == "" {
		return h, fmt.Errorf("host %s: no ssh user (its or its group's ansible_user, or --ssh-user)", ih.Address)
	}
	return h, nil
}
