package deploy

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The kinds of an INI inventory's sections: [GROUP] holds host lines.
const (
	iniHosts    = "hosts"
	iniVars     = "vars"
	iniChildren = "children"
)

// iniSection reads a section header: "[GROUP]", "[GROUP:vars]" or
// "[GROUP:children]".
func iniSection(line string) (group, kind string, err error) {
	inner, ok := strings.CutSuffix(line[1:], "]")
	group, kind, colon := strings.Cut(inner, ":")
	switch {
	case !ok || !iniGroup.MatchString(group):
		return "", "", fmt.Errorf("%q: a section header is [GROUP], [GROUP:vars] or [GROUP:children] (a group is letters, digits, _ and -)", line)
	case !colon:
		return group, iniHosts, nil
	case kind != iniVars && kind != iniChildren:
		return "", "", fmt.Errorf("%q: unknown section :%s (cometlab reads [GROUP], [GROUP:vars] and [GROUP:children])", line, kind)
	case group == "all" && kind == iniChildren:
		return "", "", fmt.Errorf("%q: every group is a child of all already", line)
	}
	return group, kind, nil
}

// iniGroups are an INI inventory's groups, their variables ([GROUP:vars])
// and parents ([GROUP:children]), held in ParseYAML's model so that a
// host's variables are merged in one way for both forms.
type iniGroups struct {
	inv *yamlInv
}

func newINIGroups(file string) *iniGroups {
	g := &iniGroups{inv: &yamlInv{file: file, groups: map[string]*yamlGroup{}, hosts: map[string]*yamlHost{}}}
	g.inv.group("all", "", "all", 0)
	return g
}

// addVar reads a "key=value" line of [group:vars] (spaces around = and
// a quoted value allowed).
func (g *iniGroups) addVar(group, line string, n int) error {
	k, v, ok := strings.Cut(line, "=")
	k, v = strings.TrimSpace(k), strings.TrimSpace(v)
	if !ok || !iniKey.MatchString(k) {
		return fmt.Errorf("[%s:vars]: %q is not key=value", group, line)
	}
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		v = v[1 : len(v)-1]
	}
	vars := g.inv.groups[group].vars
	if prev, dup := vars[k]; dup {
		return fmt.Errorf("[%s:vars]: %s given twice (first on line %d)", group, k, prev.line)
	}
	if err := checkVar(k, v); err != nil {
		return fmt.Errorf("[%s:vars]: %w", group, err)
	}
	vars[k] = yamlVar{value: v, path: "[" + group + ":vars]", line: n}
	return nil
}

// addChild reads a group name of [group:children].
func (g *iniGroups) addChild(group, line string, n int) error {
	if !iniGroup.MatchString(line) {
		return fmt.Errorf("[%s:children]: %q is not a group name (letters, digits, _ and -)", group, line)
	}
	if line == "all" {
		return fmt.Errorf("[%s:children]: all is every group's parent, not a child", group)
	}
	g.inv.group(line, group, "["+line+"]", n)
	return nil
}

// apply gives each host the variables of its groups under its own:
// groups with no parent are all's children; a group that is its own
// child is refused.
func (g *iniGroups) apply(hosts []InventoryHost) error {
	inv := g.inv
	for _, name := range slices.Sorted(maps.Keys(inv.groups)) {
		if gr := inv.groups[name]; name != "all" && len(gr.parents) == 0 {
			gr.parents = []string{"all"}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(inv.groups)) {
		gr := inv.groups[name]
		if err := inv.priority(gr); err != nil {
			return err
		}
		if _, err := inv.depth(gr, nil); err != nil {
			return err
		}
	}
	byAddr := map[string]*yamlHost{}
	for _, h := range hosts {
		if byAddr[h.Address] == nil {
			byAddr[h.Address] = &yamlHost{vars: map[string]yamlVar{}}
		}
		yh := byAddr[h.Address]
		yh.groups = append(yh.groups, h.Group)
		for k, v := range h.Vars {
			yh.vars[k] = yamlVar{value: v}
		}
	}
	for i := range hosts {
		hosts[i].Vars = inv.hostVars(byAddr[hosts[i].Address])
	}
	return nil
}
