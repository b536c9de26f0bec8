package deploy

import (
	"errors"
	"fmt"
	"io"
	"net"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ParseYAML reads an Ansible inventory in its YAML form, as Ansible's
// yaml inventory plugin does: top-level keys are groups (usually all:),
// each a mapping of hosts:, vars: and children: (groups nested to any
// depth); each key under hosts: a host (HOST or HOST:PORT), its value its
// variables. A host's variables are those of its groups, from all: down,
// the deeper group (then the higher ansible_group_priority, then the
// later name) winning, and its own over them. The hosts are returned one
// per group they are listed in, in the file's order, as ParseINI returns
// them; a host listed under all: (or ungrouped:) and in a group counts
// only in the group.
//
// Refused, naming file:line and the key's path (all.children.…): another
// key in a group, a group or host that is not a mapping, a key given
// twice, a host listed twice with different values of a variable, a host
// in no group, a group that is its own child, host ranges (web[1:3]), a
// value cometlab reads that it cannot use (checkVar, or not a plain
// value), a cometlab_… variable it does not know, a host twice in a group and two hosts with one name, as
// ParseINI refuses them, an empty inventory (as Ansible does) and a
// second YAML document.
func ParseYAML(r io.Reader, file string) ([]InventoryHost, error) {
	root, err := yamlRoot(r, file)
	if err != nil {
		return nil, err
	}
	inv := &yamlInv{file: file, groups: map[string]*yamlGroup{}, hosts: map[string]*yamlHost{}}
	inv.group("all", "", "all", 0)
	pairs, err := inv.pairs(root, "")
	if err != nil {
		return nil, err
	}
	for _, p := range pairs {
		if p.key == "plugin" {
			return nil, inv.at(p.line, "plugin", "an inventory plugin's configuration, not an inventory: cometlab reads the hosts: tree")
		}
		if err := inv.walkGroup(p.key, p.value, p.key, p.line, ""); err != nil {
			return nil, err
		}
	}
	out, err := inv.resolve()
	if err != nil {
		return nil, err
	}
	return out, checkUnique(out, file)
}

// yamlRoot decodes the one document of an inventory into its top mapping.
func yamlRoot(r io.Reader, file string) (*yaml.Node, error) {
	dec := yaml.NewDecoder(r)
	var doc, next yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: an empty inventory (no groups)", file)
		}
		return nil, yamlError(err, file)
	}
	if err := dec.Decode(&next); err == nil {
		return nil, fmt.Errorf("%s:%d: a second YAML document: an inventory is one", file, next.Line)
	} else if !errors.Is(err, io.EOF) {
		return nil, yamlError(err, file)
	}
	root := deref(doc.Content[0])
	if isNull(root) || (root.Kind == yaml.MappingNode && len(root.Content) == 0) {
		return nil, fmt.Errorf("%s: an empty inventory (no groups)", file)
	}
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:%d: an inventory is a mapping of groups (all:, validators:, …), not %s", file, root.Line, kindName(root))
	}
	return root, nil
}

// yamlLine is where the YAML library's message says an error is.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// yamlError names file:line for an error of the YAML library.
func yamlError(err error, file string) error {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s:%s: %s", file, m[1], msg[len(m[0]):])
	}
	return fmt.Errorf("%s: %s", file, strings.TrimPrefix(msg, "yaml: "))
}

// yamlInv is an inventory's groups and hosts as its tree gives them.
type yamlInv struct {
	file     string
	groups   map[string]*yamlGroup
	hosts    map[string]*yamlHost
	listings []yamlListing
	steps    int // mappings read, aliases counted again each time
	nest     int // groups and merge keys being read, one inside another
}

// yamlGroup is a group with its own variables and its parents.
type yamlGroup struct {
	name, path string
	line       int
	vars       map[string]yamlVar
	parents    []string
	depth      int // -1 until known, -2 while being found
	priority   int
}

// yamlHost is a host with its own variables, from all its listings.
type yamlHost struct {
	vars   map[string]yamlVar
	groups []string
}

// yamlVar is a variable's value and where it was set.
type yamlVar struct {
	value, path string
	line        int
}

// yamlListing is a host under a group's hosts:.
type yamlListing struct {
	group, host, path string
	line              int
}

// yamlPair is one key of a mapping, its value alias-resolved.
type yamlPair struct {
	key   string
	line  int
	value *yaml.Node
}

// maxYAMLSteps bounds the mappings read and maxYAMLNest the groups (and
// merge keys) inside one another, so that aliases (one naming the
// mapping it is in, or many naming one) cannot make a small file take
// long.
const (
	maxYAMLSteps = 1 << 17
	maxYAMLNest  = 100
)

// enter counts one more level of nesting, refusing too many; the caller
// defers inv.nest--.
func (inv *yamlInv) enter(line int, path string) error {
	if inv.nest++; inv.nest > maxYAMLNest {
		return inv.at(line, path, "nested more than %d deep (an alias naming a mapping it is in?)", maxYAMLNest)
	}
	return nil
}

// at is an error at file:line naming the key's path.
func (inv *yamlInv) at(line int, path, format string, a ...any) error {
	return fmt.Errorf("%s:%d: %s: %s", inv.file, line, path, fmt.Sprintf(format, a...))
}

// pairs returns the keys of mapping n (merge keys, <<, applied: a key of
// the mapping itself wins over a merged one), refusing a key given twice.
func (inv *yamlInv) pairs(n *yaml.Node, path string) ([]yamlPair, error) {
	if inv.steps++; inv.steps > maxYAMLSteps {
		return nil, inv.at(n.Line, path, "more than %d mappings once aliases are expanded", maxYAMLSteps)
	}
	var own, merged []yamlPair
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), deref(n.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			return nil, inv.at(k.Line, path, "a key is a plain value, not %s", kindName(k))
		}
		if k.Tag == "!!merge" {
			m, err := inv.merge(v, join(path, "<<"))
			if err != nil {
				return nil, err
			}
			merged = append(merged, m...)
			continue
		}
		if prev, ok := seen[k.Value]; ok {
			return nil, inv.at(k.Line, join(path, k.Value), "given twice (first on line %d)", prev)
		}
		seen[k.Value] = k.Line
		own = append(own, yamlPair{k.Value, k.Line, v})
	}
	for _, p := range merged {
		if _, ok := seen[p.key]; !ok {
			seen[p.key] = p.line
			own = append(own, p)
		}
	}
	return own, nil
}

// merge returns the keys a merge key's value brings: a mapping or a
// sequence of mappings, the earlier winning.
func (inv *yamlInv) merge(v *yaml.Node, path string) ([]yamlPair, error) {
	defer func() { inv.nest-- }()
	if err := inv.enter(v.Line, path); err != nil {
		return nil, err
	}
	maps := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		maps = v.Content
	}
	var out []yamlPair
	for _, m := range maps {
		if m = deref(m); m.Kind != yaml.MappingNode {
			return nil, inv.at(m.Line, path, "a merge key takes a mapping or a sequence of mappings, not %s", kindName(m))
		}
		ps, err := inv.pairs(m, path)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			if !slices.ContainsFunc(out, func(q yamlPair) bool { return q.key == p.key }) {
				out = append(out, p)
			}
		}
	}
	return out, nil
}

// group notes group name, made at line of path when new, with parent as
// one of its parents.
func (inv *yamlInv) group(name, parent, path string, line int) {
	g, ok := inv.groups[name]
	if !ok {
		g = &yamlGroup{name: name, path: path, line: line, vars: map[string]yamlVar{}, depth: -1, priority: 1}
		inv.groups[name] = g
	}
	if parent != "" && !slices.Contains(g.parents, parent) {
		g.parents = append(g.parents, parent)
	}
}

// walkGroup reads group name (at path, line) and its hosts, vars and
// children; parent is the group it is a child of ("" at the top: all's).
func (inv *yamlInv) walkGroup(name string, n *yaml.Node, path string, line int, parent string) error {
	if !iniGroup.MatchString(name) {
		return inv.at(line, path, "a group name is letters, digits, _ and -")
	}
	if parent == "" && name != "all" {
		parent = "all"
	}
	if name == "all" && parent != "" {
		return inv.at(line, path, "all is every group's parent, not a child")
	}
	defer func() { inv.nest-- }()
	if err := inv.enter(line, path); err != nil {
		return err
	}
	inv.group(name, parent, path, line)
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return inv.at(n.Line, path, "a group is a mapping of hosts:, vars: and children:, not %s", kindName(n))
	}
	keys, err := inv.pairs(n, path)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := inv.walkSection(name, k, join(path, k.key)); err != nil {
			return err
		}
	}
	return nil
}

// walkSection reads one key of group g: hosts, vars or children.
func (inv *yamlInv) walkSection(g string, k yamlPair, path string) error {
	if k.key != "hosts" && k.key != "vars" && k.key != "children" {
		return inv.at(k.line, path, "unknown key: a group has hosts:, vars: and children:")
	}
	entries, err := inv.section(k, path)
	if err != nil {
		return err
	}
	for _, e := range entries {
		p := join(path, e.key)
		switch k.key {
		case "hosts":
			err = inv.walkHost(g, e, p)
		case "vars":
			err = inv.setVar(inv.groups[g].vars, e, p, "group "+g)
		default:
			err = inv.walkGroup(e.key, e.value, p, e.line, g)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// section returns the entries of a group's hosts, vars or children: a
// mapping, nothing, or (hosts and children, as Ansible allows) one name.
func (inv *yamlInv) section(k yamlPair, path string) ([]yamlPair, error) {
	switch v := k.value; {
	case isNull(v):
		return nil, nil
	case v.Kind == yaml.MappingNode:
		return inv.pairs(v, path)
	case v.Kind == yaml.ScalarNode && k.key != "vars":
		return []yamlPair{{v.Value, v.Line, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}}}, nil
	default:
		return nil, inv.at(v.Line, path, "a mapping, not %s", kindName(v))
	}
}

// walkHost reads host e of group g: its name (HOST or HOST:PORT) and
// variables.
func (inv *yamlInv) walkHost(g string, e yamlPair, path string) error {
	name, port, err := splitHostKey(e.key)
	if err != nil {
		return inv.at(e.line, path, "%v", err)
	}
	h, ok := inv.hosts[name]
	if !ok {
		h = &yamlHost{vars: map[string]yamlVar{}}
		inv.hosts[name] = h
	}
	if !slices.Contains(h.groups, g) {
		h.groups = append(h.groups, g)
	}
	inv.listings = append(inv.listings, yamlListing{g, name, path, e.line})
	if port != "" {
		port := yamlPair{"ansible_port", e.line, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: port, Line: e.line}}
		if err := inv.setVar(h.vars, port, join(path, "ansible_port"), "host "+name); err != nil {
			return err
		}
	}
	if isNull(e.value) {
		return nil
	}
	if e.value.Kind != yaml.MappingNode {
		return inv.at(e.value.Line, path, "a host's value is a mapping of its variables, not %s", kindName(e.value))
	}
	vars, err := inv.pairs(e.value, path)
	if err != nil {
		return err
	}
	for _, v := range vars {
		if err := inv.setVar(h.vars, v, join(path, v.key), "host "+name); err != nil {
			return err
		}
	}
	return nil
}

// splitHostKey splits a key under hosts: into the host and its port.
func splitHostKey(key string) (host, port string, err error) {
	host = key
	if strings.Contains(key, "[") && !strings.HasPrefix(key, "[") {
		return "", "", checkHostname(key) // a range: web[1:3]
	}
	if net.ParseIP(key) == nil && strings.Contains(key, ":") {
		if host, port, err = net.SplitHostPort(key); err != nil {
			return "", "", fmt.Errorf("%q is HOST or HOST:PORT", key)
		}
	}
	return host, port, checkHostname(host)
}

// setVar sets variable v of owner (a host's or group's) into vars,
// refusing a different value of it given before.
func (inv *yamlInv) setVar(vars map[string]yamlVar, v yamlPair, path, owner string) error {
	if !iniKey.MatchString(v.key) {
		return inv.at(v.line, path, "a variable name is letters, digits and _")
	}
	if err := checkVarName(v.key); err != nil {
		return inv.at(v.line, path, "%v", err)
	}
	val, ok := scalar(v.value)
	if !ok {
		if !slices.Contains(readVars, v.key) {
			return nil // another tool's structured variable: not read, as ParseINI's unknown keys are not
		}
		return inv.at(v.value.Line, path, "cometlab reads %s as a plain value, not %s", v.key, kindName(v.value))
	}
	if err := checkVar(v.key, val); err != nil {
		return inv.at(v.value.Line, path, "%v", err)
	}
	if prev, ok := vars[v.key]; ok && prev.value != val {
		return inv.at(v.value.Line, path, "%s %s=%q, but %q on line %d (%s)", owner, v.key, val, prev.value, prev.line, prev.path)
	}
	vars[v.key] = yamlVar{val, path, v.value.Line}
	return nil
}

// readVars are the variables cometlab reads from an inventory.
var readVars = []string{"name", "internal_ip", "ansible_host", "ansible_port", "ansible_user",
	"ansible_ssh_private_key_file", "ansible_group_priority", "ansible_ssh_host", "ansible_ssh_port", "ansible_ssh_user", VarWorkdir, VarFirewall}

// scalar returns a plain value as a string (null as ""); a mapping, a
// sequence or a value with a tag of its own (!vault) is not one.
func scalar(n *yaml.Node) (string, bool) {
	if n.Kind != yaml.ScalarNode || (strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!")) {
		return "", false
	}
	if n.Tag == "!!null" {
		return "", true
	}
	return n.Value, true
}

// deref resolves an alias to the node it names.
func deref(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// isNull reports whether n is empty (key: with no value, or null).
func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// kindName names a node's kind for an error.
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a sequence"
	case yaml.ScalarNode:
		if _, ok := scalar(n); !ok {
			return "a value tagged " + n.Tag
		}
		return fmt.Sprintf("the value %q", n.Value)
	}
	return "nothing"
}

// join extends a key path.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
