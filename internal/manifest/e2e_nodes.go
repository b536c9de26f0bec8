package manifest

import (
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/cometlab/cometlab/internal/cometbft"
)

// readValidators reads the [validators] table of voting powers.
func (r *e2eReader) readValidators(path []string, v any) {
	t, ok := r.table(path, v)
	if !ok {
		return
	}
	r.powers = map[string]int64{}
	for _, name := range slices.Sorted(maps.Keys(t)) {
		p := append(slices.Clone(path), name)
		n, ok := r.int(p, t[name])
		switch {
		case !ok:
		case n < 1:
			r.refuse(p, false, "a genesis validator needs power >= 1, got %d", n)
		default:
			r.powers[name] = n
		}
	}
}

// readValidatorUpdate reads the [validator_update.HEIGHT] tables of
// validator = power into cometlab's validator_update, which the e2e app
// makes as it does under the runner (checked by Resolve).
func (r *e2eReader) readValidatorUpdate(path []string, v any) {
	t, ok := r.table(path, v)
	if !ok {
		return
	}
	for _, h := range slices.Sorted(maps.Keys(t)) {
		hp := append(slices.Clone(path), h)
		vals, ok := r.table(hp, t[h])
		if !ok {
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(vals)) {
			p := append(slices.Clone(hp), name)
			n, ok := r.int(p, vals[name])
			if !ok {
				continue
			}
			if r.m.ValidatorUpdate == nil {
				r.m.ValidatorUpdate = map[string]map[string]int64{}
			}
			if r.m.ValidatorUpdate[h] == nil {
				r.m.ValidatorUpdate[h] = map[string]int64{}
				r.from("validator_update."+h, hp)
			}
			r.m.ValidatorUpdate[h][name] = n
			r.from("validator_update."+h+"."+name, p)
		}
	}
}

// readMode reads a node's mode: validator, full and seed are cometlab's
// own; light is refused.
func (r *e2eReader) readMode(node string, path []string, v any) {
	s, ok := r.str(path, v)
	switch {
	case !ok:
	case s == "light":
		r.refuse(path, false, "cometlab runs no light clients (a light node follows the chain through RPC, outside consensus)")
		r.node(node, func(n *ManifestNode) { n.Mode = s }) // not a validator for applyPowers
	case s == "" || s == ModeValidator || s == ModeFull || s == ModeSeed:
		r.node(node, func(n *ManifestNode) { n.Mode = s })
	default:
		r.refuse(path, false, "invalid mode %q (want validator, full, seed or light)", s)
		r.node(node, func(n *ManifestNode) { n.Mode = s })
	}
}

// imageTag finds the release in a Docker image name of the e2e node.
var imageTag = regexp.MustCompile(`:(v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?)$`)

// readVersion reads a node's version, a Docker image of the e2e node: a
// tag naming a release is the node's cometbft_version, local-version (the
// runner's own build) the testnet's; anything else is refused.
func (r *e2eReader) readVersion(node string, path []string, v any) {
	s, ok := r.str(path, v)
	if !ok || s == "" || strings.HasSuffix(s, ":local-version") {
		return
	}
	m := imageTag.FindStringSubmatch(s)
	if m == nil {
		r.refuse(path, false, "the Docker image %q names no release cometlab can build (want an image tag such as cometbft/e2e-node:v1.0.1)", s)
		return
	}
	r.node(node, func(n *ManifestNode) { n.CometBFTVersion = m[1] })
	r.from("node."+node+".cometbft_version", path)
}

// readDatabase reads a node's database, config.toml's db_backend:
// goleveldb on every release, pebbledb where the release compiles it in
// without build tags (v1.0); the others need build tags and C libraries
// cometlab's builds do not have.
func (r *e2eReader) readDatabase(node string, path []string, v any) {
	s, ok := r.str(path, v)
	switch {
	case !ok:
		return
	case s == "" || s == "goleveldb" || s == "pebbledb":
	default:
		r.refuse(path, false, "cometlab builds releases without the build tags (and C libraries) %s needs; it runs goleveldb, and pebbledb on v1.0", s)
		return
	}
	if s == "" {
		s = "goleveldb"
	}
	r.node(node, func(n *ManifestNode) {
		n.Config = maps.Clone(n.Config)
		if n.Config == nil {
			n.Config = map[string]any{}
		}
		n.Config["db_backend"] = s
	})
	r.from("node."+node+".config.db_backend", path)
}

// readPerturb reads a node's perturb list, scheduled by applyPerturbs in
// the order written.
func (r *e2eReader) readPerturb(node string, path []string, v any) {
	l, ok := r.strings(path, v)
	if !ok || len(l) == 0 {
		return
	}
	for _, p := range l {
		switch p {
		case ActionKill, ActionPause, ActionDisconnect, ActionRestart:
		case "upgrade":
			r.refuse(path, false, "an e2e upgrade starts the upgrade_version Docker image; cometlab upgrades to a release: [perturb.NODE] action upgrade with to")
			return
		default:
			r.refuse(path, false, "invalid perturbation %q (want kill, pause, disconnect, restart or upgrade)", p)
			return
		}
	}
	r.perturbs[node] = l
	r.perturbPath[node] = path
}

// readSendNoLoad reads send_no_load: such a node is not the load's target.
func (r *e2eReader) readSendNoLoad(node string, path []string, v any) {
	if b, ok := r.bool(path, v); ok && b {
		r.noLoad[node] = true
	}
}

// readMisbehaviors refuses a node's misbehaviors (v0.34).
func (r *e2eReader) readMisbehaviors(_ string, path []string, v any) {
	if t, ok := r.table(path, v); ok && len(t) > 0 {
		r.refuse(path, false, "cometlab runs no misbehaving validators")
	}
}

// chooseVersion picks the release: the default one when its e2e app takes
// every app setting of the file, else the newest proven release whose app
// does (pbts_enable_height and the v1.0 app delays need v1.0), a
// pre-release (v2.0.0-rc1) only when no release does. An e2e manifest
// names no release (the runner runs the image it built);
// --cometbft-version overrides.
func (r *e2eReader) chooseVersion() {
	fits := func(v string) bool {
		for k := range r.app {
			if cometbft.E2EAppKeyProblem(v, k) != "" {
				return false
			}
		}
		return true
	}
	if fits(DefaultCometBFTVersion) {
		r.m.CometBFTVersion = DefaultCometBFTVersion
		return
	}
	var proven []string
	for _, l := range cometbft.Lines() {
		proven = append(proven, l.Proven)
	}
	slices.SortFunc(proven, func(a, b string) int {
		if pa, pb := strings.Contains(a, "-"), strings.Contains(b, "-"); pa != pb { // releases before pre-releases
			if pa {
				return 1
			}
			return -1
		}
		if cometbft.Older(a, b) {
			return 1
		}
		if cometbft.Older(b, a) {
			return -1
		}
		return 0
	})
	for _, v := range proven {
		if fits(v) {
			r.m.CometBFTVersion = v
			return
		}
	}
}
