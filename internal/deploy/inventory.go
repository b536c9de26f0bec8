package deploy

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"maps"
	"net"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// InventoryHost is one host of a group of an Ansible inventory, INI or
// YAML: a host line under [GROUP], as qa-infra's Terraform writes them
// (tf/templates/hosts.tmpl: "IP name=NAME internal_ip=IP" under
// [validators], [validators2], [prometheus], [loadrunners] and
// [ephemeral]), or a key under a group's hosts: in the YAML form. A host
// listed in two groups is one InventoryHost per group.
type InventoryHost struct {
	Group   string
	Address string            // the inventory hostname: the line's host, or the key under hosts:
	Vars    map[string]string // its variables, those of its groups included (YAML), e.g. name, internal_ip
	Line    int               // the host line, or the line of its key under hosts:
}

// Name returns the host's name variable, or its address without one.
func (h InventoryHost) Name() string {
	if n := h.Vars["name"]; n != "" {
		return n
	}
	return h.Address
}

// NodeAddress returns the address the host's nodes listen on and their
// peers dial: internal_ip when given (qa-infra's private network), else
// ansible_host (where Ansible connects), else the inventory hostname.
func (h InventoryHost) NodeAddress() string {
	for _, k := range []string{"internal_ip", "ansible_host"} {
		if a := h.Vars[k]; a != "" {
			return a
		}
	}
	return h.Address
}

// ParseInventory reads an Ansible inventory in either of its forms:
// YAML (ParseYAML) when file ends in .yml, .yaml or .json, or, with
// another ending, when its first line that is neither blank nor a comment
// does not start with "["; INI (ParseINI) otherwise. Both yield the same
// hosts for the same inventory.
func ParseInventory(r io.Reader, file string) ([]InventoryHost, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if inventoryFormat(file, b) == "yaml" {
		return ParseYAML(bytes.NewReader(b), file)
	}
	return ParseINI(bytes.NewReader(b), file)
}

// inventoryFormat is "yaml" or "ini", as ParseInventory chooses.
func inventoryFormat(file string, b []byte) string {
	switch strings.ToLower(filepath.Ext(file)) {
	case ".yml", ".yaml", ".json":
		return "yaml"
	case ".ini":
		return "ini"
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
			continue
		case line[0] == '[':
			return "ini"
		}
		return "yaml"
	}
	return "ini"
}

// checkVar checks the value of a host variable cometlab reads.
func checkVar(k, v string) error {
	switch k {
	case "internal_ip":
		if net.ParseIP(v) == nil {
			return fmt.Errorf("internal_ip=%q is not an IP address", v)
		}
	case "ansible_host":
		if net.ParseIP(v) == nil && !iniHostName.MatchString(v) {
			return fmt.Errorf("ansible_host=%q is not an IP address or a host name", v)
		}
	case "ansible_port":
		if p, err := strconv.Atoi(v); err != nil || p < 1 || p > 65535 {
			return fmt.Errorf("ansible_port=%q is not a port number (1-65535)", v)
		}
	case "ansible_ssh_host", "ansible_ssh_port", "ansible_ssh_user":
		return fmt.Errorf("%s: cometlab reads ansible_%s; write that", k, strings.TrimPrefix(k, "ansible_ssh_"))
	case VarWorkdir:
		if strings.Contains(v, "{{") {
			return fmt.Errorf("%s=%q: a template, which cometlab does not expand: give the directory", k, v)
		}
		if !path.IsAbs(v) || path.Clean(v) == "/" {
			return fmt.Errorf("%s=%q is not an absolute directory other than /", k, v)
		}
	case VarFirewall:
		if _, err := AnsibleBool(v); err != nil {
			return fmt.Errorf("%s=%q: %w", k, v, err)
		}
	}
	return checkVarName(k)
}

// VarWorkdir and VarFirewall are the host variables of cometlab's own an
// inventory may set, a host's or its groups': the host's work directory
// (manifest.Host.Workdir, an absolute path; default
// /var/tmp/cometlab-TESTNET) and whether deploy.yml opens the ports of
// its nodes in its firewall (manifest.Host.Firewall, an Ansible boolean;
// default false).
const (
	VarWorkdir  = "cometlab_workdir"
	VarFirewall = "cometlab_firewall"
)

// cometlabVars are VarWorkdir and VarFirewall; writtenVars the other
// cometlab_… variables of the inventory cometlab writes for its
// playbooks (inventory.json), which parses (TestParseYAMLOwn) but whose
// hosts ApplyInventory refuses (InventoryHost.Written).
var (
	cometlabVars = []string{VarWorkdir, VarFirewall}
	writtenVars  = []string{"cometlab_address", "cometlab_nodes", "cometlab_binaries", "cometlab_load", "cometlab_ports",
		"cometlab_homes_archive", "cometlab_collect", "cometlab_start_timeout", "cometlab_grace_s", "cometlab_clean", "cometlab_binary"}
)

// checkVarName refuses a variable named cometlab_… (in any case) that is
// none of cometlabVars and writtenVars: a misspelt setting is not
// ignored.
func checkVarName(k string) error {
	if strings.HasPrefix(strings.ToLower(k), "cometlab_") && !slices.Contains(cometlabVars, k) && !slices.Contains(writtenVars, k) {
		return fmt.Errorf("%s: unknown variable (cometlab reads %s)", k, strings.Join(cometlabVars, " and "))
	}
	return nil
}

// Written returns, sorted, the variables of h that cometlab writes into
// its own inventory.json for its playbooks (cometlab_nodes, …) and does
// not read from an inventory.
func (h InventoryHost) Written() []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(h.Vars)) {
		if slices.Contains(writtenVars, k) {
			out = append(out, k)
		}
	}
	return out
}

// AnsibleBool reads a boolean as Ansible's bool filter does: true, yes,
// on or 1, false, no, off or 0, in any case; anything else is an error.
func AnsibleBool(v string) (bool, error) {
	switch strings.ToLower(v) {
	case "true", "yes", "on", "1":
		return true, nil
	case "false", "no", "off", "0":
		return false, nil
	}
	return false, fmt.Errorf("not a boolean (true/false, yes/no, on/off, 1/0)")
}

// checkUnique refuses a host given twice in a group and two hosts with
// one name (a name= of one the other's hostname too), naming file:line
// of the second.
func checkUnique(hosts []InventoryHost, file string) error {
	seen := map[string]InventoryHost{} // by group/address, and by name=
	for _, h := range hosts {
		if prev, ok := seen[h.Group+"/"+h.Address]; ok {
			return fmt.Errorf("%s:%d: host %s again in [%s] (first on line %d)", file, h.Line, h.Address, h.Group, prev.Line)
		}
		seen[h.Group+"/"+h.Address] = h
		if prev, ok := seen["name="+h.Name()]; ok && prev.Address != h.Address {
			return fmt.Errorf("%s:%d: name=%s again (first on line %d)", file, h.Line, h.Name(), prev.Line)
		}
		seen["name="+h.Name()] = h
	}
	return nil
}

// mergeVars gives a host listed in more than one group the variables of
// all its lines, as Ansible does (they are the host's, not the line's),
// refusing a variable given two values.
func mergeVars(hosts []InventoryHost, file string) error {
	vars, lines := map[string]map[string]string{}, map[string]int{} // by address; by address/variable
	for _, h := range hosts {
		if vars[h.Address] == nil {
			vars[h.Address] = map[string]string{}
		}
		for _, k := range slices.Sorted(maps.Keys(h.Vars)) {
			v, at := h.Vars[k], h.Address+"/"+k
			if prev, ok := vars[h.Address][k]; ok && prev != v {
				return fmt.Errorf("%s:%d: host %s: %s=%q, but %q on line %d", file, h.Line, h.Address, k, v, prev, lines[at])
			}
			if _, ok := lines[at]; !ok {
				vars[h.Address][k], lines[at] = v, h.Line
			}
		}
	}
	for i := range hosts {
		hosts[i].Vars = maps.Clone(vars[hosts[i].Address])
	}
	return nil
}

// checkHostname checks an inventory hostname: an IP address or a name.
func checkHostname(h string) error {
	if net.ParseIP(h) == nil && !iniHostName.MatchString(h) {
		return fmt.Errorf("host %q: a host is an IP address or a name (ranges such as web[1:3] are not supported)", h)
	}
	return nil
}
