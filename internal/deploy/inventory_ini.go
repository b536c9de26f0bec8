package deploy

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// iniGroup and iniKey are what a group and a variable name may be.
var (
	iniGroup = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)
	iniKey   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	// iniHostName is a host that is not an IP address: a DNS name or an
	// inventory alias.
	iniHostName = regexp.MustCompile(`^[A-Za-z0-9_]([A-Za-z0-9_.-]*[A-Za-z0-9_])?$`)
)

// ParseINI reads an Ansible INI inventory: "[GROUP]" headers and host
// lines "HOST key=value …" (values may be quoted with " or '),
// "[GROUP:vars]" sections of "key=value" lines and "[GROUP:children]"
// sections of group names; blank lines and comments (# or ;) are
// skipped. A host's variables are those of its groups, from all down (a
// child group's over its parent's, as ParseYAML orders them), and those
// of its own lines over them; a host on lines of several groups has the
// variables of all of them in each (a variable given two values is
// refused), as Ansible gives them. Host ranges (web[1:3]), other
// sections and hosts outside a group are refused, as are a host given
// twice in a group, two hosts with one name=, a group that is its own
// child, a variable cometlab reads with a value it cannot use (checkVar)
// and a cometlab_… variable it does not know. Errors name file:line.
func ParseINI(r io.Reader, file string) ([]InventoryHost, error) {
	var out []InventoryHost
	groups := newINIGroups(file)
	group, kind := "", ""
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		at := func(format string, a ...any) error {
			return fmt.Errorf("%s:%d: %s", file, n, fmt.Sprintf(format, a...))
		}
		if line[0] == '[' {
			var err error
			if group, kind, err = iniSection(line); err != nil {
				return nil, at("%v", err)
			}
			groups.inv.group(group, "", "["+group+"]", n)
			continue
		}
		var err error
		switch kind {
		case "":
			err = fmt.Errorf("host line %q before any [GROUP]", line)
		case iniVars:
			err = groups.addVar(group, line, n)
		case iniChildren:
			err = groups.addChild(group, line, n)
		default:
			var h InventoryHost
			if h, err = parseINIHost(line); err == nil {
				h.Group, h.Line = group, n
				out = append(out, h)
			}
		}
		if err != nil {
			return nil, at("%v", err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if err := checkUnique(out, file); err != nil {
		return nil, err
	}
	if err := mergeVars(out, file); err != nil {
		return nil, err
	}
	return out, groups.apply(out)
}

// parseINIHost reads "HOST key=value …".
func parseINIHost(line string) (InventoryHost, error) {
	fields, err := iniFields(line)
	if err != nil {
		return InventoryHost{}, err
	}
	h := InventoryHost{Address: fields[0], Vars: map[string]string{}}
	if err := checkHostname(h.Address); err != nil {
		return InventoryHost{}, err
	}
	for _, f := range fields[1:] {
		k, v, ok := strings.Cut(f, "=")
		if !ok || !iniKey.MatchString(k) {
			return InventoryHost{}, fmt.Errorf("host %s: %q is not key=value", h.Address, f)
		}
		if _, dup := h.Vars[k]; dup {
			return InventoryHost{}, fmt.Errorf("host %s: %s given twice", h.Address, k)
		}
		if err := checkVar(k, v); err != nil {
			return InventoryHost{}, fmt.Errorf("host %s: %w", h.Address, err)
		}
		h.Vars[k] = v
	}
	return h, nil
}

// iniFields splits a host line at spaces, keeping quoted values (key="a
// b" or key='a b') whole and unquoted.
func iniFields(line string) ([]string, error) {
	var fields []string
	var cur strings.Builder
	var quote rune
	started := false
	for _, c := range line {
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(c)
		case c == '"' || c == '\'':
			quote, started = c, true
		case c == ' ' || c == '\t':
			if started {
				fields, started = append(fields, cur.String()), false
				cur.Reset()
			}
		default:
			cur.WriteRune(c)
			started = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated %c quote", quote)
	}
	if started {
		fields = append(fields, cur.String())
	}
	if len(fields) == 0 || fields[0] == "" {
		return nil, fmt.Errorf("a host line starts with its host")
	}
	return fields, nil
}
