package manifest

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// DefaultPartitionDuration is how long a [partition] keeps the groups
// apart when the manifest does not say.
const DefaultPartitionDuration = "10s"

// ManifestPartition is the [partition] table: a network partition during
// the load, as in CometBFT's release testnets (RELEASES.md, "network
// partition"). The p2p links between nodes of different groups are cut in
// the relays (links = "relay") from at for duration, then healed; links
// within a group keep working. Groups are given as stake shares (split)
// or by name (groups), not both.
//
//	[partition]
//	split = "50/50"
//	at = "5s"
//	duration = "6s"
type ManifestPartition struct {
	// Split gives the groups as shares of the voting power, in percent,
	// "/"-separated, summing to 100: "50/50", "75/25", "40/30/30". The
	// validators, in name order, fill the groups in order, each going to
	// the group whose share its middle falls in (4 validators of equal
	// power: "50/50" is 2 + 2, "70/30" is 3 + 1, i.e. 75/25 in fact). Full
	// nodes go with the first group. Every group must get a validator.
	//
	//	split = "75/25"
	Split string `toml:"split"`

	// Groups names the nodes of each group; every node of the testnet is
	// in exactly one ([rotate] ephemeral nodes excepted: a partition is
	// refused with [rotate]). At least two groups.
	//
	//	groups = [["validator01", "validator02"], ["validator03", "validator04"]]
	Groups [][]string `toml:"groups"`

	// At is when the links are cut, after the load starts, as a Go
	// duration string (>= 0, before the load ends). Default "0s".
	//
	//	at = "20s"
	At string `toml:"at"`

	// Duration is how long the groups stay apart before the links are
	// healed, as a Go duration string (> 0). Default "10s". The heal
	// happens even after the load ends: the drain waits for it.
	//
	//	duration = "30s"
	Duration string `toml:"duration"`
}

// Partition is the resolved [partition] table.
type Partition struct {
	// Split is the split as written ("50/50"); "" when the groups were
	// named.
	Split string
	// Groups are the nodes of each group, in the manifest's order.
	Groups [][]string
	// Power is each group's voting power: its validators' and its twins'
	// validators' (a twin signs with its validator's key).
	Power []int64
	// Total is the testnet's voting power: the sum of Power, unless a
	// twin's validator is in another group (its power is then in both).
	Total int64
	// At is when the links are cut after the load starts; Duration how
	// long until they are healed.
	At, Duration time.Duration
}

// Describe is the partition in words, as its events and reports give it:
// "50/50 (power 2/2): validator01 validator02 | validator03 validator04".
func (p Partition) Describe() string {
	var groups []string
	for _, g := range p.Groups {
		groups = append(groups, strings.Join(g, " "))
	}
	what := "named groups"
	if p.Split != "" {
		what = p.Split
	}
	return fmt.Sprintf("%s (power %s): %s", what, p.PowerText(), strings.Join(groups, " | "))
}

// PowerText is the groups' voting power as the partition's event gives
// it: "2/2", or "20/30 of 40" when a twin's validator's power is in two
// groups (their sum is then more than the testnet's).
func (p Partition) PowerText() string {
	powers := make([]string, len(p.Power))
	var sum int64
	for i, w := range p.Power {
		powers[i] = strconv.FormatInt(w, 10)
		sum += w
	}
	text := strings.Join(powers, "/")
	if p.Total != 0 && p.Total != sum {
		text += " of " + strconv.FormatInt(p.Total, 10)
	}
	return text
}

// resolvePartition checks the [partition] table against the nodes and the
// load; nil when there is none.
func (m *Manifest) resolvePartition(ps *problems, nodes []Node, load time.Duration) *Partition {
	mp := m.Partition
	if mp == nil {
		return nil
	}
	p := &Partition{Split: mp.Split}
	if slices.ContainsFunc(nodes, func(n Node) bool { return n.Ephemeral }) {
		ps.add(f("partition"), "a partition with [rotate] ephemeral nodes is not supported (they would link both sides)")
	}
	switch {
	case mp.Split != "" && len(mp.Groups) > 0:
		ps.add(f("partition", "groups"), "set split or groups, not both")
	case mp.Split != "":
		p.Groups = splitGroups(ps, mp.Split, nodes)
	case len(mp.Groups) > 0:
		p.Groups = namedGroups(ps, mp.Groups, nodes)
	default:
		ps.add(f("partition"), "needs split (e.g. \"50/50\") or groups")
	}
	// A group's power is its validators' and its twins' validators', each
	// validator counted once: a twin votes with its validator's key, so a
	// side holding the twin but not the validator holds that power too.
	power := map[string]int64{}
	signs := map[string]string{} // node → the validator it signs for
	for _, n := range nodes {
		power[n.Name] = n.Power
		p.Total += n.Power
		signs[n.Name] = cmp.Or(n.TwinOf, n.Name)
	}
	for _, g := range p.Groups {
		var sum int64
		counted := map[string]bool{}
		for _, n := range g {
			if v := signs[n]; !counted[v] {
				counted[v] = true
				sum += power[v]
			}
		}
		p.Power = append(p.Power, sum)
	}
	at, dur := mp.At, mp.Duration
	if at == "" {
		at = "0s"
	}
	if dur == "" {
		dur = DefaultPartitionDuration
	}
	p.At = duration(ps, f("partition", "at"), at, true)
	p.Duration = duration(ps, f("partition", "duration"), dur, false)
	if load > 0 && p.At >= load {
		ps.add(f("partition", "at"), "begins at %s, after the load ends (load.duration %s)", p.At, load)
	}
	return p
}

// ParseSplit reads stake shares "50/50", "75/25", "40/30/30": two or more
// percentages > 0 summing to 100.
func ParseSplit(s string) ([]float64, error) {
	parts := strings.Split(s, "/")
	if len(parts) < 2 {
		return nil, fmt.Errorf("invalid split %q: want two shares or more in percent, e.g. \"50/50\"", s)
	}
	var out []float64
	var sum float64
	for _, x := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil || !(v > 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("invalid split %q: %q is not a share > 0 in percent", s, x)
		}
		out = append(out, v)
		sum += v
	}
	if math.Abs(sum-100) > 1e-9 {
		return nil, fmt.Errorf("invalid split %q: the shares sum to %g, want 100", s, sum)
	}
	return out, nil
}

// splitGroups fills the groups of split with the validators in order,
// each going to the group whose cumulative share its middle falls in; the
// other nodes join the first group.
func splitGroups(ps *problems, split string, nodes []Node) [][]string {
	shares, err := ParseSplit(split)
	if err != nil {
		ps.add(f("partition", "split"), "%s", err)
		return nil
	}
	var total int64
	for _, n := range nodes {
		if n.Mode == ModeValidator {
			total += n.Power
		}
	}
	groups := make([][]string, len(shares))
	var c int64
	for _, n := range nodes {
		if n.Ephemeral || n.Mode != ModeValidator {
			continue
		}
		mid := float64(c) + float64(n.Power)/2
		cum, g := 0.0, len(shares)-1
		for i, s := range shares {
			cum += s / 100 * float64(total)
			if mid < cum {
				g = i
				break
			}
		}
		groups[g] = append(groups[g], n.Name)
		c += n.Power
	}
	for _, n := range nodes {
		if !n.Ephemeral && n.Mode != ModeValidator {
			groups[0] = append(groups[0], n.Name)
		}
	}
	for i, g := range groups {
		if !slices.ContainsFunc(g, func(name string) bool { return isValidator(nodes, name) }) {
			ps.add(f("partition", "split"), "%s leaves group %d without a validator (validators' power %d)", split, i+1, total)
			return nil
		}
	}
	return groups
}

func isValidator(nodes []Node, name string) bool {
	i := slices.IndexFunc(nodes, func(n Node) bool { return n.Name == name })
	return i >= 0 && nodes[i].Mode == ModeValidator
}

// namedGroups checks groups by name: at least two, none empty, every node
// (ephemeral ones aside) in exactly one.
func namedGroups(ps *problems, groups [][]string, nodes []Node) [][]string {
	field := f("partition", "groups")
	if len(groups) < 2 {
		ps.add(field, "want two groups or more, got %d", len(groups))
	}
	in := map[string]int{}
	for i, g := range groups {
		if len(g) == 0 {
			ps.add(field, "group %d is empty", i+1)
		}
		for _, name := range g {
			switch j, seen := in[name]; {
			case seen:
				ps.add(field, "node %q is in group %d and group %d", name, j+1, i+1)
			case !slices.ContainsFunc(nodes, func(n Node) bool { return n.Name == name && !n.Ephemeral }):
				ps.add(field, "no node named %q", name)
			}
			in[name] = i
		}
	}
	var left []string
	for _, n := range nodes {
		if _, ok := in[n.Name]; !ok && !n.Ephemeral {
			left = append(left, n.Name)
		}
	}
	if len(left) > 0 {
		ps.add(field, "%s in no group (every node must be on one side)", strings.Join(left, ", "))
	}
	return slices.Clone(groups)
}

// ParsePartition reads a --partition flag value, SPLIT[@AT][,duration=D]:
// SPLIT is stake shares ("50/50") or groups of node names joined by "+"
// and separated by "/" ("validator01+validator02/validator03+validator04"),
// AT a Go duration after the load starts:
//
//	50/50@5s,duration=6s
//	validator01/validator02+validator03+validator04@20s
func ParsePartition(s string) (ManifestPartition, error) {
	bad := func(format string, args ...any) (ManifestPartition, error) {
		return ManifestPartition{}, fmt.Errorf("%q: %s (want SPLIT[@AT][,duration=D], e.g. 50/50@5s,duration=6s or validator01+validator02/validator03+validator04@5s)",
			s, fmt.Sprintf(format, args...))
	}
	parts := strings.Split(s, ",")
	split, at, hasAt := strings.Cut(parts[0], "@")
	var p ManifestPartition
	if _, err := ParseSplit(split); err == nil {
		p.Split = split
	} else {
		for _, g := range strings.Split(split, "/") {
			names := strings.Split(g, "+")
			for _, n := range names {
				if !nodeName.MatchString(n) {
					return bad("%q is neither stake shares nor groups of node names", split)
				}
			}
			p.Groups = append(p.Groups, names)
		}
		if len(p.Groups) < 2 {
			return bad("want two groups or more")
		}
	}
	if hasAt {
		if _, err := time.ParseDuration(at); err != nil {
			return bad("invalid time %q (a Go duration such as 20s)", at)
		}
		p.At = at
	}
	for _, kv := range parts[1:] {
		k, v, ok := strings.Cut(kv, "=")
		switch {
		case !ok:
			return bad("%q is not KEY=VALUE", kv)
		case k != "duration":
			return bad("unknown key %q", k)
		}
		p.Duration = v
	}
	return p, nil
}

// SetPartition lays a --partition flag's partition over m, replacing its
// [partition] table; errors about its values name the flag.
func (m *Manifest) SetPartition(p ManifestPartition) {
	m.Partition = &p
	m.origin = maps.Clone(m.origin)
	if m.origin == nil {
		m.origin = map[string]string{}
	}
	for _, k := range []string{"", ".split", ".groups", ".at", ".duration"} {
		m.origin["partition"+k] = "--partition"
	}
}

// setPartition sets one key of [partition] (split, at or duration) from
// its text, creating the table when there is none.
func (m *Manifest) setPartition(key, v string) {
	p := ManifestPartition{}
	if m.Partition != nil {
		p = *m.Partition
	}
	switch key {
	case "split":
		p.Split, p.Groups = v, nil
	case "at":
		p.At = v
	case "duration":
		p.Duration = v
	}
	m.Partition = &p
}
