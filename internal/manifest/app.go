package manifest

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/cometlab/cometlab/internal/cometbft"
)

// The apps a manifest can name.
const (
	// AppKVStore is CometBFT's built-in key-value store ABCI application.
	AppKVStore = cometbft.AppKVStore
	// AppE2E is CometBFT's e2e app node, the app CometBFT's own QA runs;
	// its settings go in the [app] table.
	AppE2E = cometbft.AppE2E
	// AppExternal is the user's own ABCI app: an [app] table with the
	// command that starts it and how CometBFT talks to it.
	AppExternal = cometbft.AppExternal
)

// External app keys of the [app] table.
const (
	appCommandKey = "command" // the app's command line, with placeholders
	appABCIKey    = "abci"    // "socket" (default) or "grpc"
)

// appKindKey is the [app] table's key naming the app.
const appKindKey = "kind"

// appKind returns the app the manifest names and its settings (the [app]
// table without "kind"), as written: app = "e2e", or an [app] table whose
// kind defaults to "kvstore".
func appOf(app any) (kind string, settings map[string]any, ok bool) {
	switch a := app.(type) {
	case nil:
		return AppKVStore, nil, true
	case string:
		return a, nil, true
	case map[string]any:
		kind := AppKVStore
		if _, has := a[appCommandKey]; has {
			kind = AppExternal
		}
		if k, has := a[appKindKey]; has {
			s, isString := k.(string)
			if !isString {
				return "", nil, false
			}
			kind = s
		}
		settings := maps.Clone(a)
		delete(settings, appKindKey)
		return kind, settings, true
	}
	return "", nil, false
}

// appValue is the manifest's app value for kind and settings: the bare
// name when there are no settings, else a table with kind.
func appValue(kind string, settings map[string]any) any {
	if len(settings) == 0 {
		return kind
	}
	t := maps.Clone(settings)
	t[appKindKey] = kind
	return t
}

// setApp sets the app's kind (key "") or one of its settings, keeping the
// rest; v is typed as TOML would type it.
func (m *Manifest) setApp(key, v string) error {
	kind, settings, ok := appOf(m.App)
	if !ok {
		return fmt.Errorf("app: must be a name (\"kvstore\", \"e2e\") or an [app] table")
	}
	if key == "" {
		m.App = appValue(v, settings)
		return nil
	}
	settings = maps.Clone(settings)
	if settings == nil {
		settings = map[string]any{}
	}
	if t, ok := inlineTable(v); ok {
		settings[key] = t // lanes = {hi = 9, lo = 1}
	} else {
		settings[key] = configValue(v)
	}
	m.App = appValue(kind, settings)
	return nil
}

// resolveApp checks the app and its settings against every node's release
// and returns the kind and the resolved settings: the e2e app gets
// vote_extensions_enable_height = 1 when not set and every node's release
// has vote extensions (CometBFT's QA runs it with extensions on).
func (m *Manifest) resolveApp(ps *problems, nodes []Node, binary string) (string, map[string]any) {
	kind, settings, ok := appOf(m.App)
	if !ok {
		ps.add(f("app"), "must be an app name (%q, %q or %q) or an [app] table with kind", AppKVStore, AppE2E, AppSDK)
		return "", nil
	}
	field := f("app")
	if _, isTable := m.App.(map[string]any); isTable {
		field = f("app", appKindKey)
	}
	switch kind {
	case AppKVStore:
		for _, k := range sortedKeys(settings) {
			ps.add(f("app", k), "app settings are for the e2e app (kind = %q); the kvstore takes none", AppE2E)
		}
		return kind, nil
	case AppExternal:
		return kind, resolveExternal(ps, settings)
	case AppSDK:
		return kind, m.resolveSDKApp(ps, settings, binary)
	case AppE2E:
	default:
		ps.add(field, "unsupported app %q (supported: %q, %q, %q, or an [app] table with command)", kind, AppKVStore, AppE2E, AppSDK)
		return "", nil
	}
	if binary != "" {
		ps.add(field, "the e2e app is built from a CometBFT release: set cometbft_version, not cometbft_binary")
		return kind, nil
	}
	var versions []string
	for _, n := range nodes {
		if n.Version != "" && !slices.Contains(versions, n.Version) {
			versions = append(versions, n.Version)
		}
	}
	sort.Strings(versions)
	for _, k := range sortedKeys(settings) {
		if msg := appLanesProblem(k, settings[k]); msg != "" {
			ps.add(f("app", k), "%s", msg)
			continue
		}
		var msgs []string
		for _, v := range versions {
			if msg := cometbft.E2EAppKeyProblem(v, k); msg != "" && !slices.Contains(msgs, msg) {
				msgs = append(msgs, msg)
			}
		}
		if len(msgs) > 0 {
			ps.add(f("app", k), "%s", strings.Join(msgs, "; "))
		}
	}
	out := maps.Clone(settings)
	if out == nil {
		out = map[string]any{}
	}
	if _, set := out["vote_extensions_enable_height"]; !set && len(versions) > 0 {
		all := true
		for _, v := range versions {
			all = all && cometbft.HasVoteExtensions(v)
		}
		if all {
			out["vote_extensions_enable_height"] = int64(1)
		}
	}
	return kind, out
}

// resolveExternal checks an external app's settings: command, a
// non-empty list of strings, and abci, "socket" (the default) or "grpc".
func resolveExternal(ps *problems, settings map[string]any) map[string]any {
	out := map[string]any{appABCIKey: "socket"}
	for _, k := range sortedKeys(settings) {
		v := settings[k]
		switch k {
		case appCommandKey:
			list, _ := v.([]any)
			var args []any
			for _, a := range list {
				if s, ok := a.(string); ok && s != "" {
					args = append(args, s)
				}
			}
			if len(list) == 0 || len(args) != len(list) {
				ps.add(f("app", k), "must be a non-empty list of non-empty strings, e.g. [\"./myappd\", \"start\", \"--address\", \"{addr}\"]")
				continue
			}
			out[k] = args
		case appABCIKey:
			if v != "socket" && v != "grpc" {
				ps.add(f("app", k), "must be \"socket\" or \"grpc\", got %v", v)
				continue
			}
			out[k] = v
		default:
			ps.add(f("app", k), "unknown key for an external app (it takes command and abci)")
		}
	}
	if _, ok := settings[appCommandKey]; !ok {
		ps.add(f("app"), "an external app needs command")
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
