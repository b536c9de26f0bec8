package manifest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// MaxEvidence bounds the evidence key: each piece is signed, sent and
// waited for during the load.
const MaxEvidence = 100

// The absent key's text forms (see [Manifest.Absent] and its --set form).
const (
	absentNone = "none" // --set absent=none: every validator runs
	absentSep  = "+"    // --set absent=validator03+validator04
)

// resolveAbsent marks the validators of the absent key Absent in nodes:
// named ones, or the last validators (in nodes' order) as many as fit in
// a stake share. The validators left must hold more than 2/3 of the
// voting power, so that the chain commits; at least one must run.
func (m *Manifest) resolveAbsent(ps *problems, nodes []Node) {
	names, share, ok := absentValue(m.Absent)
	if !ok {
		ps.add(f("absent"), "want a list of validator names or a stake share such as \"25%%\" (0 ≤ share < 100), got %s", describeValue(m.Absent))
		return
	}
	if share > 0 {
		names = absentShare(nodes, share)
		if len(names) == 0 {
			ps.add(f("absent"), "a share of %g%% of the voting power selects no validator (the last validator holds more): give a larger share or names", share)
			return
		}
	}
	for i, name := range names {
		j := slices.IndexFunc(nodes, func(n Node) bool { return n.Name == name })
		switch {
		case slices.Index(names, name) < i:
			ps.add(f("absent"), "%q is named twice", name)
		case j < 0 && len(nodes) > 0:
			ps.add(f("absent"), "no node named %q", name)
		case j >= 0 && nodes[j].Mode != ModeValidator:
			ps.add(f("absent"), "node %q is a %s node: only validators are absent (in the genesis, never started)", name, nodes[j].Mode)
		case j >= 0:
			nodes[j].Absent = true
		}
	}
	checkQuorum(ps, nodes)
}

// checkQuorum refuses absent validators that leave the chain unable to
// commit: the present ones must hold more than 2/3 of the voting power.
func checkQuorum(ps *problems, nodes []Node) {
	starting, total := startingPower(nodes)
	if starting < total && !hasQuorum(starting, total) {
		ps.add(f("absent"), "the validators left hold %d of the %d voting power, not more than 2/3: the chain could not commit", starting, total)
	}
}

// startingPower is the voting power of the validators that start with
// the testnet (neither absent nor late) and the total.
func startingPower(nodes []Node) (starting, total int64) {
	for _, n := range nodes {
		total += n.Power
		if !n.Absent && n.StartAt == 0 {
			starting += n.Power
		}
	}
	return starting, total
}

// hasQuorum reports whether power is more than 2/3 of total.
func hasQuorum(power, total int64) bool { return 3*power > 2*total }

// absentValue reads the absent key: nil (none), a list of names, or a
// share "N%" (0 ≤ N < 100; 0 means none). ok is false for anything else.
func absentValue(v any) (names []string, share float64, ok bool) {
	switch x := v.(type) {
	case nil:
		return nil, 0, true
	case string:
		share, ok := parseShare(x)
		return nil, share, ok
	case []string:
		return x, 0, true
	case []any:
		for _, e := range x {
			s, isString := e.(string)
			if !isString {
				return nil, 0, false
			}
			names = append(names, s)
		}
		return names, 0, true
	}
	return nil, 0, false
}

// parseShare parses "N%" with 0 ≤ N < 100.
func parseShare(s string) (float64, bool) {
	num, ok := strings.CutSuffix(s, "%")
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || !(v >= 0 && v < 100) {
		return 0, false
	}
	return v, true
}

// absentShare returns the validators absent under a share of the voting
// power (percent): the last validators of nodes, taken from the end while
// their power summed stays within share % of the total.
func absentShare(nodes []Node, share float64) []string {
	var total int64
	for _, n := range nodes {
		total += n.Power
	}
	var names []string
	var sum int64
	for i := len(nodes) - 1; i >= 0; i-- {
		n := nodes[i]
		if n.Mode != ModeValidator {
			continue
		}
		if float64(sum+n.Power)*100 > share*float64(total)+1e-9 {
			break
		}
		sum += n.Power
		names = append(names, n.Name)
	}
	slices.Reverse(names)
	return names
}

// setAbsent sets the absent key from its --set text: a share "N%", "none",
// or names joined by "+".
func (m *Manifest) setAbsent(v string) error {
	switch {
	case strings.HasSuffix(v, "%"):
		if _, ok := parseShare(v); !ok {
			return fmt.Errorf("absent: want a share N%% with 0 ≤ N < 100, got %q", v)
		}
		m.Absent = v
	case v == absentNone:
		m.Absent = nil
	default:
		names := strings.Split(v, absentSep)
		if slices.Contains(names, "") {
			return fmt.Errorf("absent: want validator names joined by %q, a share N%% or %q, got %q", absentSep, absentNone, v)
		}
		m.Absent = names
	}
	return nil
}

// resolveEvidence checks the evidence key: 0 ≤ N ≤ [MaxEvidence], on
// releases whose evidence encoding cometlab knows: not a cometbft_binary.
func (m *Manifest) resolveEvidence(ps *problems, nodes []Node, binary string) int {
	if m.Evidence < 0 || m.Evidence > MaxEvidence {
		ps.add(f("evidence"), "must be between 0 and %d, got %d", MaxEvidence, m.Evidence)
		return 0
	}
	if m.Evidence > 0 && binary != "" && slices.ContainsFunc(nodes, func(n Node) bool { return n.Version == "" }) {
		ps.add(f("evidence"), "evidence needs a known release: the JSON of duplicate-vote evidence differs between release lines "+
			"(cometbft.Line.EvidenceSnakeKeys), and a cometbft_binary's release is unknown")
	}
	return m.Evidence
}

// describeValue names a TOML value's type for an error message.
func describeValue(v any) string {
	switch v.(type) {
	case string:
		return fmt.Sprintf("%q", v)
	case []any:
		return "a list holding a non-string"
	case int64:
		return "a TOML integer"
	case float64:
		return "a TOML float"
	case bool:
		return "a TOML boolean"
	case map[string]any:
		return "a TOML table"
	}
	return fmt.Sprintf("a %T", v)
}

// AbsentNames returns the names of the absent validators of r, in r's
// node order.
func (r Resolved) AbsentNames() []string {
	var out []string
	for _, n := range r.Nodes {
		if n.Absent {
			out = append(out, n.Name)
		}
	}
	return out
}
