package manifest

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cometlab/cometlab/internal/cometbft"
)

// Perturbation actions ([perturb.NODE] action).
const (
	// ActionKill sends SIGKILL, then starts the same home again after down.
	ActionKill = "kill"
	// ActionRestart sends SIGTERM, waits for the exit and starts again.
	ActionRestart = "restart"
	// ActionPause sends SIGSTOP, then SIGCONT after down.
	ActionPause = "pause"
	// ActionDisconnect cuts the node's p2p links for down, process running.
	ActionDisconnect = "disconnect"
	// ActionWipe stops the node, deletes its data directory (keys and
	// config kept), and starts it again after down: it rejoins by block
	// sync.
	ActionWipe = "wipe"
	// ActionUpgrade sends SIGTERM, waits for the exit and starts the same
	// home again with release To's binary (a rolling upgrade).
	ActionUpgrade = "upgrade"
)

// Actions lists the perturbation actions.
var Actions = []string{ActionKill, ActionRestart, ActionPause, ActionDisconnect, ActionWipe, ActionUpgrade}

// DefaultDown is how long a kill, pause or disconnect keeps a node down
// when the manifest does not say.
const DefaultDown = "5s"

// ManifestPerturb is one [perturb.NAME] table: what is done to node NAME
// (or to Node), when (after the load starts, or once the network reaches
// a height) and how often. A node with several perturbations has one
// table each, all but one named otherwise and naming it in node; they
// run in the order of their times and must not overlap.
//
//	[perturb.validator03]
//	action = "kill"
//	at = "20s"
//	down = "5s"
//	every = "30s"
//	count = 3
//
//	[perturb.validator03-pause]
//	node = "validator03"
//	action = "pause"
//	at = "1m50s"
type ManifestPerturb struct {
	// Node is the node perturbed. Default: the table's name. A table
	// named after a node perturbs that node only.
	//
	//	node = "validator03"
	Node string `toml:"node"`

	// Action is "kill", "restart", "pause", "disconnect", "wipe" or
	// "upgrade". Required.
	//
	//	action = "pause"
	Action string `toml:"action"`

	// At is when the first occurrence begins, after the load starts, as a
	// Go duration string (>= 0, before the load ends). Default "0s" unless
	// Height is set; setting both is an error.
	//
	//	at = "20s"
	At string `toml:"at"`

	// Height, when > 0, begins the first occurrence once the load's
	// target has committed this height instead of at a time.
	//
	//	height = 50
	Height int64 `toml:"height"`

	// Down is how long the node stays down (killed, paused, cut off or
	// wiped) before it is started, resumed or reconnected, as a Go
	// duration string. Default "5s" for kill, pause and disconnect (> 0),
	// "0s" for wipe; a restart has none.
	//
	//	down = "10s"
	Down string `toml:"down"`

	// Every is the time between the beginnings of two occurrences (> down).
	// Required when Count > 1.
	//
	//	every = "30s"
	Every string `toml:"every"`

	// Count is how many times the perturbation happens (>= 1). Default 1;
	// an upgrade happens once.
	//
	//	count = 3
	Count *int `toml:"count"`

	// To is the release an upgrade starts the node's home with: required
	// for action = "upgrade", for no other action. It must be newer than
	// the node's release, a patch release of its line, or of a line whose
	// store and protocol the release facts say are compatible
	// (cometbft.CheckUpgrade). Built before the run starts.
	//
	//	to = "v1.0.1"
	To string `toml:"to"`

	// ToSource is a CometBFT source tree an upgrade starts the node's home
	// with instead of a release (set to or to_source, not both): built
	// before the run as cometbft_source builds a tree, its release read
	// from its version file. It may be of the node's own release (a
	// candidate built from it: a rolling upgrade of a release to your
	// branch); otherwise it is checked as to is.
	//
	//	to_source = "../cometbft"
	ToSource string `toml:"to_source"`
}

// count is the table's count, 1 when unset.
func (mp ManifestPerturb) count() int {
	if mp.Count == nil {
		return 1
	}
	return *mp.Count
}

// Perturbation is one resolved [perturb.NAME] table.
type Perturbation struct {
	// Name is the table's name; "" stands for Node.
	Name string
	// Node is the node perturbed.
	Node string
	// Action is one of [Actions].
	Action string
	// At is when the first occurrence begins after the load starts (after
	// Height is reached when Height > 0).
	At time.Duration
	// Height, when > 0, is the target's height that starts the clock of At.
	Height int64
	// Down is how long each occurrence keeps the node down; 0 for a
	// restart.
	Down time.Duration
	// Every is the time between two occurrences' beginnings; 0 when Count
	// is 1.
	Every time.Duration
	// Count is the number of occurrences, >= 1.
	Count int
	// From and To are an upgrade's releases: the node's and the one it is
	// started with (a tree's: the release it derives from); "" for the
	// other actions.
	From, To string
	// ToSource is the tree an upgrade starts the node with (to_source),
	// nil for a release.
	ToSource *cometbft.Source
}

// UpgradeTarget names what an upgrade starts its node with: the release
// To, or "tree:PATH" for a source tree; "" for another action. It keys
// the upgrade's binary and ends the perturbation's detail ("v0.40.0 →
// tree:/src/cometbft").
func (p Perturbation) UpgradeTarget() string {
	if p.ToSource != nil {
		return "tree:" + p.ToSource.Tree
	}
	return p.To
}

func (m *Manifest) resolvePerturbations(ps *problems, nodes []Node, load time.Duration, app string) []Perturbation {
	var out []Perturbation
	for _, name := range slices.Sorted(maps.Keys(m.Perturb)) {
		mp := m.Perturb[name]
		field := func(k string) []string { return f("perturb", name, k) }
		node := cmpOr(mp.Node, name)
		p := Perturbation{Node: node, Action: mp.Action, Height: mp.Height, Count: mp.count()}
		if node != name {
			p.Name = name
		}
		i := slices.IndexFunc(nodes, func(n Node) bool { return n.Name == node })
		switch {
		case node != name && slices.ContainsFunc(nodes, func(n Node) bool { return n.Name == name }):
			ps.add(field("node"), "the table is named after node %s: it perturbs that node, not %q", name, node)
		case i < 0 && len(nodes) > 0 && node != name:
			ps.add(field("node"), "no node named %q", node)
		case i < 0 && len(nodes) > 0:
			ps.add(f("perturb", name), "no node named %q", name)
		case i >= 0 && nodes[i].Ephemeral:
			ps.add(f("perturb", name), "node %q is a [rotate] ephemeral node, which the rotation starts and stops", node)
		case i >= 0 && nodes[i].Absent:
			ps.add(f("perturb", name), "node %q is absent (never started): there is nothing to perturb", node)
		}
		if !slices.Contains(Actions, mp.Action) {
			ps.add(field("action"), "invalid action %q (want %s)", mp.Action, strings.Join(Actions, ", "))
		}
		if mp.Height < 0 {
			ps.add(field("height"), "must be >= 0, got %d", mp.Height)
		}
		switch {
		case mp.At != "" && mp.Height > 0:
			ps.add(field("at"), "set at or height, not both")
		case mp.At != "":
			p.At = duration(ps, field("at"), mp.At, true)
			if load > 0 && p.At >= load {
				ps.add(field("at"), "begins at %s, after the load ends (load.duration %s)", p.At, load)
			}
		}
		if i >= 0 {
			p.From, p.To, p.ToSource = checkUpgrade(ps, field, mp, nodes[i].Version, app)
		}
		p.Down = resolveDown(ps, field("down"), mp)
		if p.Count < 1 {
			ps.add(field("count"), "must be >= 1, got %d", p.Count)
		}
		switch {
		case mp.Every != "":
			p.Every = duration(ps, field("every"), mp.Every, false)
			if p.Every > 0 && p.Every <= p.Down {
				ps.add(field("every"), "must be longer than down (%s), got %s", p.Down, p.Every)
			}
		case p.Count > 1:
			ps.add(field("count"), "is %d: every must be set too", p.Count)
		}
		if p.Count == 1 {
			p.Every = 0
		}
		out = append(out, p)
	}
	checkSequence(ps, out)
	return out
}

// checkSequence checks a node's several perturbations: they share their
// trigger (times after the load starts, or after one height) and none
// begins before the one before it has ended, so that they run in order.
func checkSequence(ps *problems, out []Perturbation) {
	type span struct {
		name       string
		begin, end time.Duration
	}
	byNode := map[string][]span{}
	height := map[string]int64{}
	for _, p := range out {
		name := cmpOr(p.Name, p.Node)
		if h, ok := height[p.Node]; ok && h != p.Height {
			ps.add(f("perturb", name, "height"), "node %s's perturbations must all begin at times after the load starts, or all after the same height", p.Node)
			continue
		}
		height[p.Node] = p.Height
		for i := range p.Count {
			b := p.At + time.Duration(i)*p.Every
			byNode[p.Node] = append(byNode[p.Node], span{name, b, b + p.Down})
		}
	}
	for _, node := range slices.Sorted(maps.Keys(byNode)) {
		spans := byNode[node]
		slices.SortStableFunc(spans, func(a, b span) int { return cmp.Compare(a.begin, b.begin) })
		for i := 1; i < len(spans); i++ {
			if prev, s := spans[i-1], spans[i]; s.begin <= prev.end && s.name != prev.name {
				ps.add(f("perturb", s.name, "at"), "node %s is still down from perturb.%s until %s: its perturbations must not overlap", node, prev.name, prev.end)
			}
		}
	}
}

// resolveDown applies the action's default down time and checks it.
func resolveDown(ps *problems, field []string, mp ManifestPerturb) time.Duration {
	switch mp.Action {
	case ActionRestart, ActionUpgrade:
		if mp.Down != "" {
			what := "a restart"
			if mp.Action == ActionUpgrade {
				what = "an upgrade"
			}
			ps.add(field, "%s has no down time (it starts again as soon as the node exits)", what)
		}
		return 0
	case ActionWipe:
		if mp.Down == "" {
			return 0
		}
		return duration(ps, field, mp.Down, true)
	}
	if mp.Down == "" {
		mp.Down = DefaultDown
	}
	return duration(ps, field, mp.Down, false)
}

// perturbKey matches a settable perturbation key, perturb.NODE.FIELD.
var perturbKey = regexp.MustCompile(`^perturb\.([a-z0-9_-]+)\.(node|action|at|height|down|every|count|to)$`)

// setPerturb sets one field of [perturb.NODE] from its text; the table is
// created (count 1) when the node has none. Tables are cloned before they
// change.
func (m *Manifest) setPerturb(node, key, v string) error {
	p := m.Perturb[node]
	switch key {
	case "node":
		p.Node = v
	case "action":
		p.Action = v
	case "at":
		p.At = v
	case "down":
		p.Down = v
	case "every":
		p.Every = v
	case "to":
		p.To = v
	case "to_source":
		p.ToSource = v
	case "height", "count":
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("perturb.%s.%s: want an integer, got %q", node, key, v)
		}
		if key == "height" {
			p.Height = n
		} else {
			c := int(n)
			p.Count = &c
		}
	}
	m.Perturb = maps.Clone(m.Perturb)
	if m.Perturb == nil {
		m.Perturb = map[string]ManifestPerturb{}
	}
	m.Perturb[node] = p
	return nil
}

// ParsePerturb reads a --perturb flag value, NODE:ACTION[@WHEN][,KEY=V…]:
// WHEN is a duration after the load starts ("20s") or a height ("h50"),
// and the keys are down, every, count and to, as in a [perturb.NODE]
// table:
//
//	validator03:kill@20s,down=5s
//	validator02:pause@h50,down=10s,every=30s,count=3
//	validator04:restart@40s
//	validator01:upgrade@10s,to=v1.0.1
func ParsePerturb(s string) (node string, p ManifestPerturb, err error) {
	bad := func(format string, args ...any) (string, ManifestPerturb, error) {
		return "", ManifestPerturb{}, fmt.Errorf("%q: %s (want NODE:ACTION[@WHEN][,down=D][,every=D][,count=N][,to=RELEASE], e.g. validator03:kill@20s,down=5s)",
			s, fmt.Sprintf(format, args...))
	}
	node, rest, ok := strings.Cut(s, ":")
	if !ok || node == "" {
		return bad("no node")
	}
	if !nodeName.MatchString(node) {
		return bad("invalid node name %q", node)
	}
	parts := strings.Split(rest, ",")
	action, when, hasWhen := strings.Cut(parts[0], "@")
	p = ManifestPerturb{Action: action}
	if !slices.Contains(Actions, action) {
		return bad("invalid action %q (want %s)", action, strings.Join(Actions, ", "))
	}
	if hasWhen {
		if h, ok := strings.CutPrefix(when, "h"); ok {
			n, err := strconv.ParseInt(h, 10, 64)
			if err != nil || n < 1 {
				return bad("invalid height %q", h)
			}
			p.Height = n
		} else if _, err := time.ParseDuration(when); err != nil {
			return bad("invalid time %q (a Go duration such as 20s, or hN for a height)", when)
		} else {
			p.At = when
		}
	}
	for _, kv := range parts[1:] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return bad("%q is not KEY=VALUE", kv)
		}
		switch k {
		case "down":
			p.Down = v
		case "every":
			p.Every = v
		case "count":
			n, err := strconv.Atoi(v)
			if err != nil {
				return bad("count %q is not an integer", v)
			}
			p.Count = &n
		case "to":
			p.To = v
		case "to_source":
			p.ToSource = v
		default:
			return bad("unknown key %q", k)
		}
	}
	return node, p, nil
}

// AddPerturb lays a --perturb flag's perturbation over m: it replaces
// every [perturb.NAME] table of the same node, and errors about its values
// name the flag.
func (m *Manifest) AddPerturb(node string, p ManifestPerturb) {
	m.Perturb = maps.Clone(m.Perturb)
	if m.Perturb == nil {
		m.Perturb = map[string]ManifestPerturb{}
	}
	maps.DeleteFunc(m.Perturb, func(name string, mp ManifestPerturb) bool { return cmpOr(mp.Node, name) == node })
	m.Perturb[node] = p
	m.origin = maps.Clone(m.origin)
	if m.origin == nil {
		m.origin = map[string]string{}
	}
	for _, k := range []string{"", ".action", ".at", ".height", ".down", ".every", ".count", ".to"} {
		m.origin["perturb."+node+k] = "--perturb " + node
	}
}

// resolveLinks resolves links = "auto" and checks the mode against the
// perturbations, the partition, the zones and the nodes.
func (m *Manifest) resolveLinks(ps *problems, nodes []Node, perturbs []Perturbation, partition, zones bool) string {
	disconnect := slices.ContainsFunc(perturbs, func(p Perturbation) bool { return p.Action == ActionDisconnect })
	mode := m.Links
	switch mode {
	case LinksAuto:
		mode = LinksDirect
		if disconnect || partition || zones {
			mode = LinksRelay
		}
	case LinksDirect:
		if disconnect {
			ps.add(f("links"), "a disconnect perturbation needs links = %q (or %q)", LinksRelay, LinksAuto)
		}
		if partition {
			ps.add(f("links"), "a [partition] cuts the links in relays: it needs links = %q (or %q)", LinksRelay, LinksAuto)
		}
		if zones {
			ps.add(f("links"), "[zones] delay the links in relays: they need links = %q (or %q)", LinksRelay, LinksAuto)
		}
	case LinksRelay:
	default:
		ps.add(f("links"), "invalid links %q (want %q, %q or %q)", m.Links, LinksAuto, LinksDirect, LinksRelay)
		return mode
	}
	return mode
}
