package deploy

import (
	"strings"
	"testing"
)

// TestParseYAMLRefusals is every YAML inventory ParseYAML refuses, each
// error naming file:line and the key's path.
func TestParseYAMLRefusals(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"empty", "", "x.yml: an empty inventory (no groups)"},
		{"only comments", "# nothing yet\n", "x.yml: an empty inventory (no groups)"},
		{"null document", "---\n~\n", "x.yml: an empty inventory (no groups)"},
		{"an empty mapping", "{}\n", "x.yml: an empty inventory (no groups)"},
		{"syntax", "all:\n  vars: {}\nhosts 2\nx: 3\n", "x.yml:3: could not find expected ':'"},
		{"an unclosed mapping", "all:\n  hosts:\n    h1: {a: 1\n", "x.yml:2: did not find expected ',' or '}'"}, // the YAML library's line
		{"a second document", "all:\n---\nall:\n", "x.yml:2: a second YAML document: an inventory is one"},
		{"a sequence", "- validators\n", "x.yml:1: an inventory is a mapping of groups (all:, validators:, …), not a sequence"},
		{"a plugin's configuration", "plugin: aws_ec2\n", "x.yml:1: plugin: an inventory plugin's configuration"},
		{"a group that is a sequence", "validators: [h1]\n", "x.yml:1: validators: a group is a mapping of hosts:, vars: and children:, not a sequence"},
		{"a group that is a value", "all:\n  children:\n    validators: h1\n", `x.yml:3: all.children.validators: a group is a mapping of hosts:, vars: and children:, not the value "h1"`},
		{"an unknown key", "all:\n  children:\n    validators:\n      host:\n        h1:\n", "x.yml:4: all.children.validators.host: unknown key: a group has hosts:, vars: and children:"},
		{"hosts a sequence", "validators:\n  hosts:\n    - h1\n", "x.yml:3: validators.hosts: a mapping, not a sequence"},
		{"vars a value", "all:\n  vars: ansible_user\n", `x.yml:2: all.vars: a mapping, not the value "ansible_user"`},
		{"a host that is a value", "validators:\n  hosts:\n    h1: 10.0.0.1\n", `x.yml:3: validators.hosts.h1: a host's value is a mapping of its variables, not the value "10.0.0.1"`},
		{"a host twice in one mapping", "validators:\n  hosts:\n    h1:\n    h1:\n", "x.yml:4: validators.hosts.h1: given twice (first on line 3)"},
		{"a key that is a mapping", "validators:\n  hosts:\n    ? {a: 1}\n    : {}\n", "x.yml:3: validators.hosts: a key is a plain value, not a mapping"},
		{"a host listed again with another value",
			"all:\n  hosts:\n    h1: {ansible_user: qa}\n  children:\n    validators:\n      hosts:\n        h1: {ansible_user: root}\n",
			`x.yml:7: all.children.validators.hosts.h1.ansible_user: host h1 ansible_user="root", but "qa" on line 3 (all.hosts.h1.ansible_user)`},
		{"a port in the key and another in a variable", "v:\n  hosts:\n    h1:2222: {ansible_port: 22}\n",
			`x.yml:3: v.hosts.h1:2222.ansible_port: host h1 ansible_port="22", but "2222" on line 3`},
		{"a group's variable given twice", "v:\n  vars: {x: 1}\nall:\n  children:\n    v:\n      vars: {x: 2}\n",
			`x.yml:6: all.children.v.vars.x: group v x="2", but "1" on line 2 (v.vars.x)`},
		{"a host in no group", "all:\n  hosts:\n    validator000:\n      ansible_host: 10.0.0.1\n",
			"x.yml:3: all.hosts.validator000: host validator000 is in no group: cometlab takes hosts from groups"},
		{"a host in ungrouped", "ungrouped:\n  hosts: {validator000: }\n", "x.yml:2: ungrouped.hosts.validator000: host validator000 is in no group"},
		{"a group its own child", "a:\n  children:\n    b:\n      children:\n        a:\n",
			"x.yml:1: a: group a is its own child (a, child of b, child of a)"},
		{"all as a child", "validators:\n  children:\n    all:\n", "x.yml:3: validators.children.all: all is every group's parent, not a child"},
		{"a bad group name", "all:\n  children:\n    web servers:\n", "x.yml:3: all.children.web servers: a group name is letters, digits, _ and -"},
		{"a host range", "validators:\n  hosts:\n    web[1:3]:\n", `x.yml:3: validators.hosts.web[1:3]: host "web[1:3]": a host is an IP address or a name (ranges such as web[1:3] are not supported)`},
		{"a host range with a port", "validators:\n  hosts:\n    web[1:3].example.com:22:\n", `x.yml:3: validators.hosts.web[1:3].example.com:22: host "web[1:3].example.com:22": a host is an IP address`},
		{"a bad HOST:PORT", "validators:\n  hosts:\n    '[2001:db8::1]':\n", `x.yml:3: validators.hosts.[2001:db8::1]: "[2001:db8::1]" is HOST or HOST:PORT`},
		{"a port that is no number", "validators:\n  hosts:\n    h1:ssh:\n", `x.yml:3: validators.hosts.h1:ssh.ansible_port: ansible_port="ssh" is not a port number (1-65535)`},
		{"ansible_port not a number", "validators:\n  hosts:\n    h1:\n      ansible_port: twenty-two\n",
			`x.yml:4: validators.hosts.h1.ansible_port: ansible_port="twenty-two" is not a port number (1-65535)`},
		{"ansible_port out of range", "all:\n  vars:\n    ansible_port: 65536\n", `x.yml:3: all.vars.ansible_port: ansible_port="65536" is not a port number`},
		{"internal_ip not an address", "validators:\n  hosts:\n    h1: {internal_ip: 10.0.0}\n", `x.yml:3: validators.hosts.h1.internal_ip: internal_ip="10.0.0" is not an IP address`},
		{"ansible_host not a host", "validators:\n  hosts:\n    h1: {ansible_host: 'a b'}\n", `x.yml:3: validators.hosts.h1.ansible_host: ansible_host="a b" is not an IP address or a host name`},
		{"an old ssh variable", "all:\n  vars:\n    ansible_ssh_user: root\n", "x.yml:3: all.vars.ansible_ssh_user: ansible_ssh_user: cometlab reads ansible_user; write that"},
		{"cometlab_workdir relative", "validators:\n  hosts:\n    h1: {cometlab_workdir: var/tmp/x}\n",
			`x.yml:3: validators.hosts.h1.cometlab_workdir: cometlab_workdir="var/tmp/x" is not an absolute directory other than /`},
		{"cometlab_workdir /", "all:\n  vars:\n    cometlab_workdir: /\n", `x.yml:3: all.vars.cometlab_workdir: cometlab_workdir="/" is not an absolute directory`},
		{"cometlab_workdir empty", "all:\n  vars:\n    cometlab_workdir:\n", `x.yml:3: all.vars.cometlab_workdir: cometlab_workdir="" is not an absolute directory`},
		{"cometlab_workdir a template", "v:\n  vars: {cometlab_workdir: '/var/tmp/{{ inventory_hostname }}'}\n",
			`x.yml:2: v.vars.cometlab_workdir: cometlab_workdir="/var/tmp/{{ inventory_hostname }}": a template, which cometlab does not expand`},
		{"cometlab_firewall not a boolean", "v:\n  hosts:\n    h1:\n      cometlab_firewall: maybe\n",
			`x.yml:4: v.hosts.h1.cometlab_firewall: cometlab_firewall="maybe": not a boolean (true/false, yes/no, on/off, 1/0)`},
		{"cometlab_firewall a list", "v:\n  vars:\n    cometlab_firewall: [true]\n", "x.yml:3: v.vars.cometlab_firewall: cometlab reads cometlab_firewall as a plain value, not a sequence"},
		{"an unknown cometlab variable", "all:\n  vars:\n    cometlab_firewal: true\n",
			"x.yml:3: all.vars.cometlab_firewal: cometlab_firewal: unknown variable (cometlab reads cometlab_workdir and cometlab_firewall)"},
		{"an unknown cometlab variable, structured", "v:\n  hosts:\n    h1:\n      Cometlab_Workdir: {a: 1}\n",
			"x.yml:4: v.hosts.h1.Cometlab_Workdir: Cometlab_Workdir: unknown variable"},
		{"a variable read as a mapping", "validators:\n  hosts:\n    h1:\n      ansible_user: {name: qa}\n", "x.yml:4: validators.hosts.h1.ansible_user: cometlab reads ansible_user as a plain value, not a mapping"},
		{"an encrypted variable read", "all:\n  vars:\n    ansible_user: !vault abc\n", "x.yml:3: all.vars.ansible_user: cometlab reads ansible_user as a plain value, not a value tagged !vault"},
		{"a bad variable name", "all:\n  vars:\n    ansible-user: qa\n", "x.yml:3: all.vars.ansible-user: a variable name is letters, digits and _"},
		{"a bad group priority", "v:\n  vars: {ansible_group_priority: high}\n", `x.yml:2: v.vars.ansible_group_priority: ansible_group_priority="high" is not a whole number`},
		{"a merge of a value", "all:\n  vars:\n    <<: 1\n", `x.yml:3: all.vars.<<: a merge key takes a mapping or a sequence of mappings, not the value "1"`},
		{"a host twice in a group", "validators:\n  hosts: {h1: }\nall:\n  children:\n    validators:\n      hosts: {h1: }\n",
			"x.yml:6: host h1 again in [validators] (first on line 2)"},
		{"two hosts with one name", "validators:\n  hosts:\n    h1: {name: v0}\n    h2: {name: v0}\n", "x.yml:4: name=v0 again (first on line 3)"},
		{"an alias naming the group it is in", "a: &a\n  children:\n    b: *a\n", "nested more than 100 deep"},
		{"an alias bomb",
			"x0: &a {hosts: {h: }}\nx1: &b {children: {c1: *a, c2: *a, c3: *a, c4: *a, c5: *a, c6: *a, c7: *a, c8: *a}}\n" +
				"x2: &c {children: {d1: *b, d2: *b, d3: *b, d4: *b, d5: *b, d6: *b, d7: *b, d8: *b}}\nx3: &d {children: {e1: *c, e2: *c, e3: *c, e4: *c, e5: *c, e6: *c, e7: *c, e8: *c}}\n" +
				"x4: &e {children: {f1: *d, f2: *d, f3: *d, f4: *d, f5: *d, f6: *d, f7: *d, f8: *d}}\nx5: &f {children: {g1: *e, g2: *e, g3: *e, g4: *e, g5: *e, g6: *e, g7: *e, g8: *e}}\n" +
				"x6: {children: {h1: *f, h2: *f, h3: *f, h4: *f, h5: *f, h6: *f, h7: *f, h8: *f}}\n",
			"mappings once aliases are expanded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hosts, err := ParseYAML(strings.NewReader(tt.in), "x.yml")
			if err == nil {
				t.Fatalf("ParseYAML read %q as %q; want %q", tt.in, describe(hosts), tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ParseYAML:\n got %q\nwant %q", err, tt.want)
			}
		})
	}
}
