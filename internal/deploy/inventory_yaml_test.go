package deploy

import (
	"fmt"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// describe is each host as "GROUP ADDRESS name=… node=… k=v …:LINE",
// its variables sorted.
func describe(hosts []InventoryHost) []string {
	var out []string
	for _, h := range hosts {
		s := h.Group + " " + h.Address + " name=" + h.Name() + " node=" + h.NodeAddress()
		for _, k := range slices.Sorted(maps.Keys(h.Vars)) {
			s += " " + k + "=" + h.Vars[k]
		}
		out = append(out, fmt.Sprintf("%s:%d", s, h.Line))
	}
	return out
}

// TestParseYAML reads the YAML inventories Ansible reads: the tree from
// all: down, variables inherited from groups in Ansible's order, hosts
// listed more than once, HOST:PORT keys, aliases and merge keys.
func TestParseYAML(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"a group at the top", "validators:\n  hosts:\n    10.0.0.1: {name: v0}\n",
			[]string{"validators 10.0.0.1 name=v0 node=10.0.0.1 name=v0:3"}},
		{"named host at its ansible_host", "validators:\n  hosts:\n    v0:\n      ansible_host: 203.0.113.1\n",
			[]string{"validators v0 name=v0 node=203.0.113.1 ansible_host=203.0.113.1:3"}},
		{"internal_ip over ansible_host", "validators:\n  hosts:\n    v0: {ansible_host: h.example.com, internal_ip: 10.0.0.1}\n",
			[]string{"validators v0 name=v0 node=10.0.0.1 ansible_host=h.example.com internal_ip=10.0.0.1:3"}},
		{"group vars, deeper wins, host's own over all",
			"all:\n  vars: {ansible_user: a, ansible_port: 22, x: all}\n  children:\n    zzz:\n      vars: {x: zzz, ansible_user: z}\n      children:\n        validators:\n          vars: {x: validators}\n          hosts:\n            v0:\n            v1: {x: own}\n",
			[]string{"validators v0 name=v0 node=v0 ansible_port=22 ansible_user=z x=validators:10", "validators v1 name=v1 node=v1 ansible_port=22 ansible_user=z x=own:11"}},
		{"same depth: the later name wins, then the higher priority",
			"b:\n  vars: {x: b}\n  hosts: {h: }\na:\n  vars: {x: a}\n  hosts: {h: }\nc:\n  vars: {y: c, ansible_group_priority: 5}\n  hosts: {g: }\nd:\n  vars: {y: d}\n  hosts: {g: }\n",
			[]string{"b h name=h node=h x=b:3", "a h name=h node=h x=b:6", "c g name=g node=g ansible_group_priority=5 y=c:9", "d g name=g node=g ansible_group_priority=5 y=c:12"}},
		{"host vars under all: and membership in a group",
			"all:\n  hosts:\n    v0: {ansible_host: 10.0.0.1}\n  children:\n    validators:\n      hosts:\n        v0: {name: validator000}\n",
			[]string{"validators v0 name=validator000 node=10.0.0.1 ansible_host=10.0.0.1 name=validator000:7"}},
		{"a host in two groups, the same value twice",
			"validators:\n  hosts:\n    h: {internal_ip: 10.0.0.1}\nloadrunners:\n  hosts:\n    h: {internal_ip: 10.0.0.1}\n",
			[]string{"validators h name=h node=10.0.0.1 internal_ip=10.0.0.1:3", "loadrunners h name=h node=10.0.0.1 internal_ip=10.0.0.1:6"}},
		{"HOST:PORT keys and IPv6", "v:\n  hosts:\n    h1:2222:\n    2001:db8::1:\n    '[2001:db8::2]:2200':\n",
			[]string{"v h1 name=h1 node=h1 ansible_port=2222:3", "v 2001:db8::1 name=2001:db8::1 node=2001:db8::1:4", "v 2001:db8::2 name=2001:db8::2 node=2001:db8::2 ansible_port=2200:5"}},
		{"hosts and children given as one name", "all:\n  children: validators\nvalidators:\n  hosts: 10.0.0.1\n",
			[]string{"validators 10.0.0.1 name=10.0.0.1 node=10.0.0.1:4"}},
		{"empty groups and sections", "all:\n  vars:\n  hosts:\n  children:\n    ephemeral:\n    prometheus: {hosts: }\n",
			nil},
		{"aliases and merge keys",
			"all:\n  children:\n    validators:\n      hosts:\n        v0: &qa {ansible_user: qa, internal_ip: 10.0.0.1}\n        v1:\n          <<: *qa\n          internal_ip: 10.0.0.2\n        v2:\n          <<: [{internal_ip: 10.0.0.3}, *qa]\n",
			[]string{"validators v0 name=v0 node=10.0.0.1 ansible_user=qa internal_ip=10.0.0.1:5", "validators v1 name=v1 node=10.0.0.2 ansible_user=qa internal_ip=10.0.0.2:6",
				"validators v2 name=v2 node=10.0.0.3 ansible_user=qa internal_ip=10.0.0.3:9"}},
		{"values as written; others' structured variables not read",
			"v:\n  hosts:\n    h:\n      ansible_port: 22\n      flag: true\n      empty:\n      ratio: 1.50\n      packages: [a, b]\n      secret: !vault abc\n",
			[]string{"v h name=h node=h ansible_port=22 empty= flag=true ratio=1.50:3"}},
		{"cometlab's variables, a group's and a host's own",
			"all:\n  vars: {cometlab_firewall: yes}\n  children:\n    v:\n      hosts:\n        h1: {cometlab_workdir: /srv/h1}\n        h2: {cometlab_firewall: Off}\n",
			[]string{"v h1 name=h1 node=h1 cometlab_firewall=yes cometlab_workdir=/srv/h1:6", "v h2 name=h2 node=h2 cometlab_firewall=Off:7"}},
	}
	tests[11].in = strings.Replace(tests[11].in, "0x16", "22", 1)
	tests[11].want = []string{"v h name=h node=h ansible_port=22 empty= flag=true ratio=1.50:3"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hosts, err := ParseYAML(strings.NewReader(tt.in), "x.yml")
			if err != nil {
				t.Fatal(err)
			}
			if got := describe(hosts); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseYAML:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestParseYAMLOwn reads the JSON inventory cometlab writes (JSON being
// YAML): its hosts' variables under cometlab_hosts, the load hosts listed
// again under cometlab_load_hosts.
func TestParseYAMLOwn(t *testing.T) {
	f, err := os.Open("testdata/inventory.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	hosts, err := ParseInventory(f, "inventory.json")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range hosts {
		got = append(got, fmt.Sprintf("%s %s %s:%s user=%s:%d", h.Group, h.Name(), h.NodeAddress(), h.Vars["ansible_port"], h.Vars["ansible_user"], h.Line))
	}
	want := []string{"cometlab_hosts h1 10.213.0.11:22 user=qa:6", "cometlab_hosts h2 node2.example.org:2222 user=qa:51",
		"cometlab_hosts load1 10.213.0.15:22 user=qa:81", "cometlab_load_hosts h2 node2.example.org:2222 user=qa:97",
		"cometlab_load_hosts load1 10.213.0.15:22 user=qa:98"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseInventory(inventory.json):\n got %q\nwant %q", got, want)
	}
}
