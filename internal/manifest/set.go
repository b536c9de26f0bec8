package manifest

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// setter returns how [Manifest.Set] sets the named setting key (in
// canonical form) from its text, or nil when key is not one. This switch is
// the one list of the settings a sweep varies by name (--set KEY=V1,V2);
// load.connections and load.rate are not among them: [Overrides] sets them
// (a sweep's own --connections and --rates). Values that [Overrides] checks
// go through [Manifest.Apply], so errors about them name its flag. It is
// a table, one case a setting, and stays one function for it: the list
// reads whole.
func setter(key string) func(m *Manifest, v string) error {
	apply := func(parse func(v string) (Overrides, error)) func(m *Manifest, v string) error {
		return func(m *Manifest, v string) error {
			o, err := parse(v)
			if err != nil {
				return err
			}
			return m.Apply(o)
		}
	}
	switch key {
	case "validators":
		return apply(func(v string) (Overrides, error) { n, err := strconv.Atoi(v); return Overrides{Validators: &n}, err })
	case "cometbft_version":
		return apply(func(v string) (Overrides, error) { return Overrides{CometBFTVersion: &v}, nil })
	case "cometbft_source":
		// The flag asks for a tree: the file's release and binary give way.
		return func(m *Manifest, v string) error {
			m.CometBFTSource, m.CometBFTVersion, m.CometBFTBinary = v, "", ""
			return nil
		}
	case "time_scale":
		return apply(func(v string) (Overrides, error) { return Overrides{TimeScale: &v}, nil })
	case "log_level":
		return func(m *Manifest, v string) error { m.LogLevel = v; return nil }
	case "links":
		return func(m *Manifest, v string) error { m.Links = v; return nil }
	case "topology":
		return func(m *Manifest, v string) error { m.Topology = v; return nil }
	case "rotate.concurrency":
		return setParsed(key, "an integer", strconv.Atoi, func(m *Manifest) *int { return &m.Rotate.Concurrency })
	case "absent":
		return func(m *Manifest, v string) error { return m.setAbsent(v) }
	case "evidence":
		return setParsed(key, "an integer", strconv.Atoi, func(m *Manifest) *int { return &m.Evidence })
	case "partition.split", "partition.at", "partition.duration":
		return func(m *Manifest, v string) error {
			m.setPartition(strings.TrimPrefix(key, "partition."), v)
			return nil
		}
	case "rotate.dwell":
		return func(m *Manifest, v string) error { m.Rotate.Dwell = v; return nil }
	case "load.size":
		return apply(func(v string) (Overrides, error) { n, err := strconv.Atoi(v); return Overrides{Size: &n}, err })
	case "load.duration":
		return apply(func(v string) (Overrides, error) {
			d, err := time.ParseDuration(v)
			return Overrides{Duration: &d}, err
		})
	case "load.pacing":
		return apply(func(v string) (Overrides, error) { return Overrides{Pacing: &v}, nil })
	case "load.target":
		return apply(func(v string) (Overrides, error) { return Overrides{Target: &v}, nil })
	case "app":
		return func(m *Manifest, v string) error { return m.setApp("", v) }
	case "key_type":
		return func(m *Manifest, v string) error { m.KeyType = v; return nil }
	case "dog":
		return setParsed(key, "true or false", strconv.ParseBool, func(m *Manifest) *bool { return &m.DOG })
	case "dog_target_redundancy":
		return setParsed(key, "a number", func(v string) (float64, error) { return strconv.ParseFloat(v, 64) },
			func(m *Manifest) *float64 { return &m.DOGTargetRedundancy })
	case "dog_adjust_interval":
		return func(m *Manifest, v string) error { m.DOGAdjustInterval = v; return nil }
	case "pbts_enable_height":
		return setParsed(key, "an integer", func(v string) (int64, error) { return strconv.ParseInt(v, 10, 64) },
			func(m *Manifest) *int64 { return &m.PBTSEnableHeight })
	case "libp2p":
		return setParsed(key, "true or false", strconv.ParseBool, func(m *Manifest) *bool { return &m.LibP2P })
	case "mempool":
		return func(m *Manifest, v string) error { m.Mempool = v; return nil }
	case "adaptive_sync":
		return setParsed(key, "true or false", strconv.ParseBool, func(m *Manifest) *bool { return &m.AdaptiveSync })
	case "load.lane_weights":
		return func(m *Manifest, v string) error {
			ws, err := parseLaneWeights(v)
			if err != nil {
				return err
			}
			m.Load.LaneWeights = ws
			return nil
		}
	case "load.drain_timeout":
		return func(m *Manifest, v string) error { m.Load.DrainTimeout = v; return nil }
	case "load.late_threshold":
		return func(m *Manifest, v string) error { m.Load.LateThreshold = v; return nil }
	}
	return nil
}

// setParsed sets the field of key to its text parsed by parse; a text
// parse refuses is an error saying key wants what.
func setParsed[T any](key, what string, parse func(string) (T, error), field func(m *Manifest) *T) func(m *Manifest, v string) error {
	return func(m *Manifest, v string) error {
		x, err := parse(v)
		if err != nil {
			return fmt.Errorf("%s: want %s, got %q", key, what, v)
		}
		*field(m) = x
		return nil
	}
}

// SettableKey checks that [Manifest.Set] takes key and returns its
// canonical form: "validators", "cometbft_version", "cometbft_source"
// (a tree's path: the file's release and binary give way), "time_scale",
// "log_level", "links", "topology",
// "absent" (a share "25%", "none", or names joined by "+"), "evidence",
// "key_type", "pbts_enable_height", "dog", "dog_target_redundancy",
// "dog_adjust_interval", "libp2p", "mempool", "adaptive_sync",
// "rotate.concurrency", "rotate.dwell", "partition.split",
// "partition.at", "partition.duration", "app",
// an e2e app setting ("app.vote_extension_size"),
// "load.size", "load.duration", "load.pacing", "load.target",
// "load.drain_timeout", "load.late_threshold", "load.lane_weights"
// (id:weight pairs joined by "/", or an inline table; the [load] keys also
// without "load."), a perturbation's key ("perturb.validator03.down":
// action, at, height, down, every, count), or a config.toml path
// ("mempool.size", also written "config.mempool.size"; a top-level key
// only with the prefix, "config.db_backend").
func SettableKey(key string) (string, error) {
	if strings.HasPrefix(key, "perturb.") {
		if !perturbKey.MatchString(key) {
			return "", fmt.Errorf("%s: not a perturbation key (perturb.NODE.action, at, height, down, every or count)", key)
		}
		return key, nil
	}
	for _, k := range []string{key, "load." + key} {
		if setter(k) != nil {
			return k, nil
		}
	}
	if name, ok := strings.CutPrefix(key, "app."); ok {
		if name == "" || name == appKindKey || strings.Contains(name, ".") {
			return "", fmt.Errorf("%s: not an app setting (app.KEY, a key of the e2e app's app.toml)", key)
		}
		return key, nil
	}
	path, explicit := strings.CutPrefix(key, "config.")
	// A top-level config.toml key (db_backend) needs the config. prefix,
	// so that a misspelt manifest key is not taken for one.
	if (!explicit && !strings.Contains(path, ".")) || path == "" || strings.HasPrefix(key, "load.") || strings.Contains(path, "..") ||
		strings.HasPrefix(path, ".") || strings.HasSuffix(path, ".") {
		return "", fmt.Errorf("%s: not a manifest key or a config.toml path (section.key, or config.KEY for a top-level key)", key)
	}
	if !strings.Contains(path, ".") {
		return "config." + path, nil // the canonical form keeps the prefix, so it stays settable
	}
	return path, nil
}

// Set sets one setting of m, named as [SettableKey] takes it, from its text:
// a number, a duration or a string as the key wants; a config.toml path's
// value is typed as TOML would type it (see configValue). Maps are cloned
// before they change, so a copy of m made before Set is unaffected. On
// error m is unchanged.
func (m *Manifest) Set(key, value string) error {
	k, err := SettableKey(key)
	if err != nil {
		return err
	}
	if set := setter(k); set != nil {
		return set(m, value)
	}
	if p := perturbKey.FindStringSubmatch(k); p != nil {
		return m.setPerturb(p[1], p[2], value)
	}
	if name, ok := strings.CutPrefix(k, "app."); ok {
		return m.setApp(name, value)
	}
	m.Config = withConfig(m.Config, strings.TrimPrefix(k, "config."), configValue(value))
	return nil
}

// configValue types a config value as TOML would: an integer, a float, a
// boolean, or else a string ("1s").
func configValue(s string) any {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f
	}
	if b, err := strconv.ParseBool(s); err == nil {
		return b
	}
	return s
}

// withConfig returns a deep copy of the [config] table cfg with the
// config.toml path set to v as a quoted dotted key, after removing any
// other spelling of the same path (nested tables, partly dotted keys).
func withConfig(cfg map[string]any, path string, v any) map[string]any {
	out := cloneTable(cfg)
	var drop func(prefix string, t map[string]any)
	drop = func(prefix string, t map[string]any) {
		for k, x := range t {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			if p == path {
				delete(t, k)
				continue
			}
			if sub, ok := x.(map[string]any); ok && strings.HasPrefix(path, p+".") {
				drop(p, sub)
			}
		}
	}
	drop("", out)
	out[path] = v
	return out
}

func cloneTable(t map[string]any) map[string]any {
	out := make(map[string]any, len(t)+1)
	for k, v := range t {
		if sub, ok := v.(map[string]any); ok {
			v = cloneTable(sub)
		}
		out[k] = v
	}
	return out
}

// SweepKey checks a swept setting's key and returns its canonical form
// (SettableKey). Connections and rates are swept as the grid's own axes
// (c and r), not as settings.
func SweepKey(key string) (string, error) {
	switch key {
	case "c", "r", "connections", "rate", "load.connections", "load.rate":
		return "", fmt.Errorf("%s: sweep connections and rates with --connections and --rates", key)
	}
	return SettableKey(key)
}
