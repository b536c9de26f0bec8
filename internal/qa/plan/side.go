package plan

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/saturation"
)

// ManifestOf is the manifest of a resolved testnet (its manifest.toml
// read back), on which settings can be changed and resolved again.
func ManifestOf(name string, r manifest.Resolved) (manifest.Manifest, error) {
	b, err := manifest.Encode(r)
	if err != nil {
		return manifest.Manifest{}, err
	}
	return manifest.Parse(name, b)
}

// WithChanges is r with changes (KEY=VALUE, keys as Manifest.Set takes
// them, plus load.connections and load.rate) applied and resolved again.
func WithChanges(r manifest.Resolved, changes []string) (manifest.Resolved, error) {
	if len(changes) == 0 {
		return r, nil
	}
	m, err := ManifestOf(r.Name, r)
	if err != nil {
		return r, err
	}
	if err := applyChanges(&m, changes); err != nil {
		return r, err
	}
	return m.Resolve()
}

// applyChanges sets each KEY=VALUE of changes on m: load.connections and
// load.rate as their flags set them, every other key by Manifest.Set.
func applyChanges(m *manifest.Manifest, changes []string) error {
	for _, kv := range changes {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("%q: want KEY=VALUE", kv)
		}
		var err error
		switch k {
		case "load.connections":
			var c int
			if c, err = strconv.Atoi(v); err == nil {
				err = m.Apply(manifest.Overrides{Connections: &c})
			}
		case "load.rate":
			var r float64
			if r, err = strconv.ParseFloat(v, 64); err == nil {
				err = m.Apply(manifest.Overrides{Rate: &r})
			}
		default:
			err = m.Set(k, v)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", kv, err)
		}
	}
	return nil
}

// Rate rounds a rate of the saturation grid as people write them: to
// 10 tx/s from 100, to 5 from 20, else to 1 (at least 1).
func Rate(r float64) float64 {
	switch {
	case r >= 100:
		return 10 * math.Round(r/10)
	case r >= 20:
		return 5 * math.Round(r/5)
	}
	return max(1, math.Round(r))
}

// GridRates are the grid's rates per connection for a side whose
// search found knee: knee × each factor, rounded (Rate), ascending and
// unique — the method's {200, 400, 800, 1600} around its chosen 400,
// scaled to where this testnet saturates.
func GridRates(knee float64, factors []float64) []float64 {
	var rs []float64
	for _, f := range factors {
		rs = append(rs, Rate(knee*f))
	}
	slices.Sort(rs)
	return slices.Compact(rs)
}

// Knee is the knee (tx/s, one connection) a side's search found, and
// how: the saturation point when a failure brackets it; below the lowest
// failure when no full-length run passed; above the highest pass when
// none failed (the grid then brackets what is known); the first rate of
// the search when it has no outcome.
func Knee(o *saturation.Outcome, start float64) (float64, string) {
	switch {
	case o == nil:
	case o.Saturation > 0:
		return o.Saturation, fmt.Sprintf("the search's saturation point, %s tx/s", fmtRate(o.Saturation))
	case o.High > 0:
		return o.High, fmt.Sprintf("the search's lowest failure, %s tx/s (no full-length run passed)", fmtRate(o.High))
	case o.Low > 0:
		return o.Low, fmt.Sprintf("the search's highest pass, %s tx/s (no run failed: the knee is above it)", fmtRate(o.Low))
	}
	return start, fmt.Sprintf("the search's first rate, %s tx/s (the search has no outcome)", fmtRate(start))
}

// LoadRule states the rule ChooseLoad applies, in words.
const LoadRule = "c = 1 and the highest r of the candidate's c = 1 row that kept up, at most the search's recommended load " +
	"(the method's rule: CometBFT's reports since v0.34 chose c = 1, r = 400, the highest one-connection load under the saturation point)"

// ChooseLoad is the QA load by the method's rule (LoadRule) from the
// candidate's saturation table t (nil when the saturation step did not
// run) and its search's outcome o (recommended: the highest full-length
// pass under the saturation point, at c = 1): c = 1 and the highest rate
// of the c = 1 row whose cell kept up, no higher than the recommended
// rate when there is one. With no c = 1 cell that kept up it takes the
// row's lowest rate and says so; without a table, fallback (the
// manifest's load).
func ChooseLoad(t *saturation.Table, o *saturation.Outcome, fallback manifest.Workload) results.QALoad {
	if t == nil || !slices.Contains(t.Conns, 1) {
		return results.QALoad{Connections: fallback.Connections, Rate: fallback.Rate,
			Rule: "the manifest's load: the saturation step did not give the candidate's c = 1 row"}
	}
	limit := math.Inf(1)
	if o != nil && o.Recommended > 0 {
		limit = o.Recommended
	}
	var kept, keptAbove, lowest float64
	for _, r := range t.Rates {
		c := t.Cell(1, r)
		if c == nil || c.Runs == 0 {
			continue
		}
		if lowest == 0 {
			lowest = r
		}
		switch {
		case c.Saturated:
		case r <= limit:
			kept = r
		case keptAbove == 0:
			keptAbove = r
		}
	}
	switch {
	case kept == 0 && keptAbove > 0:
		return results.QALoad{Connections: 1, Rate: limit, Rule: fmt.Sprintf("%s: the c = 1 cells that kept up (from %s tx/s) are above "+
			"the search's recommended load, so that load, %s tx/s, which passed at full length in the search", LoadRule, fmtRate(keptAbove), fmtRate(limit))}
	case kept > 0:
		rule := fmt.Sprintf("%s: r = %s tx/s kept up", LoadRule, fmtRate(kept))
		if !math.IsInf(limit, 1) {
			rule += fmt.Sprintf(" (the search recommends at most %s tx/s)", fmtRate(limit))
		}
		return results.QALoad{Connections: 1, Rate: kept, Rule: rule}
	case lowest > 0:
		return results.QALoad{Connections: 1, Rate: lowest, Rule: fmt.Sprintf("%s: no c = 1 cell kept up, so the row's lowest rate, %s tx/s: "+
			"the candidate is saturated at every load of the grid", LoadRule, fmtRate(lowest))}
	}
	return results.QALoad{Connections: fallback.Connections, Rate: fallback.Rate,
		Rule: "the manifest's load: no c = 1 cell of the candidate's grid finished"}
}

func fmtRate(r float64) string { return strconv.FormatFloat(r, 'f', -1, 64) }

// fmtSeconds writes a duration in seconds as a Go duration ("1m30s").
func fmtSeconds(s float64) string { return results.Seconds(s).String() }

// FormatRate is a rate in tx/s as the plan's texts write it: as short as
// it is exact.
func FormatRate(r float64) string { return fmtRate(r) }

// FormatSeconds is s seconds as the plan's texts write a duration.
func FormatSeconds(s float64) string { return fmtSeconds(s) }
