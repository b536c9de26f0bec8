package experiment

import (
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
)

// gridCell is one cell of a sweep grid before it runs: its id, its
// parameters and its resolved manifest.
type gridCell struct {
	id       string
	params   map[string]string
	manifest manifest.Resolved
}

// CanonicalParam checks a swept setting's key and returns its canonical
// form: "validators", "cometbft_version", "log_level", "load.size",
// "load.duration", "load.pacing", "load.target", "load.drain_timeout",
// "load.late_threshold" (the load keys also without "load."), or a
// config.toml path ("mempool.size", also written "config.mempool.size").
// c and r are swept with their own flags, not here.
func CanonicalParam(key string) (string, error) {
	switch key {
	case "validators", "cometbft_version", "log_level":
		return key, nil
	case "c", "r", "connections", "rate", "load.connections", "load.rate":
		return "", fmt.Errorf("%s: sweep connections and rates with --connections and --rates", key)
	case "size", "duration", "pacing", "target", "drain_timeout", "late_threshold":
		return "load." + key, nil
	case "load.size", "load.duration", "load.pacing", "load.target", "load.drain_timeout", "load.late_threshold":
		return key, nil
	}
	path := strings.TrimPrefix(key, "config.")
	if !strings.Contains(path, ".") || strings.HasPrefix(key, "load.") || strings.Contains(path, "..") ||
		strings.HasPrefix(path, ".") || strings.HasSuffix(path, ".") {
		return "", fmt.Errorf("%s: not a manifest key or a config.toml path (section.key)", key)
	}
	return path, nil
}

// ParseSetFlag parses one --set value, KEY=V1,V2,….
func ParseSetFlag(s string) (results.SweepParam, error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" || v == "" {
		return results.SweepParam{}, fmt.Errorf("--set %q: want KEY=VALUE[,VALUE…]", s)
	}
	key, err := CanonicalParam(strings.TrimSpace(k))
	if err != nil {
		return results.SweepParam{}, fmt.Errorf("--set %w", err)
	}
	p := results.SweepParam{Key: key}
	for _, x := range strings.Split(v, ",") {
		if x = strings.TrimSpace(x); x == "" {
			return results.SweepParam{}, fmt.Errorf("--set %q: empty value", s)
		}
		p.Values = append(p.Values, x)
	}
	return p, nil
}

// cellID is a cell's stable, readable id: "c2-r400", then "-KEY_VALUE"
// for each other parameter in grid order, characters other than letters,
// digits, '.' and '_' replaced by '_'.
func cellID(c int, r float64, params []results.SweepParam, values map[string]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "c%d-r%s", c, strconv.FormatFloat(r, 'f', -1, 64))
	for _, p := range params {
		b.WriteString("-" + idSafe(p.Key) + "_" + idSafe(values[p.Key]))
	}
	return b.String()
}

func idSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_':
			return r
		}
		return '_'
	}, s)
}

// expandGrid returns the grid's cells (once per id, without repeats) in run
// order: each combination of params in the order given, then r, then c.
// Each cell's manifest is base with the cell's settings applied.
func expandGrid(base manifest.Manifest, conns []int, rates []float64, params []results.SweepParam) ([]gridCell, error) {
	var cells []gridCell
	var errs []error
	var walk func(i int, m manifest.Manifest, values map[string]string)
	walk = func(i int, m manifest.Manifest, values map[string]string) {
		if i < len(params) {
			for _, v := range params[i].Values {
				mm := m
				if err := applyParam(&mm, params[i].Key, v); err != nil {
					errs = append(errs, err)
					continue
				}
				vv := maps.Clone(values)
				vv[params[i].Key] = v
				walk(i+1, mm, vv)
			}
			return
		}
		for _, r := range rates {
			for _, c := range conns {
				mm := m
				if err := mm.Apply(manifest.Overrides{Connections: &c, Rate: &r}); err != nil {
					errs = append(errs, err)
					continue
				}
				res, err := mm.Resolve()
				if err != nil {
					errs = append(errs, fmt.Errorf("cell %s: %w", cellID(c, r, params, values), err))
					continue
				}
				p := maps.Clone(values)
				p["c"] = strconv.Itoa(c)
				p["r"] = strconv.FormatFloat(r, 'f', -1, 64)
				cells = append(cells, gridCell{id: cellID(c, r, params, values), params: p, manifest: res})
			}
		}
	}
	walk(0, base, map[string]string{})
	if len(errs) > 0 {
		return nil, joinUnique(errs)
	}
	return cells, nil
}

// applyParam sets one swept setting on m (a copy: maps are cloned before
// they change).
func applyParam(m *manifest.Manifest, key, val string) error {
	bad := func(err error) error { return fmt.Errorf("--set %s=%s: %w", key, val, err) }
	var o manifest.Overrides
	switch key {
	case "validators":
		n, err := strconv.Atoi(val)
		if err != nil {
			return bad(err)
		}
		o.Validators = &n
	case "cometbft_version":
		o.CometBFTVersion = &val
	case "log_level":
		m.LogLevel = val
		return nil
	case "load.size":
		n, err := strconv.Atoi(val)
		if err != nil {
			return bad(err)
		}
		o.Size = &n
	case "load.duration":
		d, err := time.ParseDuration(val)
		if err != nil {
			return bad(err)
		}
		o.Duration = &d
	case "load.pacing":
		o.Pacing = &val
	case "load.target":
		o.Target = &val
	case "load.drain_timeout":
		m.Load.DrainTimeout = val
		return nil
	case "load.late_threshold":
		m.Load.LateThreshold = val
		return nil
	default:
		m.Config = withConfig(m.Config, key, configValue(val))
		return nil
	}
	if err := m.Apply(o); err != nil {
		return bad(err)
	}
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

// testnetKey identifies the testnet a cell runs on: its resolved manifest
// without the load. Cells with the same key can share a testnet.
func testnetKey(r manifest.Resolved) string {
	r.Load = manifest.Workload{}
	b, err := manifest.Encode(r)
	if err != nil {
		return fmt.Sprint(r)
	}
	return string(b)
}

// testnetInfo describes r for reports.
func testnetInfo(r manifest.Resolved) results.TestnetInfo {
	ti := results.TestnetInfo{Name: r.Name, CometBFTVersion: r.CometBFTVersion, App: r.App, Nodes: len(r.Nodes),
		TxSize: r.Load.Size, Pacing: r.Load.Pacing}
	if ti.CometBFTVersion == "" {
		ti.CometBFTVersion = "binary " + r.CometBFTBinary
	}
	for _, n := range r.Nodes {
		if n.Mode == manifest.ModeValidator {
			ti.Validators++
		}
	}
	return ti
}

// joinUnique joins errors, dropping repeats of the same message (a bad
// value repeated in every cell).
func joinUnique(errs []error) error {
	seen := map[string]bool{}
	var msgs []string
	for _, e := range errs {
		if !seen[e.Error()] {
			seen[e.Error()] = true
			msgs = append(msgs, e.Error())
		}
	}
	return fmt.Errorf("%s", strings.Join(msgs, "\n"))
}
