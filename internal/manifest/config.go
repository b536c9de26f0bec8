package manifest

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// conflict is a config.toml path that a manifest sets in two incompatible
// ways.
type conflict struct {
	// path is set twice when other == path; otherwise path is set to a
	// value and other, below it, makes it a table.
	path, other string
}

// flattenConfig returns config.toml overrides as written in a manifest —
// nested tables (`mempool.size = 1` under [config], which TOML makes a
// table) and quoted dotted keys (`"mempool.size" = 1`) alike — as one map
// keyed by dotted path ("mempool.size"). Values are kept as they are. A
// path set twice, or set to both a value and a table ("mempool" and
// "mempool.size"), is returned in conflicts, sorted by path, once per path;
// the first value in key order is kept.
func flattenConfig(config map[string]any) (flat map[string]any, conflicts []conflict) {
	flat = map[string]any{}
	var walk func(prefix string, t map[string]any)
	walk = func(prefix string, t map[string]any) {
		for _, k := range slices.Sorted(maps.Keys(t)) {
			path := k
			if prefix != "" {
				path = prefix + "." + k
			}
			if sub, ok := t[k].(map[string]any); ok {
				walk(path, sub)
				continue
			}
			if _, dup := flat[path]; dup {
				conflicts = append(conflicts, conflict{path, path})
				continue
			}
			flat[path] = t[k]
		}
	}
	walk("", config)
	return flat, sortConflicts(append(conflicts, prefixConflicts(flat, nil)...))
}

// prefixConflicts returns the paths of flat that are also a table holding
// another path of flat ("mempool" when "mempool.size" is set). When only is
// not nil, a conflict counts only if exactly one of its two paths is in
// only (conflicts within only are reported when only is flattened).
func prefixConflicts(flat map[string]any, only map[string]any) []conflict {
	var out []conflict
	for path := range flat {
		for i := strings.IndexByte(path, '.'); i >= 0; i = nextDot(path, i) {
			parent := path[:i]
			if _, ok := flat[parent]; !ok {
				continue
			}
			if only != nil {
				_, a := only[parent]
				_, b := only[path]
				if a == b {
					continue
				}
			}
			out = append(out, conflict{parent, path})
		}
	}
	return out
}

// sortConflicts sorts cs by path, then other, and keeps one per path.
func sortConflicts(cs []conflict) []conflict {
	slices.SortFunc(cs, func(a, b conflict) int {
		return cmp.Or(strings.Compare(a.path, b.path), strings.Compare(a.other, b.other))
	})
	return slices.CompactFunc(cs, func(a, b conflict) bool { return a.path == b.path })
}

func nextDot(s string, i int) int {
	j := strings.IndexByte(s[i+1:], '.')
	if j < 0 {
		return -1
	}
	return i + 1 + j
}

// flatConfig flattens one [config] table, reporting conflicts and malformed
// paths under field.
func flatConfig(ps *problems, field []string, config map[string]any) map[string]any {
	flat, conflicts := flattenConfig(config)
	for _, c := range conflicts {
		at := configField(field, c.path)
		if c.other == c.path {
			ps.add(at, "set twice%s: a dotted key and a quoted dotted key name the same config.toml key",
				ps.onLine(" (again on line %d)", at, 1))
			continue
		}
		other := configField(field, c.other)
		ps.add(at, "is both a value and a table: %s is set too%s",
			displayPath(other), ps.onLine(" (line %d)", other, 0))
	}
	for _, path := range slices.Sorted(maps.Keys(flat)) {
		if slices.Contains(strings.Split(path, "."), "") {
			ps.add(configField(field, path), "empty key part in config.toml path %q", path)
		}
	}
	return flat
}

// mergeConfig returns base (the testnet's flattened [config]) overlaid with
// node (a node's), reporting under field the paths of node that clash with
// a value or table of base.
func mergeConfig(ps *problems, field []string, base, node map[string]any) map[string]any {
	merged := maps.Clone(base)
	if merged == nil {
		merged = map[string]any{}
	}
	maps.Copy(merged, node)
	for _, c := range sortConflicts(prefixConflicts(merged, node)) {
		if _, ok := node[c.path]; ok {
			other := configField(f("config"), c.other)
			ps.add(configField(field, c.path), "clashes with the testnet's [config]: %s%s makes it a table",
				displayPath(other), ps.onLine(" (line %d)", other, 0))
			continue
		}
		other := configField(f("config"), c.path)
		ps.add(configField(field, c.other), "clashes with the testnet's [config]: %s%s is a value, not a table",
			displayPath(other), ps.onLine(" (line %d)", other, 0))
	}
	return merged
}

// configField is the dotted key path of a config.toml path under field.
func configField(field []string, path string) []string {
	return append(slices.Clone(field), strings.Split(path, ".")...)
}

// onLine formats the line of the i-th time the file sets the key at parts
// with format, or returns "" when there is none.
func (ps *problems) onLine(format string, parts []string, i int) string {
	key := strings.Join(parts, ".")
	if _, flag := ps.m.origin[key]; flag {
		return ""
	}
	if p := ps.m.pos[key]; i < len(p) {
		return fmt.Sprintf(format, p[i].line)
	}
	return ""
}
