package deploy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"regexp"
	"strings"
)

// INIHost is one host line of an Ansible INI inventory, as qa-infra's
// Terraform writes them (tf/templates/hosts.tmpl: "IP name=NAME
// internal_ip=IP" under [validators], [validators2], [prometheus],
// [loadrunners] and [ephemeral]).
type INIHost struct {
	Group   string
	Address string            // the line's host: what Ansible connects to
	Vars    map[string]string // its key=value pairs, e.g. name, internal_ip
	Line    int
}

// Name returns the host's name= variable, or its address without one.
func (h INIHost) Name() string {
	if n := h.Vars["name"]; n != "" {
		return n
	}
	return h.Address
}

// NodeAddress returns the address the host's nodes listen on and their
// peers dial: internal_ip when given (qa-infra's private network), else
// the line's host.
func (h INIHost) NodeAddress() string {
	if a := h.Vars["internal_ip"]; a != "" {
		return a
	}
	return h.Address
}

// iniGroup and iniKey are what a group and a variable name may be.
var (
	iniGroup = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)
	iniKey   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	// iniHostName is a host that is not an IP address: a DNS name or an
	// inventory alias.
	iniHostName = regexp.MustCompile(`^[A-Za-z0-9_]([A-Za-z0-9_.-]*[A-Za-z0-9_])?$`)
)

// ParseINI reads an Ansible INI inventory of plain groups: "[GROUP]"
// headers and host lines "HOST key=value …" (values may be quoted with "
// or '); blank lines and comments (# or ;) are skipped. Host ranges
// (web[1:3]), [GROUP:vars] and [GROUP:children] sections and hosts outside
// a group are refused, as are a host given twice in a group and two
// hosts with one name=. Errors name file:line.
func ParseINI(r io.Reader, file string) ([]INIHost, error) {
	var out []INIHost
	group := ""
	seen := map[string]int{} // group/address and name → line
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
			g, ok := strings.CutSuffix(line[1:], "]")
			if !ok || !iniGroup.MatchString(g) {
				return nil, at("%q: a group header is [NAME] (letters, digits, _ and -; :vars and :children sections are not supported)", line)
			}
			group = g
			continue
		}
		if group == "" {
			return nil, at("host line %q before any [GROUP]", line)
		}
		h, err := parseINIHost(line)
		if err != nil {
			return nil, at("%v", err)
		}
		h.Group, h.Line = group, n
		if prev, ok := seen[group+"/"+h.Address]; ok {
			return nil, at("host %s again in [%s] (first on line %d)", h.Address, group, prev)
		}
		seen[group+"/"+h.Address] = n
		if name, ok := h.Vars["name"]; ok {
			if prev, ok := seen["name="+name]; ok {
				return nil, at("name=%s again (first on line %d)", name, prev)
			}
			seen["name="+name] = n
		}
		out = append(out, h)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return out, nil
}

// parseINIHost reads "HOST key=value …".
func parseINIHost(line string) (INIHost, error) {
	fields, err := iniFields(line)
	if err != nil {
		return INIHost{}, err
	}
	h := INIHost{Address: fields[0], Vars: map[string]string{}}
	if net.ParseIP(h.Address) == nil && !iniHostName.MatchString(h.Address) {
		return INIHost{}, fmt.Errorf("host %q: a host is an IP address or a name (ranges such as web[1:3] are not supported)", h.Address)
	}
	for _, f := range fields[1:] {
		k, v, ok := strings.Cut(f, "=")
		if !ok || !iniKey.MatchString(k) {
			return INIHost{}, fmt.Errorf("host %s: %q is not key=value", h.Address, f)
		}
		if _, dup := h.Vars[k]; dup {
			return INIHost{}, fmt.Errorf("host %s: %s given twice", h.Address, k)
		}
		if k == "internal_ip" && net.ParseIP(v) == nil {
			return INIHost{}, fmt.Errorf("host %s: internal_ip=%q is not an IP address", h.Address, v)
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
