package deploy

import (
	"cmp"
	"fmt"
	"maps"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestInventoryFormat chooses INI or YAML by the file's ending, else by
// its first line that is neither blank nor a comment.
func TestInventoryFormat(t *testing.T) {
	tests := []struct{ file, in, want string }{
		{"hosts.yml", "[validators]\n", "yaml"},
		{"hosts.YAML", "", "yaml"},
		{"inventory.json", "{}", "yaml"},
		{"hosts.ini", "all:\n", "ini"},
		{"hosts", "# terraform\n\n[validators]\n10.0.0.1\n", "ini"},
		{"hosts", "; note\n[validators]\n", "ini"},
		{"hosts", "# terraform\n---\nall:\n", "yaml"},
		{"hosts", "validators:\n  hosts:\n", "yaml"},
		{"hosts", `{"all": {}}`, "yaml"},
		{"hosts", "10.0.0.1 name=v0\n", "yaml"}, // a host before a group is no INI cometlab reads either
		{"hosts", "\n# only comments\n", "ini"},
	}
	for _, tt := range tests {
		if got := inventoryFormat(tt.file, []byte(tt.in)); got != tt.want {
			t.Errorf("inventoryFormat(%s, %q) = %s, want %s", tt.file, tt.in, got, tt.want)
		}
	}
}

// TestYAMLTwinOfINI reads an INI inventory and its YAML twin, one written
// as qa-infra's Terraform writes it and one written as people write YAML
// (group variables, hosts named after nodes at their ansible_host, a
// HOST:PORT key), through ParseInventory: both give the same hosts, lines
// aside.
func TestYAMLTwinOfINI(t *testing.T) {
	read := func(file, in string) []InventoryHost {
		t.Helper()
		if in == "" {
			b, err := os.ReadFile("testdata/" + file)
			if err != nil {
				t.Fatal(err)
			}
			in = string(b)
		}
		hosts, err := ParseInventory(strings.NewReader(in), file)
		if err != nil {
			t.Fatal(err)
		}
		return hosts
	}
	twins := []struct{ name, ini, yaml, iniText, yamlText string }{
		{"qa-infra", "qa-hosts.ini", "qa-hosts.yml", "", ""},
		{"by hand", "hosts", "hosts.yaml",
			"[validators]\nvalidator000 ansible_host=203.0.113.10 ansible_user=qa\nvalidator001 ansible_host=203.0.113.11 ansible_user=admin ansible_port=2222\n" +
				"[loadrunners]\nlr0 ansible_host=203.0.113.30 ansible_user=qa internal_ip=10.0.0.30\n",
			"all:\n  vars:\n    ansible_user: qa\n  children:\n    validators:\n      hosts:\n        validator000:\n          ansible_host: 203.0.113.10\n" +
				"        validator001:2222: {ansible_host: 203.0.113.11, ansible_user: admin}\n    loadrunners:\n      vars: {internal_ip: 10.0.0.30}\n      hosts:\n        lr0: {ansible_host: 203.0.113.30}\n"},
	}
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			ini, yml := read(tw.ini, tw.iniText), read(tw.yaml, tw.yamlText)
			if len(ini) == 0 {
				t.Fatal("no hosts")
			}
			if d := diffHosts(ini, yml); d != "" {
				t.Errorf("INI and YAML twins differ: %s", d)
			}
		})
	}
}

// diffHosts describes how a and b differ, lines aside ("" if not).
func diffHosts(a, b []InventoryHost) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d hosts, then %d", len(a), len(b))
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Group != y.Group || x.Address != y.Address || !reflect.DeepEqual(x.Vars, y.Vars) {
			return fmt.Sprintf("host %d: %+v, then %+v", i, x, y)
		}
	}
	return ""
}

// FuzzParseYAMLInventory checks ParseYAML against itself and ParseINI:
// the hosts of an inventory it reads, written back as YAML (each group's
// hosts with all their variables), read the same; written as INI (when
// INI can hold their values), ParseINI reads them the same too.
func FuzzParseYAMLInventory(f *testing.F) {
	for _, file := range []string{"testdata/qa-hosts.yml", "testdata/inventory.json"} {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(string(b))
		}
	}
	f.Add("all:\n  vars: {ansible_user: qa}\n  children:\n    v:\n      hosts:\n        h1:2222: {name: a}\n        2001:db8::1:\n    w:\n      vars: {x: 1}\n      hosts: {h1: }\n")
	f.Add("v:\n  hosts:\n    h: &x {a: 1}\n    g:\n      <<: *x\n      b: ''\n")
	f.Add("a:\n  children:\n    b:\n      children: {a: }\n")
	f.Add("all:\n  vars: {cometlab_firewall: yes}\n  children:\n    validators:\n      hosts:\n        v0: {cometlab_workdir: /srv/v0, cometlab_firewall: 0}\n")
	f.Fuzz(func(t *testing.T, in string) {
		hosts, err := ParseYAML(strings.NewReader(in), "fuzz.yml")
		if err != nil {
			return
		}
		again, err := ParseYAML(strings.NewReader(writeYAML(hosts)), "again.yml")
		if err != nil {
			t.Fatalf("%q read back from %q: %v", writeYAML(hosts), in, err)
		}
		if d := diffHosts(byGroup(hosts), byGroup(again)); d != "" {
			t.Fatalf("%q, written back, differs: %s", in, d)
		}
		ini, ok := writeINI(hosts)
		if !ok {
			return
		}
		fromINI, err := ParseINI(strings.NewReader(ini), "again.ini")
		if err != nil {
			t.Fatalf("%q, as INI %q: %v", in, ini, err)
		}
		if d := diffHosts(byGroup(hosts), byGroup(fromINI)); d != "" {
			t.Fatalf("%q, as INI %q, differs: %s", in, ini, d)
		}
	})
}

// byGroup sorts hosts by group (in their first order) and address.
func byGroup(hosts []InventoryHost) []InventoryHost {
	first := map[string]int{}
	for i, h := range hosts {
		if _, ok := first[h.Group]; !ok {
			first[h.Group] = i
		}
	}
	return slices.SortedStableFunc(slices.Values(hosts), func(a, b InventoryHost) int {
		return cmp.Compare(first[a.Group], first[b.Group])
	})
}

// writeYAML writes hosts as a YAML inventory, each group's hosts together.
func writeYAML(hosts []InventoryHost) string {
	var b strings.Builder
	b.WriteString("all:\n  children:\n")
	group := ""
	for _, h := range byGroup(hosts) {
		if h.Group != group {
			group = h.Group
			fmt.Fprintf(&b, "%s\n      hosts:\n", yamlKey("    ", group))
		}
		fmt.Fprintf(&b, "%s\n", yamlKey("        ", h.Address))
		for _, k := range slices.Sorted(maps.Keys(h.Vars)) {
			fmt.Fprintf(&b, "%s %s\n", yamlKey("          ", k), strconv.Quote(h.Vars[k]))
		}
	}
	return b.String()
}

// yamlKey writes a mapping's key up to its colon, quoted, as an explicit
// key (? KEY) when it is too long (1024) for an implicit one.
func yamlKey(indent, k string) string {
	if len(k) > 1000 {
		return indent + "? " + strconv.Quote(k) + "\n" + indent + ":"
	}
	return indent + strconv.Quote(k) + ":"
}

// writeINI writes hosts as an INI inventory, each group's hosts together;
// false if a value has no INI form (a line break, both quotes).
func writeINI(hosts []InventoryHost) (string, bool) {
	var b strings.Builder
	group := ""
	for _, h := range byGroup(hosts) {
		if h.Group != group {
			group = h.Group
			fmt.Fprintf(&b, "[%s]\n", group)
		}
		b.WriteString(h.Address)
		for _, k := range slices.Sorted(maps.Keys(h.Vars)) {
			v, q := h.Vars[k], `"`
			if strings.Contains(v, `"`) {
				q = "'"
			}
			if strings.ContainsAny(v, "\r\n") || (strings.Contains(v, `"`) && strings.Contains(v, "'")) {
				return "", false
			}
			fmt.Fprintf(&b, " %s=%s%s%s", k, q, v, q)
		}
		b.WriteString("\n")
	}
	return b.String(), true
}
