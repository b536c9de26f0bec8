package compare

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
)

// NodeVersions summarises the CometBFT versions of a run's nodes: the
// version when every node runs the same one ("v0.40.0"), each version
// with its count for a mixed network ("v0.38.26 ×2, v0.40.0 ×2"), and
// run.json's cometbft_version when it lists no nodes.
func NodeVersions(run results.Run) string {
	count := map[string]int{}
	for _, n := range run.Nodes {
		v := n.Version
		if v == "" {
			v = "?"
		}
		count[v]++
	}
	switch len(count) {
	case 0:
		return run.CometBFTVersion
	case 1:
		for v := range count {
			return v
		}
	}
	var parts []string
	for _, v := range slices.Sorted(maps.Keys(count)) {
		parts = append(parts, fmt.Sprintf("%s ×%d", v, count[v]))
	}
	return strings.Join(parts, ", ")
}

// LoadText describes a load as loadtime names it: "c=1 r=200 s=1024
// T=60s even".
func LoadText(l results.Load) string {
	if l.Signed != "" { // an SDK chain's sends: their size is the chain's, not the load's
		return fmt.Sprintf("c=%d r=%s T=%ss %s, %s", l.Connections, strconv.FormatFloat(l.Rate, 'g', -1, 64),
			strconv.FormatFloat(l.DurationS, 'g', -1, 64), l.Pacing, l.Signed)
	}
	return fmt.Sprintf("c=%d r=%s s=%d T=%ss %s", l.Connections, strconv.FormatFloat(l.Rate, 'g', -1, 64), l.Size,
		strconv.FormatFloat(l.DurationS, 'g', -1, 64), l.Pacing)
}

// Settings keys every comparison shows, differing or not.
const (
	SettingVersions = "run.cometbft_versions"
	SettingLoad     = "run.load"
	SettingStatus   = "run.status"
)

// RunSettings describes a run from its run.json as flat settings (see
// Run.Settings): node versions, what the target reported, app, the
// validators' key type, load, nodes, host and cometlab version.
func RunSettings(run results.Run) map[string]string {
	modes := map[string]int{}
	for _, n := range run.Nodes {
		modes[n.Mode]++
	}
	var ms []string
	for _, m := range slices.Sorted(maps.Keys(modes)) {
		ms = append(ms, fmt.Sprintf("%d %s", modes[m], m))
	}
	s := map[string]string{
		SettingVersions:         NodeVersions(run),
		"run.cometbft_reported": run.CometBFTVersion,
		"run.app":               run.App,
		"run.key_type":          cmp.Or(run.KeyType, "ed25519"), // runs without one were ed25519
		SettingLoad:             LoadText(run.Load),
		"run.late_threshold_s":  strconv.FormatFloat(run.Load.LateThreshold, 'g', -1, 64),
		"run.nodes":             strings.Join(ms, ", "),
		"run.target":            run.Target,
		SettingStatus:           run.Status,
		"run.cometlab_version":  run.CometlabVersion,
		"run.host.cpus":         strconv.Itoa(run.Host.CPUs),
		"run.host.os":           strings.TrimSpace(run.Host.OS + "/" + run.Host.Arch + " " + run.Host.Kernel),
		"run.host.mem_gib":      strconv.FormatFloat(float64(run.Host.MemBytes)/(1<<30), 'f', 1, 64),
		"run.host.go":           run.Host.Go,
		"run.host.hostname":     run.Host.Hostname,
	}
	if run.LibP2P {
		s["run.p2p"] = "go-libp2p" // absent: CometBFT's own p2p
	}
	for k, v := range s {
		if v == "" {
			delete(s, k)
		}
	}
	return s
}

// FlattenTOML flattens a TOML document into dotted keys with their values
// formatted as TOML writes them, under prefix ("manifest" gives
// "manifest.load.rate"). Arrays of tables are indexed ("x.0.y").
func FlattenTOML(prefix string, data []byte) (map[string]string, error) {
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	out := map[string]string{}
	flatten(prefix, doc, out)
	return out, nil
}

// FlattenJSON is FlattenTOML for a JSON document.
func FlattenJSON(prefix string, data []byte) (map[string]string, error) {
	var doc any
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(&doc); err != nil {
		return nil, err
	}
	out := map[string]string{}
	flatten(prefix, doc, out)
	return out, nil
}

func flatten(key string, v any, out map[string]string) {
	join := func(k string) string {
		if key == "" {
			return k
		}
		return key + "." + k
	}
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			out[key] = "{}"
		}
		for k, e := range x {
			flatten(join(k), e, out)
		}
	case []any:
		simple := true
		for _, e := range x {
			switch e.(type) {
			case map[string]any, []any:
				simple = false
			}
		}
		if simple {
			parts := make([]string, len(x))
			for i, e := range x {
				parts[i] = scalarText(e)
			}
			out[key] = "[" + strings.Join(parts, ", ") + "]"
			return
		}
		for i, e := range x {
			flatten(join(strconv.Itoa(i)), e, out)
		}
	default:
		out[key] = scalarText(x)
	}
}

func scalarText(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case nil:
		return "null"
	}
	return fmt.Sprint(v)
}

// SettingDiff is one setting that differs between the runs of a
// comparison (or is always shown: versions, load, status).
type SettingDiff struct {
	Key string `json:"key"`
	// Values holds one entry per side, baseline first: the value, the
	// distinct values of the side's runs joined with " | " when its
	// repeats differ, and "(none)" for runs without the key.
	Values []string `json:"values"`
}

// settingDiffs returns the settings that differ between sides or between
// the runs of a side, and the always-shown ones, sorted by key with the
// run.* keys first.
func settingDiffs(sides []Side) []SettingDiff {
	keys := map[string]bool{}
	for _, s := range sides {
		for _, r := range s.Runs {
			for k := range r.Settings {
				keys[k] = true
			}
		}
	}
	always := map[string]bool{SettingVersions: true, SettingLoad: true, SettingStatus: true}
	var out []SettingDiff
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		d := SettingDiff{Key: k}
		differs := false
		for _, s := range sides {
			var vals []string
			for _, r := range s.Runs {
				v, ok := r.Settings[k]
				if !ok {
					v = "(none)"
				}
				if !slices.Contains(vals, v) {
					vals = append(vals, v)
				}
			}
			differs = differs || len(vals) > 1
			d.Values = append(d.Values, strings.Join(vals, " | "))
		}
		for _, v := range d.Values[1:] {
			differs = differs || v != d.Values[0]
		}
		if differs || always[k] {
			out = append(out, d)
		}
	}
	rank := func(k string) int {
		switch {
		case always[k]:
			return 0
		case strings.HasPrefix(k, "run."):
			return 1
		}
		return 2
	}
	slices.SortStableFunc(out, func(a, b SettingDiff) int { return rank(a.Key) - rank(b.Key) })
	return out
}

// loadsOf returns the distinct loads of a side's runs.
func loadsOf(s Side) []results.Load {
	var out []results.Load
	for _, r := range s.Runs {
		if !slices.ContainsFunc(out, r.Run.Load.Equal) {
			out = append(out, r.Run.Load)
		}
	}
	return out
}

// incomparable says why metric m cannot be compared between base and
// cand ("" when it can): absolute counts need the same expected load,
// rates the same offered rate (c·r), block counts the same duration.
func incomparable(m analysis.Metric, base, cand Side) string {
	bl, cl := loadsOf(base), loadsOf(cand)
	differ := func(f func(results.Load) float64) (string, bool) {
		for _, b := range bl {
			for _, c := range cl {
				if f(b) != f(c) {
					return fmt.Sprintf("%s vs %s", strconv.FormatFloat(f(b), 'g', -1, 64), strconv.FormatFloat(f(c), 'g', -1, 64)), true
				}
			}
		}
		return "", false
	}
	switch m.Unit {
	case analysis.UnitTxs:
		if s, ok := differ(func(l results.Load) float64 { return float64(l.ExpectedTxs()) }); ok {
			return "the loads differ (expected txs " + s + "): counts are not comparable"
		}
	case analysis.UnitTPS:
		if s, ok := differ(func(l results.Load) float64 { return float64(l.Connections) * l.Rate }); ok {
			return "the offered rates differ (c·r = " + s + " tx/s): rates are not comparable"
		}
	case analysis.UnitBlocks:
		if s, ok := differ(func(l results.Load) float64 { return l.DurationS }); ok {
			return "the load durations differ (" + s + " s): block counts are not comparable"
		}
	}
	return ""
}

// inputWarnings lists, never silently, what makes the inputs dissimilar:
// runs that did not complete, missing files, different loads, hosts or
// cometlab versions, metrics this cometlab does not know, the same run
// on two sides.
func inputWarnings(base Side, cands []Side) []string {
	var w []string
	sides := append([]Side{base}, cands...)
	name := func(i int) string {
		if i == 0 {
			return "baseline " + strconv.Quote(base.Label)
		}
		return "candidate " + strconv.Quote(sides[i].Label)
	}
	seen := map[string]string{}
	for i, s := range sides {
		for _, r := range s.Runs {
			who := fmt.Sprintf("%s run %s", name(i), r.Dir)
			if r.Run.Status != results.StatusComplete {
				msg := fmt.Sprintf("%s is %s, not complete: its figures cover what was gathered", who, r.Run.Status)
				if len(r.Run.Errors) > 0 {
					msg += " (" + strings.Join(r.Run.Errors, "; ") + ")"
				}
				w = append(w, msg)
			}
			for _, n := range r.Notes {
				w = append(w, who+": "+n)
			}
			if n := len(r.Foreign); n > 0 {
				ids := r.Foreign
				if n > 6 {
					ids = append(slices.Clone(ids[:6]), fmt.Sprintf("… %d in all", n))
				}
				w = append(w, fmt.Sprintf("%s: summary.json has metrics this cometlab does not know (%s): shown, not judged", who, strings.Join(ids, ", ")))
			}
			if prev, ok := seen[r.Run.ID]; ok && r.Run.ID != "" && prev != name(i) {
				w = append(w, fmt.Sprintf("run %s is on both sides (%s and %s)", r.Run.ID, prev, name(i)))
			}
			seen[r.Run.ID] = name(i)
		}
		if ls := loadsOf(s); len(ls) > 1 {
			var t []string
			for _, l := range ls {
				t = append(t, LoadText(l))
			}
			w = append(w, fmt.Sprintf("the runs of the %s had different loads (%s): their mean mixes them", name(i), strings.Join(t, "; ")))
		}
	}
	for i := 1; i < len(sides); i++ {
		if a, b := loadsOf(base), loadsOf(sides[i]); !slices.EqualFunc(a, b, results.Load.Equal) {
			w = append(w, fmt.Sprintf("the load of the %s (%s) differs from the baseline's (%s): counts, rates and block counts are marked not comparable where they depend on it; latencies are compared but depend on the load too",
				name(i), LoadText(b[0]), LoadText(a[0])))
		}
	}
	for _, k := range []struct{ key, what string }{
		{"run.cometlab_version", "cometlab versions"},
		{"run.host.cpus", "hosts (CPUs)"},
		{"run.host.hostname", "hosts"},
		{"run.app", "apps"},
	} {
		vals := map[string]bool{}
		for _, s := range sides {
			for _, r := range s.Runs {
				vals[r.Settings[k.key]] = true
			}
		}
		if len(vals) > 1 {
			w = append(w, fmt.Sprintf("the runs were made with different %s (%s): see the differences", k.what, strings.Join(slices.Sorted(maps.Keys(vals)), ", ")))
		}
	}
	return w
}
