package manifest

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cometlab/cometlab/internal/cometbft"
)

// TimeScaleAuto is the time_scale that would choose k from the host (a
// probe of the nodes' CPU per model second); it is not built yet and is
// refused with that reason.
const TimeScaleAuto = "auto"

// resolveTimeScale reads time_scale: 1 when unset, else a number in [1,
// cometbft.MaxTimeScale] every node's release can run at. A time-scaled
// testnet cannot have a sentinel (its rates and timers are not scaled) or
// a user's own app (its timers are unknown); [host.*] testnets are
// refused in checkHostFeatures.
func (m *Manifest) resolveTimeScale(ps *problems, r *Resolved) float64 {
	k, msg := timeScaleOf(m.TimeScale)
	if msg != "" {
		ps.add(f("time_scale"), "%s", msg)
		return 1
	}
	if k == 1 {
		return 1
	}
	var versions []string
	for _, n := range r.Nodes {
		if !slices.Contains(versions, n.Version) {
			versions = append(versions, n.Version)
		}
	}
	for _, v := range versions {
		if msg := cometbft.TimeScaleProblem(v, k); msg != "" {
			ps.add(f("time_scale"), "%s", msg)
		}
	}
	if r.Sentinel != nil {
		ps.add(f("time_scale"), "the sentinel's rates and timers are not scaled: a time-scaled run sends its load to the target directly")
	}
	if r.App == AppExternal {
		ps.add(f("time_scale"), "the timers of the user's own app are unknown to cometlab and cannot be scaled: time-scale the kvstore or the e2e app")
	}
	return k
}

// timeScaleOf reads a time_scale value (a TOML number, or a string from
// a flag or --set): k, or why it is not one.
func timeScaleOf(v any) (float64, string) {
	var k float64
	switch x := v.(type) {
	case nil:
		return 1, ""
	case int64:
		k = float64(x)
	case float64:
		k = x
	case string:
		if strings.TrimSpace(x) == TimeScaleAuto {
			return 0, `"auto" (k chosen from a probe of the host) is not built yet: give a number >= 1 (docs/timescale.md)`
		}
		p, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil {
			return 0, fmt.Sprintf("want a number >= 1 (or %q), got %q", TimeScaleAuto, x)
		}
		k = p
	default:
		return 0, fmt.Sprintf("want a number >= 1, got %s", tomlKind(v))
	}
	switch {
	case math.IsNaN(k) || math.IsInf(k, 0) || k < 1:
		return 0, fmt.Sprintf("must be a number >= 1 (1 runs in real time), got %v", k)
	case k > cometbft.MaxTimeScale:
		return 0, fmt.Sprintf("must be <= %d (nothing was measured beyond it), got %v", cometbft.MaxTimeScale, k)
	}
	return k, ""
}

// HostTime returns r as the host runs it at its time scale k: every time
// of the load (duration, drain timeout, late threshold, the shape's
// times), of the perturbations, the partition and the rotation ×k, and
// every rate of the load ÷k; r itself at k = 1. The node's files
// (config.toml, genesis, app.toml, clock skew) are scaled where cometbft
// writes them (cometbft.Spec.TimeScale) and the zones' delays and
// bandwidths where the relays apply them (links.Links.SetTimeScale), so
// HostTime leaves Config, AppConfig, the nodes and the zones as they are,
// and keeps TimeScale. It is idempotent, and [Encode] refuses its result:
// the run directory records the model.
func (r Resolved) HostTime() Resolved {
	k := r.TimeScale
	if k == 0 || k == 1 || r.atHost {
		return r
	}
	r.atHost = true
	r.Load = r.Load.HostTime(k)
	if r.Perturbations != nil {
		ps := make([]Perturbation, len(r.Perturbations))
		for i, p := range r.Perturbations {
			p.At, p.Down, p.Every = cometbft.ScaleDuration(p.At, k), cometbft.ScaleDuration(p.Down, k), cometbft.ScaleDuration(p.Every, k)
			ps[i] = p
		}
		r.Perturbations = ps
	}
	if r.Partition != nil {
		p := *r.Partition
		p.At, p.Duration = cometbft.ScaleDuration(p.At, k), cometbft.ScaleDuration(p.Duration, k)
		r.Partition = &p
	}
	if r.Rotate != nil {
		rot := *r.Rotate
		rot.Dwell = cometbft.ScaleDuration(rot.Dwell, k)
		r.Rotate = &rot
	}
	return r
}

// IsHostTime reports whether r is a HostTime view (of a time-scaled
// testnet) rather than the model.
func (r Resolved) IsHostTime() bool { return r.atHost }

// HostTime returns the load at time scale k: its duration, drain
// timeout, late threshold and the shape's times ×k, its rates (the
// clients' too) ÷k, so that it sends the same transactions over k times
// the time; l itself at k = 1.
func (l Workload) HostTime(k float64) Workload {
	if k == 0 || k == 1 {
		return l
	}
	s := l.Spec().Scaled(k)
	l.Rate, l.Duration = s.Rate, s.Duration
	s.Rate, s.Duration = 0, 0
	l.Shape = s
	l.DrainTimeout = cometbft.ScaleDuration(l.DrainTimeout, k)
	l.LateThreshold = cometbft.ScaleDuration(l.LateThreshold, k)
	if l.Clients != nil {
		cs := make([]Client, len(l.Clients))
		for i, c := range l.Clients {
			c.Rate /= k
			cs[i] = c
		}
		l.Clients = cs
	}
	return l
}
