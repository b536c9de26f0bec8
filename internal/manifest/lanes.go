package manifest

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/payload"
	"github.com/pelletier/go-toml/v2"
)

// DefaultLanes are the mempool lanes of v2.0's e2e app when its [app]
// table sets none (test/e2e/app DefaultLanes): lane id → priority.
var DefaultLanes = map[string]int64{"100": 100, "50": 50, "10": 10, "5": 5, "1": 1}

// lanesKey and noLanesKey are the e2e app's app.toml keys of its lanes.
const (
	lanesKey   = "lanes"
	noLanesKey = "no_lanes"
)

// appLanesProblem checks an e2e app setting of [app] that configures
// mempool lanes: lanes, a table of lane id (1 to payload.MaxLaneLen
// bytes) → priority (1 to 2³²−1), and no_lanes, a boolean; "" when v is
// right or key is another.
func appLanesProblem(key string, v any) string {
	switch key {
	case lanesKey:
		t, ok := v.(map[string]any)
		if !ok || len(t) == 0 {
			return "must be a table of lane id → priority, e.g. {\"high\" = 10, \"low\" = 1}"
		}
		for _, id := range slices.Sorted(maps.Keys(t)) {
			p, isInt := t[id].(int64)
			switch {
			case id == "" || len(id) > payload.MaxLaneLen:
				return fmt.Sprintf("lane id %q: want 1 to %d bytes", id, payload.MaxLaneLen)
			case !isInt || p < 1 || p > 1<<32-1:
				return fmt.Sprintf("lane %q: priority %v, want an integer in [1, 4294967295]", id, t[id])
			}
		}
	case noLanesKey:
		if _, ok := v.(bool); !ok {
			return "must be a boolean"
		}
	}
	return ""
}

// AppLanes returns the mempool lanes of the e2e app settings app (lane id
// → priority): its lanes table, else DefaultLanes; nil when no_lanes is
// true.
func AppLanes(app map[string]any) map[string]int64 {
	if b, _ := app[noLanesKey].(bool); b {
		return nil
	}
	t, ok := app[lanesKey].(map[string]any)
	if !ok {
		return maps.Clone(DefaultLanes)
	}
	out := make(map[string]int64, len(t))
	for id, p := range t {
		out[id], _ = p.(int64)
	}
	return out
}

// resolveLanes checks [load] lane_weights and gives the load its lanes:
// the e2e app of a release whose app has lanes (v2.0) on every node, with
// lanes on, each weight's lane one of the app's, loadtime payloads from
// the control host of a size that holds the longest lane id.
func (m *Manifest) resolveLanes(ps *problems, r *Resolved) {
	ws := m.Load.LaneWeights
	if len(ws) == 0 {
		return
	}
	field := f("load", "lane_weights")
	before := len(ps.errs)
	if r.App != AppE2E {
		ps.add(field, "mempool lanes are the e2e app's (app = %q, a v2.0 release): the %s app names no lane", AppE2E, appOrDefault(r.App))
		return
	}
	for _, v := range nodeVersions(r) {
		if !slices.Contains(cometbft.E2EAppKeys(v), lanesKey) {
			ps.add(field, "the e2e app of %s has no mempool lanes (v2.0 and later)", v)
		}
	}
	lanes := AppLanes(r.AppConfig)
	if lanes == nil {
		ps.add(field, "[app] no_lanes = true turns the app's lanes off")
		return
	}
	var sum uint64
	longest := 0
	var out []payload.LaneWeight
	for _, id := range slices.Sorted(maps.Keys(ws)) {
		w := ws[id]
		if _, ok := lanes[id]; !ok {
			ps.add(field, "no lane %q: the app's lanes are %s", id, laneList(lanes))
			continue
		}
		sum += w
		longest = max(longest, len(id))
		out = append(out, payload.LaneWeight{ID: id, Weight: w})
	}
	if sum == 0 && len(ps.errs) == before {
		ps.add(field, "every weight is 0: at least one lane must get transactions")
	}
	switch {
	case r.Load.TxsFile != "":
		ps.add(field, "only with loadtime payloads: the user's own transactions (load.txs) carry no lane")
	case len(m.Load.Hosts) > 0:
		ps.add(field, "not with load hosts: the load hosts' generators do not pick lanes (send from the control host)")
	case r.Load.Size < payload.MinSizeWithLane(longest):
		ps.add(f("load", "size"), "%d bytes do not hold a payload with a lane id of %d bytes: at least %d", r.Load.Size, longest, payload.MinSizeWithLane(longest))
	}
	if len(ps.errs) == before {
		r.Load.Lanes = out
	}
}

// nodeVersions returns the releases of r's nodes, each once, sorted.
func nodeVersions(r *Resolved) []string {
	var vs []string
	for _, n := range r.Nodes {
		v := n.Version
		if v == "" {
			v = r.CometBFTVersion
		}
		if v != "" && !slices.Contains(vs, v) {
			vs = append(vs, v)
		}
	}
	slices.Sort(vs)
	return vs
}

// laneList writes lanes as "100 (priority 100), 1 (priority 1)", highest
// priority first.
func laneList(lanes map[string]int64) string {
	ids := slices.Sorted(maps.Keys(lanes))
	slices.SortStableFunc(ids, func(a, b string) int { return int(lanes[b] - lanes[a]) })
	s := ""
	for i, id := range ids {
		if i > 0 {
			s += ", "
		}
		s += strconv.Quote(id) + " (priority " + strconv.FormatInt(lanes[id], 10) + ")"
	}
	return s
}

func appOrDefault(app string) string {
	if app == "" {
		return AppKVStore
	}
	return app
}

// inlineTable reads v as a TOML inline table ("{hi = 9, lo = 1}"); false
// when it is not one.
func inlineTable(v string) (map[string]any, bool) {
	if !strings.HasPrefix(strings.TrimSpace(v), "{") {
		return nil, false
	}
	var doc struct {
		T map[string]any `toml:"t"`
	}
	if err := toml.Unmarshal([]byte("t = "+v), &doc); err != nil || doc.T == nil {
		return nil, false
	}
	return doc.T, true
}

// parseLaneWeights reads [load] lane_weights from a flag: a TOML inline
// table ({"100" = 1, "1" = 9}) or id:weight pairs joined by "/"
// (100:1/1:9, which a sweep's comma-separated values leave whole).
func parseLaneWeights(v string) (map[string]uint64, error) {
	bad := fmt.Errorf("load.lane_weights: want lane id:weight pairs joined by \"/\" (100:1/1:9) or a TOML inline table, got %q", v)
	ws := map[string]uint64{}
	if t, ok := inlineTable(v); ok {
		for id, x := range t {
			n, isInt := x.(int64)
			if !isInt || n < 0 {
				return nil, bad
			}
			ws[id] = uint64(n)
		}
		return ws, nil
	}
	for _, pair := range strings.Split(v, "/") {
		id, w, ok := strings.Cut(pair, ":")
		n, err := strconv.ParseUint(w, 10, 64)
		if !ok || id == "" || err != nil {
			return nil, bad
		}
		ws[id] = n
	}
	return ws, nil
}
