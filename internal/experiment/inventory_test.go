package experiment_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/deploy"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/manifest"
)

// qaNodes is the manifest of deploy's testdata/qa-hosts.ini: two
// validators and a seed.
const qaNodes = "name = \"qa\"\n[node.validator000]\n[node.validator001]\n[node.seed0]\nmode = \"seed\"\n"

// qaNamedYAML is qaNodes' inventory in YAML as people write it by hand:
// hosts named after the nodes at their ansible_host, the ssh user a
// variable of all (one host overrides it), a port in a host's key,
// internal_ip from a merge key, and the groups one level down.
const qaNamedYAML = `all:
  vars:
    ansible_user: qa
  children:
    cometbft:
      children:
        validators:
          hosts:
            validator000:
              ansible_host: 203.0.113.10
            validator001:2222:
              ansible_host: 203.0.113.11
              ansible_user: admin
        ephemeral:
          hosts:
            seed0:
              <<: {internal_ip: 10.10.0.4}
              ansible_host: 203.0.113.12
    loadrunners:
      hosts:
        lr0: {ansible_host: 203.0.113.30}
`

// TestApplyInventory puts a manifest's nodes on the hosts of qa-infra's
// inventory form, and refuses, naming file:line or the node, every
// inventory that leaves something out or says what cometlab does not do.
func TestApplyInventory(t *testing.T) {
	qa, err := os.ReadFile("../deploy/testdata/qa-hosts.ini")
	if err != nil {
		t.Fatal(err)
	}
	qaYAML, err := os.ReadFile("../deploy/testdata/qa-hosts.yml")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, manifest, inv, user string
		yaml                      bool     // inv is inv.yml, else inv.ini
		want                      []string // in the error, or, without one, in the hosts' and notes' description
	}{
		{name: "qa-infra", manifest: qaNodes, inv: string(qa), user: "root", want: []string{
			"validator000 on validator000 root@10.10.0.2:22", "validator001 on validator001 root@10.10.0.3:22", "seed0 on seed0 root@10.10.0.4:22",
			"load hosts [testnet-load-runner]",
			"note: inv.ini:7: [prometheus] host testnet-prometheus not used",
			"host validator000 /var/tmp/cometlab-qa firewall=false", "host testnet-load-runner /var/tmp/cometlab-qa firewall=false",
		}},
		{name: "qa-infra in YAML", manifest: qaNodes, inv: string(qaYAML), yaml: true, user: "root", want: []string{
			"validator000 on validator000 root@10.10.0.2:22", "validator001 on validator001 root@10.10.0.3:22", "seed0 on seed0 root@10.10.0.4:22",
			"load hosts [testnet-load-runner]",
			"note: inv.yml:16: [prometheus] host testnet-prometheus not used",
		}},
		{name: "validators2, as qa-infra writes it", manifest: qaNodes, user: "root",
			inv: string(qa) + "[validators2]\n203.0.113.11 name=validator001 internal_ip=10.10.0.3\n", want: []string{
				"validator001 on validator001 root@10.10.0.3:22", "hosts [validator000 validator001 seed0 testnet-load-runner]",
				"note: inv.ini:14: [validators2] host 203.0.113.11 (name=validator001) is in another node group too: one host for the node",
			}},
		{name: "YAML a node's host and the load's", manifest: "name = \"qa\"\n[node.validator000]\n", yaml: true, user: "root",
			inv:  "all:\n  hosts:\n    validator000: {ansible_host: 10.0.0.1}\n  children:\n    validators: {hosts: {validator000: }}\n    loadrunners: {hosts: {validator000: }}\n",
			want: []string{"validator000 on validator000 root@10.0.0.1:22", "hosts [validator000]\nload hosts [validator000]"}},
		{name: "YAML named hosts, group vars", manifest: qaNodes, yaml: true, inv: qaNamedYAML, want: []string{
			"validator000 on validator000 qa@203.0.113.10:22", "validator001 on validator001 admin@203.0.113.11:2222", "seed0 on seed0 qa@10.10.0.4:22",
			"load hosts [lr0]",
		}},
		{name: "YAML host in no group", manifest: qaNodes, yaml: true, user: "root", inv: "all:\n  hosts:\n    validator000:\n",
			want: []string{"inv.yml:3: all.hosts.validator000: host validator000 is in no group"}},
		{name: "YAML bad ansible_port", manifest: qaNodes, yaml: true, user: "root", inv: "validators:\n  hosts:\n    validator000:\n      ansible_port: ssh\n",
			want: []string{`inv.yml:4: validators.hosts.validator000.ansible_port: ansible_port="ssh" is not a port number (1-65535)`}},
		{name: "YAML a node without a host", manifest: qaNodes + "[node.full00]\nmode = \"full\"\n", inv: string(qaYAML), yaml: true, user: "root",
			want: []string{"--inventory inv.yml: node full00 has no host"}},
		{name: "YAML another group", manifest: "name = \"qa\"\n[node.validator000]\n", yaml: true, user: "root",
			inv:  "all:\n  children:\n    cometbft:\n      hosts:\n        validator000:\n",
			want: []string{"inv.yml:5: group [cometbft]: cometlab reads"}},
		{name: "cometlab_workdir and cometlab_firewall", manifest: "name = \"qa\"\n[node.validator000]\n", user: "root",
			inv:  "[validators]\n10.0.0.1 name=validator000 cometlab_workdir=/srv/v0 cometlab_firewall=yes\n[loadrunners]\n10.0.0.2 name=lr0 cometlab_firewall=False\n",
			want: []string{"host validator000 /srv/v0 firewall=true\nhost lr0 /var/tmp/cometlab-qa firewall=false"}},
		{name: "YAML cometlab_workdir and cometlab_firewall, a group's and a host's own", manifest: "name = \"qa\"\n[node.validator000]\n[node.validator001]\n", yaml: true, user: "root",
			inv: "all:\n  vars: {cometlab_firewall: true}\n  children:\n    validators:\n      vars: {cometlab_workdir: /srv/all}\n      hosts:\n" +
				"        validator000: {cometlab_workdir: /srv/v0}\n        validator001:\n    loadrunners:\n      hosts:\n        lr0: {cometlab_firewall: off}\n",
			want: []string{"host validator000 /srv/v0 firewall=true\nhost validator001 /srv/all firewall=true\nhost lr0 /var/tmp/cometlab-qa firewall=false"}},
		{name: "YAML cometlab_firewall not a boolean", manifest: qaNodes, yaml: true, user: "root", inv: "validators:\n  vars:\n    cometlab_firewall: sometimes\n",
			want: []string{`inv.yml:3: validators.vars.cometlab_firewall: cometlab_firewall="sometimes": not a boolean (true/false, yes/no, on/off, 1/0)`}},
		{name: "YAML a misspelt cometlab variable", manifest: qaNodes, yaml: true, user: "root", inv: "validators:\n  hosts:\n    validator000: {cometlab_wokdir: /srv}\n",
			want: []string{"inv.yml:3: validators.hosts.validator000.cometlab_wokdir: cometlab_wokdir: unknown variable (cometlab reads cometlab_workdir and cometlab_firewall)"}},
		{name: "cometlab_workdir relative", manifest: qaNodes, user: "root", inv: "[validators]\n10.0.0.1 name=validator000 cometlab_workdir=srv\n",
			want: []string{`inv.ini:2: host 10.0.0.1: cometlab_workdir="srv" is not an absolute directory other than /`}},
		{name: "a variable of cometlab's own inventory", manifest: "name = \"qa\"\n[node.validator000]\n", user: "root",
			inv:  "[validators]\n10.0.0.1 name=validator000 cometlab_nodes=v cometlab_address=10.0.0.1\n",
			want: []string{"inv.ini:2: host 10.0.0.1: cometlab_address, cometlab_nodes: cometlab writes these into its own inventory.json and does not read them"}},
		{name: "ansible_user and ansible_port", manifest: "name = \"qa\"\n[node.validator000]\n",
			inv: "[validators]\n10.0.0.1 name=validator000 ansible_user=qa ansible_port=2222\n", want: []string{"validator000 on validator000 qa@10.0.0.1:2222"}},
		{name: "a node without a host", manifest: qaNodes + "[node.full00]\nmode = \"full\"\n", inv: string(qa), user: "root",
			want: []string{"--inventory inv.ini: node full00 has no host (no name=full00 in [validators validators2 ephemeral])"}},
		{name: "a host naming no node", manifest: "name = \"qa\"\n[node.validator000]\n", inv: string(qa), user: "root",
			want: []string{"inv.ini:3: [validators] host 203.0.113.11 (name=validator001) is no node of the manifest"}},
		{name: "another group", manifest: "name = \"qa\"\n[node.validator000]\n", inv: "[validators]\n10.0.0.1 name=validator000\n[web]\n10.0.0.2 name=w\n", user: "root",
			want: []string{"inv.ini:4: group [web]: cometlab reads"}},
		{name: "no ssh user", manifest: "name = \"qa\"\n[node.validator000]\n", inv: "[validators]\n10.0.0.1 name=validator000\n",
			want: []string{"inv.ini:2: host 10.0.0.1: no ssh user (its or its group's ansible_user, or --ssh-user)"}},
		{name: "bad ansible_port", manifest: "name = \"qa\"\n[node.validator000]\n", inv: "[validators]\n10.0.0.1 name=validator000 ansible_port=ssh\n", user: "root",
			want: []string{`inv.ini:2: host 10.0.0.1: ansible_port="ssh" is not a port number (1-65535)`}},
		{name: "hosts of its own", manifest: "name = \"qa\"\n[host.h1]\naddress = \"10.0.0.1\"\nssh_user = \"qa\"\n[node.validator000]\nhost = \"h1\"\n", inv: string(qa), user: "root",
			want: []string{"--inventory inv.ini: the manifest has [host.*] tables of its own"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := loadManifest(t, "qa.toml", tt.manifest)
			file := "inv.ini"
			if tt.yaml {
				file = "inv.yml"
			}
			hosts, perr := deploy.ParseInventory(strings.NewReader(tt.inv), file)
			var r manifest.Resolved
			var notes []string
			var err error
			if perr == nil {
				r, notes, err = experiment.ApplyInventory(m, hosts, file, tt.user)
			}
			var got string
			switch {
			case perr != nil:
				got = perr.Error()
			case err != nil:
				got = err.Error()
				if code, _ := exitcode.Of(err); code != exitcode.Usage {
					t.Errorf("exit code %d, want %d", code, exitcode.Usage)
				}
			default:
				var b strings.Builder
				for _, n := range r.Nodes {
					h, _ := r.HostOf(n.Host)
					b.WriteString(n.Name + " on " + n.Host + " " + h.String() + "\n")
				}
				var names []string
				for _, h := range r.Hosts {
					names = append(names, h.Name)
				}
				b.WriteString("hosts [" + strings.Join(names, " ") + "]\n")
				b.WriteString("load hosts [" + strings.Join(r.Load.Hosts, " ") + "]\n")
				for _, h := range r.Hosts {
					fmt.Fprintf(&b, "host %s %s firewall=%v\n", h.Name, h.Workdir, h.Firewall)
				}
				for _, n := range notes {
					b.WriteString("note: " + n + "\n")
				}
				got = b.String()
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("got:\n%s\nwant %q in it", got, w)
				}
			}
		})
	}
}

// TestApplyInventoryTwins puts one manifest on qa-infra's inventory in
// its INI form and on its YAML twin: the resolved manifests are equal.
func TestApplyInventoryTwins(t *testing.T) {
	var got []manifest.Resolved
	for _, file := range []string{"../deploy/testdata/qa-hosts.ini", "../deploy/testdata/qa-hosts.yml"} {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		hosts, err := deploy.ParseInventory(f, file)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		m, _, err := experiment.ApplyInventory(loadManifest(t, "qa.toml", qaNodes), hosts, "inv", "root")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, m)
	}
	if len(got[0].Hosts) != 4 || !reflect.DeepEqual(got[0], got[1]) {
		t.Errorf("from INI:\n%+v\nfrom YAML:\n%+v", got[0], got[1])
	}
}

// TestLoadInventory resolves manifests put on an inventory's hosts as
// `cometlab deploy --inventory` does: zones (with direct links, which a
// local testnet refuses) become labels on hosts, the hosts' workdirs and
// firewalls are the inventory's, the loadrunners the load hosts; and what
// hosts cannot do is refused as for [host.*] tables.
func TestLoadInventory(t *testing.T) {
	inv := "all:\n  vars: {ansible_user: qa, cometlab_firewall: yes}\n  children:\n    validators:\n      hosts:\n" +
		"        validator01: {ansible_host: 10.0.0.1, cometlab_workdir: /w/1}\n        validator02: {ansible_host: 10.0.0.2, cometlab_workdir: /w/2}\n" +
		"    loadrunners:\n      hosts:\n        lr: {ansible_host: 10.0.0.3, ansible_ssh_private_key_file: key}\n        validator02:\n"
	nodes := "[load]\nconnections = 2\n[node.validator01]\nzone = \"Tokyo\"\n[node.validator02]\nzone = \"Sydney\"\n"
	tests := []struct{ name, manifest, want string }{
		{"zones with direct links", "links = \"direct\"\n[zones]\nmatrix = \"aws\"\n" + nodes,
			"links direct; zones aws; load hosts [lr validator02]; validator01 in \"Tokyo\" on validator01 qa@10.0.0.1:22 /w/1 true; validator02 in \"Sydney\" on validator02 qa@10.0.0.2:22 /w/2 true; lr KEY"},
		{"zones with links auto", "[zones]\nmatrix = \"aws\"\n" + nodes, "links direct; zones aws"},
		{"generated validators", "validators = 2\n[load]\nconnections = 2\n", "links direct; zones none; load hosts [lr validator02]; validator01 in \"\" on validator01"},
		{"relayed links", "links = \"relay\"\n[load]\nconnections = 2\n[node.validator01]\n[node.validator02]\n",
			"m.toml:1:1: links: relayed links are local: [host.*] testnets need links = \"direct\""},
		{"a connection for 2 load hosts", "validators = 2\n", "load.hosts: 2 load hosts share 1 connections"},
		{"jitter", "[zones]\nmatrix = \"aws\"\njitter = 0.1\n" + nodes, "zones.jitter: jitter is emulated by local relays"},
		{"a node without a host", "validators = 3\n", "--inventory hosts.yml: node validator03 has no host"},
	}
	dir := t.TempDir()
	invPath := filepath.Join(dir, "hosts.yml")
	if err := os.WriteFile(invPath, []byte(inv), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _, err := experiment.LoadInventory(manifestFile(t, "m.toml", tt.manifest), "hosts.yml", "")
			got := ""
			if err != nil {
				got = err.Error()
				if code, _ := exitcode.Of(err); code != exitcode.Usage {
					t.Errorf("exit code %d, want %d", code, exitcode.Usage)
				}
			} else {
				got = describeOnHosts(r, dir)
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("got %q\nwant %q in it", got, tt.want)
			}
		})
	}
}

// describeOnHosts is r's links, zones, load hosts and each node's host
// (its zone, user@address:port, workdir, firewall), then lr's key, KEY when it is
// dir/key.
func describeOnHosts(r manifest.Resolved, dir string) string {
	zones := "none"
	if r.Zones != nil {
		zones = r.Zones.Source
	}
	s := fmt.Sprintf("links %s; zones %s; load hosts [%s]", r.Links, zones, strings.Join(r.Load.Hosts, " "))
	for _, n := range r.Nodes {
		h, _ := r.HostOf(n.Host)
		s += fmt.Sprintf("; %s in %q on %s %s %s %v", n.Name, n.Zone, n.Host, h, h.Workdir, h.Firewall)
	}
	if h, ok := r.HostOf("lr"); ok {
		s += "; lr " + strings.Replace(h.SSHKey, filepath.Join(dir, "key"), "KEY", 1)
	}
	return s
}
