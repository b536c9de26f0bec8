package compare

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/pelletier/go-toml/v2"
)

// Defaults of a comparison's thresholds: CometBFT's QA rule (a change of
// 10 % or more is a regression to look at) and the usual 5 % significance
// level.
const (
	DefaultThresholdPct = 10.0
	DefaultAlpha        = 0.05
)

// Thresholds decide which changes matter: a metric is better or worse only
// when its change is at least the threshold and significant at Alpha. It
// is what a thresholds file (--thresholds FILE) holds:
//
//	threshold_pct = 10          # default for every metric, % of the baseline
//	alpha = 0.05                # significance level of the tests
//
//	[metric.block_latency_p99_ms]
//	threshold_pct = 5           # this metric's own threshold
//	[metric.late_sends]
//	min_delta = 100             # and/or an absolute floor, in the metric's unit
//	[metric.tps_stddev]
//	ignore = true               # never judged (shown, verdict "not judged")
type Thresholds struct {
	// DefaultPct is the smallest |Δ %| that counts as a change, for
	// metrics without their own threshold_pct. Default 10.
	DefaultPct float64 `toml:"threshold_pct" json:"threshold_pct"`
	// Alpha is the significance level: a change is significant when the
	// test's p < Alpha or the (1 − Alpha) confidence interval of Δ excludes
	// 0. Default 0.05.
	Alpha float64 `toml:"alpha" json:"alpha"`
	// Metric holds per-metric overrides keyed by dictionary id.
	Metric map[string]MetricThreshold `toml:"metric" json:"metric,omitempty"`
}

// MetricThreshold overrides the thresholds of one metric.
type MetricThreshold struct {
	// Pct replaces Thresholds.DefaultPct for this metric.
	Pct *float64 `toml:"threshold_pct" json:"threshold_pct,omitempty"`
	// MinDelta is the smallest |Δ| (in the metric's unit) that counts as a
	// change, on top of the relative threshold. Default 0. It is the only
	// threshold when the baseline is 0 (Δ % undefined).
	MinDelta float64 `toml:"min_delta" json:"min_delta,omitempty"`
	// Ignore leaves the metric out of the verdicts.
	Ignore bool `toml:"ignore" json:"ignore,omitempty"`
}

// DefaultThresholds returns 10 % for every metric at α = 0.05.
func DefaultThresholds() Thresholds {
	return Thresholds{DefaultPct: DefaultThresholdPct, Alpha: DefaultAlpha}
}

// For returns the relative threshold (%), the absolute floor and whether
// metric id is ignored.
func (t Thresholds) For(id string) (pct, minDelta float64, ignore bool) {
	pct = t.DefaultPct
	if m, ok := t.Metric[id]; ok {
		if m.Pct != nil {
			pct = *m.Pct
		}
		return pct, m.MinDelta, m.Ignore
	}
	return pct, 0, false
}

// ParseThresholds decodes a thresholds file; name is used in errors.
// Decoding is strict: an unknown key, or a metric id that is not in the
// metric dictionary, is an error, and every problem is reported at once.
// Keys left out keep their defaults.
func ParseThresholds(name string, data []byte) (Thresholds, error) {
	t := DefaultThresholds()
	dec := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		var sm *toml.StrictMissingError
		var de *toml.DecodeError
		switch {
		case errors.As(err, &sm):
			var errs []error
			for _, e := range sm.Errors {
				row, col := e.Position()
				errs = append(errs, fmt.Errorf("%s:%d:%d: %s: unknown key", name, row, col, strings.Join(e.Key(), ".")))
			}
			return t, errors.Join(errs...)
		case errors.As(err, &de):
			row, col := de.Position()
			return t, fmt.Errorf("%s:%d:%d: %s", name, row, col, de.Error())
		}
		return t, fmt.Errorf("%s: %w", name, err)
	}
	var errs []error
	check := func(what string, v float64, lo, hi float64) {
		if math.IsNaN(v) || v < lo || v > hi {
			errs = append(errs, fmt.Errorf("%s: %s = %v: want %v … %v", name, what, v, lo, hi))
		}
	}
	check("threshold_pct", t.DefaultPct, 0, 1e6)
	check("alpha", t.Alpha, 1e-9, 0.5)
	ids := make([]string, 0, len(t.Metric))
	for id := range t.Metric {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if _, ok := analysis.Lookup(id); !ok {
			errs = append(errs, fmt.Errorf("%s: [metric.%s]: no metric with this id in the metric dictionary", name, id))
			continue
		}
		m := t.Metric[id]
		if m.Pct != nil {
			check("metric."+id+".threshold_pct", *m.Pct, 0, 1e6)
		}
		check("metric."+id+".min_delta", m.MinDelta, 0, math.MaxFloat64)
	}
	return t, errors.Join(errs...)
}
