package deploy

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestParseINI reads qa-infra's inventory as its Terraform template
// (tf/templates/hosts.tmpl) renders it, and refuses what it does not read
// by file:line.
func TestParseINI(t *testing.T) {
	f, err := os.Open("testdata/qa-hosts.ini")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	hosts, err := ParseINI(f, "qa-hosts.ini")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range hosts {
		got = append(got, fmt.Sprintf("%s %s %s %s:%d", h.Group, h.Name(), h.Address, h.NodeAddress(), h.Line))
	}
	want := []string{
		"validators validator000 203.0.113.10 10.10.0.2:2",
		"validators validator001 203.0.113.11 10.10.0.3:3",
		"validators seed0 203.0.113.12 10.10.0.4:4",
		"prometheus testnet-prometheus 203.0.113.20 10.10.0.20:7",
		"loadrunners testnet-load-runner 203.0.113.30 10.10.0.30:10",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseINI:\n got %q\nwant %q", got, want)
	}

	tests := []struct {
		name, in string
		want     string // each host's "group name address node-address", or the error
	}{
		{"comments and blank lines", "# made by terraform\n\n[validators]\n; a comment\n10.0.0.1 name=v0\n", "validators v0 10.0.0.1 10.0.0.1"},
		{"quoted values", "[validators]\nh1 name=\"v 0\" ansible_user='qa user'\n", "validators v 0 h1 h1"},
		{"tabs", "[loadrunners]\n10.0.0.9\tname=lr\tinternal_ip=10.1.0.9\n", "loadrunners lr 10.0.0.9 10.1.0.9"},
		{"no name", "[validators]\n10.0.0.1\n", "validators 10.0.0.1 10.0.0.1 10.0.0.1"},
		{"IPv6 host", "[validators]\n2001:db8::1 name=v0\n", "validators v0 2001:db8::1 2001:db8::1"},
		{"named host at its ansible_host", "[validators]\nv0 ansible_host=203.0.113.1\n", "validators v0 v0 203.0.113.1"},
		{"host before a group", "10.0.0.1 name=v0\n", "x.ini:1: host line \"10.0.0.1 name=v0\" before any [GROUP]"},
		{"group variables", "[validators]\n10.0.0.1 name=v0\n[validators:vars]\nansible_user=qa\ninternal_ip = \"10.1.0.1\"\n", "validators v0 10.0.0.1 10.1.0.1"},
		{"a host's own variable over its group's", "[validators:vars]\ninternal_ip=10.1.0.1\n[validators]\n10.0.0.1 internal_ip=10.2.0.1\n10.0.0.2\n",
			"validators 10.0.0.1 10.0.0.1 10.2.0.1; validators 10.0.0.2 10.0.0.2 10.1.0.1"},
		{"a parent group's variables", "[nodes:children]\nvalidators\n[nodes:vars]\ninternal_ip=10.1.0.1\n[validators]\n10.0.0.1\n", "validators 10.0.0.1 10.0.0.1 10.1.0.1"},
		{"the child group's over the parent's", "[nodes:children]\nvalidators\n[nodes:vars]\nansible_host=a\n[validators:vars]\nansible_host=b\n[validators]\nv0\n",
			"validators v0 v0 b"},
		{"the higher ansible_group_priority wins", "[validators]\nv0\n[validators:vars]\nansible_host=a\nansible_group_priority=5\n[zone]\nv0\n[zone:vars]\nansible_host=b\n",
			"validators v0 v0 a; zone v0 v0 a"},
		{"all's variables", "[all:vars]\ninternal_ip=10.9.0.1\n[validators]\nv0\n", "validators v0 v0 10.9.0.1"},
		{"a group that is its own child", "[a:children]\nb\n[b:children]\na\n[a]\nh\n", "x.ini:1: [a]: group a is its own child"},
		{"all as a child", "[a:children]\nall\n", "x.ini:2: [a:children]: all is every group's parent, not a child"},
		{"children of all", "[all:children]\na\n", "x.ini:1: \"[all:children]\": every group is a child of all already"},
		{"an unknown section", "[validators:hosts]\n", "x.ini:1: \"[validators:hosts]\": unknown section :hosts"},
		{"a group variable not key=value", "[validators:vars]\nansible_user\n", "x.ini:2: [validators:vars]: \"ansible_user\" is not key=value"},
		{"a group variable twice", "[v:vars]\nansible_user=a\nansible_user=b\n", "x.ini:3: [v:vars]: ansible_user given twice (first on line 2)"},
		{"a bad group variable", "[v:vars]\ninternal_ip=x\n", "x.ini:2: [v:vars]: internal_ip=\"x\" is not an IP address"},
		{"an unknown cometlab group variable", "[v:vars]\ncometlab_dir=/w\n", "x.ini:2: [v:vars]: cometlab_dir: unknown variable"},
		{"a bad child name", "[v:children]\nweb[1:3]\n", "x.ini:2: [v:children]: \"web[1:3]\" is not a group name"},
		{"unclosed header", "[validators\n", "x.ini:1: \"[validators\": a section header is [GROUP]"},
		{"host range", "[validators]\nweb[1:3] name=v\n", "x.ini:2: host \"web[1:3]\": a host is an IP address or a name"},
		{"not key=value", "[validators]\n10.0.0.1 name\n", "x.ini:2: host 10.0.0.1: \"name\" is not key=value"},
		{"a key twice", "[validators]\n10.0.0.1 name=a name=b\n", "x.ini:2: host 10.0.0.1: name given twice"},
		{"bad internal_ip", "[validators]\n10.0.0.1 name=a internal_ip=10.0.0\n", "x.ini:2: host 10.0.0.1: internal_ip=\"10.0.0\" is not an IP address"},
		{"a host in two groups, with the variables of both lines", "[validators]\n10.0.0.1 name=v0\n[validators2]\n10.0.0.1 internal_ip=10.1.0.1\n",
			"validators v0 10.0.0.1 10.1.0.1; validators2 v0 10.0.0.1 10.1.0.1"},
		{"a host in two groups, a variable with two values", "[validators]\n10.0.0.1 ansible_user=a\n[loadrunners]\n10.0.0.1 ansible_user=b\n",
			`x.ini:4: host 10.0.0.1: ansible_user="b", but "a" on line 2`},
		{"a name that is another host", "[validators]\nv0\n[ephemeral]\n10.0.0.2 name=v0\n", "x.ini:4: name=v0 again (first on line 2)"},
		{"bad ansible_port", "[validators]\n10.0.0.1 ansible_port=ssh\n", "x.ini:2: host 10.0.0.1: ansible_port=\"ssh\" is not a port number (1-65535)"},
		{"bad ansible_host", "[validators]\nv0 ansible_host=a/b\n", "x.ini:2: host v0: ansible_host=\"a/b\" is not an IP address or a host name"},
		{"an old ssh variable", "[validators]\n10.0.0.1 ansible_ssh_port=22\n", "x.ini:2: host 10.0.0.1: ansible_ssh_port: cometlab reads ansible_port; write that"},
		{"cometlab_workdir relative", "[validators]\n10.0.0.1 cometlab_workdir=work\n", `x.ini:2: host 10.0.0.1: cometlab_workdir="work" is not an absolute directory other than /`},
		{"cometlab_firewall not a boolean", "[validators]\n10.0.0.1 cometlab_firewall=enabled\n",
			`x.ini:2: host 10.0.0.1: cometlab_firewall="enabled": not a boolean (true/false, yes/no, on/off, 1/0)`},
		{"an unknown cometlab variable", "[loadrunners]\n10.0.0.1 cometlab_work_dir=/w\n",
			"x.ini:2: host 10.0.0.1: cometlab_work_dir: unknown variable (cometlab reads cometlab_workdir and cometlab_firewall)"},
		{"unterminated quote", "[validators]\n10.0.0.1 name=\"a\n", "x.ini:2: unterminated \" quote"},
		{"a host twice in a group", "[validators]\n10.0.0.1 name=a\n10.0.0.1 name=b\n", "x.ini:3: host 10.0.0.1 again in [validators] (first on line 2)"},
		{"a name twice", "[validators]\n10.0.0.1 name=a\n[ephemeral]\n10.0.0.2 name=a\n", "x.ini:4: name=a again (first on line 2)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hosts, err := ParseINI(strings.NewReader(tt.in), "x.ini")
			got := ""
			if err != nil {
				got = err.Error()
			}
			for i, h := range hosts {
				if i > 0 {
					got += "; "
				}
				got += strings.Join([]string{h.Group, h.Name(), h.Address, h.NodeAddress()}, " ")
			}
			if !strings.HasPrefix(got, tt.want) {
				t.Errorf("ParseINI:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// FuzzParseINI checks ParseINI against itself and ParseYAML: an
// inventory it reads, written back in its own form, reads the same, and
// so does its YAML twin.
func FuzzParseINI(f *testing.F) {
	if b, err := os.ReadFile("testdata/qa-hosts.ini"); err == nil {
		f.Add(string(b))
	}
	f.Add("[validators]\nh1 name=\"v 0\" ansible_user='qa user'\n")
	f.Add("[a]\n[b]\nx k=v\n")
	f.Add("[a]\nx k=v\n[b]\ny\nx j=w\n")
	f.Add("[n:children]\na\n[n:vars]\ninternal_ip=10.0.0.1\n[a]\nx\n[a:vars]\nansible_group_priority=2\n")
	f.Add("[validators]\nv0 cometlab_workdir=\"/srv/v 0\" cometlab_firewall=True\n[loadrunners]\nv0 cometlab_firewall=yes\n")
	f.Fuzz(func(t *testing.T, in string) {
		hosts, err := ParseINI(strings.NewReader(in), "fuzz.ini")
		if err != nil {
			return
		}
		ini, ok := writeINI(hosts)
		if !ok {
			return // a value holding both quote characters has no written form
		}
		again, err := ParseINI(strings.NewReader(ini), "again.ini")
		if err != nil {
			t.Fatalf("%q read back from %q: %v", ini, in, err)
		}
		if d := diffHosts(byGroup(hosts), byGroup(again)); d != "" {
			t.Fatalf("%q, written back as %q, differs: %s", in, ini, d)
		}
		fromYAML, err := ParseYAML(strings.NewReader(writeYAML(hosts)), "twin.yml")
		if err != nil {
			t.Fatalf("%q, as YAML %q: %v", in, writeYAML(hosts), err)
		}
		if d := diffHosts(byGroup(hosts), byGroup(fromYAML)); d != "" {
			t.Fatalf("%q, as YAML, differs: %s", in, d)
		}
	})
}
