package manifest

import (
	"bytes"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// e2eReader reads one CometBFT e2e manifest (test/e2e/pkg/manifest.go, the
// keys of every release line cometlab runs and of CometBFT's main) into a
// cometlab [Manifest]: every key is mapped (see docs/e2e-manifests.md) or
// refused by name.
type e2eReader struct {
	file    string
	pos     map[string][]position
	lenient bool
	m       Manifest
	// refusals are the keys cometlab will not take, in no order.
	refusals []refusal
	// cpos maps a cometlab key path to the e2e key path it came from, so
	// that Resolve's errors point into the e2e file.
	cpos map[string]string
	// app holds the e2e app settings; nodeApp the per-node ones
	// (persist_interval, snapshot_interval, retain_blocks) by key, then
	// node.
	app     map[string]any
	nodeApp map[string]map[string]any
	// powers is the [validators] table; nil when absent.
	powers map[string]int64
	// perturbs are the nodes' perturb lists (perturbPath where each is
	// written); noLoad the send_no_load
	// nodes; zones the nodes' zones (default_zone applied later).
	perturbs    map[string][]string
	perturbPath map[string][]string
	noLoad      map[string]bool
	zones       map[string]string
	defaultZone string
	// libp2p is each node's use_libp2p, libp2pPath where it was set.
	libp2p     map[string]bool
	libp2pPath map[string][]string
	// settled is the gap between two perturbations (perturb_interval).
	gap string
	// batch, conns, maxTxs and maxSeconds are the load_* keys (0: unset).
	batch, conns, maxTxs, maxSeconds int64
}

// refusal is one key cometlab does not take. lenient marks a key that does
// not change what is measured: --lenient turns it into a warning.
type refusal struct {
	path    []string
	msg     string
	lenient bool
}

// refuse records that the key at path is not taken, and why.
func (r *e2eReader) refuse(path []string, lenient bool, format string, args ...any) {
	r.refusals = append(r.refusals, refusal{path: slices.Clone(path), msg: fmt.Sprintf(format, args...), lenient: lenient})
}

// from records that cometlab key ckey (dotted) came from e2e key path.
func (r *e2eReader) from(ckey string, path []string) {
	r.cpos[ckey] = strings.Join(path, ".")
}

// parseE2E reads the e2e manifest data (file name for messages). It
// returns the manifest, the warnings (refusals --lenient downgraded, and
// notes on what was taken) and the refusals as joined [*Error]s.
func parseE2E(name string, data []byte, lenient bool) (Manifest, []string, error) {
	var doc map[string]any
	if err := toml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		return Manifest{}, nil, decodeError(name, err)
	}
	r := &e2eReader{
		file: name, pos: keyPositions(data), lenient: lenient, m: Default(),
		cpos: map[string]string{}, app: map[string]any{}, nodeApp: map[string]map[string]any{},
		perturbs: map[string][]string{}, perturbPath: map[string][]string{}, noLoad: map[string]bool{}, zones: map[string]string{},
		libp2p: map[string]bool{}, libp2pPath: map[string][]string{},
	}
	r.m.Name = strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	r.m.App = AppE2E
	r.m.Nodes = map[string]ManifestNode{}
	r.m.Config = map[string]any{}
	r.readTop(doc)
	r.readNodes(doc["node"])
	r.applyPowers()
	r.applyLibP2P()
	r.applyNodeApp()
	r.applyLoad()
	r.applyPerturbs()
	r.applyZones()
	r.chooseVersion()
	r.afterVersion()
	r.m.App = appValue(AppE2E, r.app)
	return r.finish()
}

// readTop reads the top-level keys, except node.
func (r *e2eReader) readTop(doc map[string]any) {
	for _, k := range slices.Sorted(maps.Keys(doc)) {
		if k == "node" {
			continue
		}
		h, ok := e2eTopKeys[k]
		if !ok {
			r.refuse(f(k), false, "unknown field: not a key of the e2e manifest format (test/e2e/pkg/manifest.go)")
			continue
		}
		h(r, f(k), doc[k])
	}
}

// readNodes reads the [node.NAME] tables.
func (r *e2eReader) readNodes(v any) {
	if v == nil {
		return
	}
	nodes, ok := v.(map[string]any)
	if !ok {
		r.refuse(f("node"), false, "wrong type: want a table of [node.NAME] tables")
		return
	}
	for _, name := range slices.Sorted(maps.Keys(nodes)) {
		path := f("node", name)
		t, ok := nodes[name].(map[string]any)
		if !ok {
			r.refuse(path, false, "wrong type: want a table")
			continue
		}
		mn := ManifestNode{}
		r.m.Nodes[name] = mn
		r.from("node."+name, path)
		r.from("node."+name+".mode", append(path, "mode"))
		for _, k := range slices.Sorted(maps.Keys(t)) {
			h, ok := e2eNodeKeys[k]
			if !ok {
				r.refuse(append(path, k), false, "unknown field: not a node key of the e2e manifest format (CometBFT's runner would ignore it silently)")
				continue
			}
			h(r, name, append(slices.Clone(path), k), t[k])
		}
	}
}

// node returns a pointer-free update helper: fn changes node name's table.
func (r *e2eReader) node(name string, fn func(*ManifestNode)) {
	mn := r.m.Nodes[name]
	fn(&mn)
	r.m.Nodes[name] = mn
}

// applyPowers gives every validator its voting power: the [validators]
// table's, or 100 each (the e2e runner's default) without one. A
// validator not in [validators] that InitChain's update
// ([validator_update.0]) gives power gets that power in the genesis:
// InitChain's validators replace the genesis ones, so the chain's set
// from height 1 is the same as under the runner.
func (r *e2eReader) applyPowers() {
	for _, name := range slices.Sorted(maps.Keys(r.m.Nodes)) {
		mn := r.m.Nodes[name]
		if mn.Mode != "" && mn.Mode != ModeValidator {
			if _, in := r.powers[name]; in {
				r.refuse(f("validators", name), false, "node %s is a %s node: only validators have voting power", name, mn.Mode)
			}
			continue
		}
		power := int64(100)
		if r.powers != nil {
			p, in := r.powers[name]
			if p0 := r.m.ValidatorUpdate["0"][name]; !in && p0 > 0 {
				p, in = p0, true
			}
			if !in {
				r.refuse(f("node", name), false, "validator %s is not in [validators]: the e2e runner starts it without voting power "+
					"(it may join through a later [validator_update]), while cometlab makes every validator a genesis validator", name)
				continue
			}
			power = p
			r.from("node."+name+".power", f("validators", name))
		}
		r.node(name, func(n *ManifestNode) { n.Power = &power })
	}
	for _, name := range slices.Sorted(maps.Keys(r.powers)) {
		if _, ok := r.m.Nodes[name]; !ok {
			r.refuse(f("validators", name), false, "no node named %q", name)
		}
	}
}

// applyNodeApp turns the per-node e2e app settings into the testnet's
// [app] when every node has the same value (the runner's default where a
// node sets none), else into each node's own app settings ([node.X] app)
// where the node sets one (the others keep the app's default, which is
// the runner's).
func (r *e2eReader) applyNodeApp() {
	for _, key := range slices.Sorted(maps.Keys(r.nodeApp)) {
		set := r.nodeApp[key]
		values := map[string]bool{}
		for name := range r.m.Nodes {
			v, ok := set[name]
			if !ok {
				v = e2eNodeAppDefault[key]
			}
			values[fmt.Sprint(v)] = true
		}
		names := slices.Sorted(maps.Keys(set))
		if len(values) == 1 {
			r.app[key] = set[names[0]]
			r.from("app."+key, f("node", names[0], key))
			continue
		}
		for _, name := range names {
			n := r.m.Nodes[name]
			if n.App == nil {
				n.App = map[string]any{}
			}
			n.App[key] = set[name]
			r.m.Nodes[name] = n
			r.from("node."+name+".app."+key, f("node", name, key))
		}
	}
}

// e2eNodeAppDefault are the e2e runner's defaults of the per-node app
// settings (test/e2e/pkg/testnet.go).
var e2eNodeAppDefault = map[string]any{"persist_interval": int64(1), "snapshot_interval": int64(0), "retain_blocks": int64(0)}

// applyZones gives every node its zone (or default_zone) on the AWS
// matrix, which is the e2e runner's; some nodes without a zone turn the
// runner's latency emulation off, which cometlab cannot do per node.
func (r *e2eReader) applyZones() {
	if len(r.zones) == 0 && r.defaultZone == "" {
		return
	}
	var missing []string
	for _, name := range slices.Sorted(maps.Keys(r.m.Nodes)) {
		z := cmpOr(r.zones[name], r.defaultZone)
		if z == "" {
			missing = append(missing, name)
			continue
		}
		r.node(name, func(n *ManifestNode) { n.Zone = z })
		if _, own := r.zones[name]; own {
			r.from("node."+name+".zone", f("node", name, "zone"))
		} else {
			r.from("node."+name+".zone", f("default_zone"))
		}
	}
	if len(missing) > 0 {
		for _, name := range slices.Sorted(maps.Keys(r.zones)) {
			r.refuse(f("node", name, "zone"), true, "nodes %s have no zone and there is no default_zone, so the e2e runner emulates no latency; "+
				"cometlab takes zones only for every node (--lenient runs without zones, as the runner would)", strings.Join(missing, ", "))
		}
		for name := range r.m.Nodes {
			r.node(name, func(n *ManifestNode) { n.Zone = "" })
		}
		return
	}
	r.m.Zones = &ManifestZones{Matrix: "aws"}
	for _, name := range slices.Sorted(maps.Keys(r.zones)) {
		r.from("zones", f("node", name, "zone"))
		break
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// finish turns the refusals into errors or, under --lenient, the lenient
// ones into warnings, and gives the manifest its positions.
func (r *e2eReader) finish() (Manifest, []string, error) {
	var errs []*Error
	var warnings []*Error
	for _, rf := range r.refusals {
		e := &Error{File: r.file, Field: displayPath(rf.path), Msg: rf.msg}
		if p := r.pos[strings.Join(rf.path, ".")]; len(p) > 0 {
			e.Line, e.Column = p[0].line, p[0].column
		}
		switch {
		case rf.lenient && r.lenient:
			e.Msg += " (ignored: --lenient)"
			warnings = append(warnings, e)
		case rf.lenient:
			e.Msg += " (--lenient takes the file without it)"
			errs = append(errs, e)
		default:
			errs = append(errs, e)
		}
	}
	var out []string
	if w := joinSorted(warnings); w != nil {
		out = strings.Split(w.Error(), "\n")
	}
	if err := joinSorted(errs); err != nil {
		return Manifest{}, out, err
	}
	r.m.file = r.file
	r.m.pos = map[string][]position{}
	for ckey, ekey := range r.cpos {
		if p := r.pos[ekey]; len(p) > 0 {
			r.m.pos[ckey] = p[:1]
		}
	}
	r.m.source = "the CometBFT e2e manifest " + filepath.Base(r.file)
	r.m.warnings = out
	return r.m, out, nil
}
