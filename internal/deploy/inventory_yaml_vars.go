package deploy

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// resolve returns the inventory's hosts, one per group they are listed
// in (all: and ungrouped: aside), each with its variables (hostVars).
func (inv *yamlInv) resolve() ([]InventoryHost, error) {
	for _, name := range slices.Sorted(maps.Keys(inv.groups)) {
		g := inv.groups[name]
		if err := inv.priority(g); err != nil {
			return nil, err
		}
		if _, err := inv.depth(g, nil); err != nil {
			return nil, err
		}
	}
	var out []InventoryHost
	for _, l := range inv.listings {
		h := inv.hosts[l.host]
		if !bare(l.group) {
			out = append(out, InventoryHost{Group: l.group, Address: l.host, Vars: inv.hostVars(h), Line: l.line})
			continue
		}
		if !slices.ContainsFunc(h.groups, func(g string) bool { return !bare(g) }) {
			return nil, inv.at(l.line, l.path, "host %s is in no group: cometlab takes hosts from groups (validators, loadrunners, …); list it under a group's hosts:", l.host)
		}
	}
	return out, nil
}

// bare reports whether a host listed under group g is in no group.
func bare(g string) bool { return g == "all" || g == "ungrouped" }

// hostVars merges the variables of h's groups and their parents up to
// all, in Ansible's order (by depth, then ansible_group_priority, then
// name: the later wins), then h's own over them.
func (inv *yamlInv) hostVars(h *yamlHost) map[string]string {
	in := map[string]*yamlGroup{}
	var add func(name string)
	add = func(name string) {
		if g := inv.groups[name]; in[name] == nil {
			in[name] = g
			for _, p := range g.parents {
				add(p)
			}
		}
	}
	add("all")
	for _, g := range h.groups {
		add(g)
	}
	groups := slices.SortedFunc(maps.Values(in), func(a, b *yamlGroup) int {
		return cmp.Or(cmp.Compare(a.depth, b.depth), cmp.Compare(a.priority, b.priority), strings.Compare(a.name, b.name))
	})
	vars := map[string]string{}
	for _, g := range groups {
		for k, v := range g.vars {
			vars[k] = v.value
		}
	}
	for k, v := range h.vars {
		vars[k] = v.value
	}
	return vars
}

// depth returns g's depth below all (all's is 0; a group's is one more
// than its deepest parent's), refusing a group that is its own child;
// path is the chain of children being followed.
func (inv *yamlInv) depth(g *yamlGroup, path []string) (int, error) {
	switch g.depth {
	case -2:
		i := slices.Index(path, g.name)
		return 0, inv.at(g.line, g.path, "group %s is its own child (%s, child of %s)", g.name, strings.Join(path[i:], ", child of "), g.name)
	case -1:
	default:
		return g.depth, nil
	}
	g.depth = -2
	d := 0
	for _, p := range g.parents {
		pd, err := inv.depth(inv.groups[p], append(path, g.name))
		if err != nil {
			return 0, err
		}
		d = max(d, pd+1)
	}
	g.depth = d
	return d, nil
}

// priority parses a group's ansible_group_priority.
func (inv *yamlInv) priority(g *yamlGroup) error {
	v, ok := g.vars["ansible_group_priority"]
	if !ok {
		return nil
	}
	p, err := strconv.Atoi(v.value)
	if err != nil {
		return inv.at(v.line, v.path, "ansible_group_priority=%q is not a whole number", v.value)
	}
	g.priority = p
	return nil
}
