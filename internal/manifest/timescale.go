package manifest

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cometlab/cometlab/internal/cometbft"
)

// TimeScaleAuto is the time_scale that chooses k from the host: a short
// probe of the testnet measures the nodes' CPU per model second, and the
// run uses the smallest k of 1, 2, 4, 8, … that leaves the host below its
// disturbance threshold (experiment.ChooseTimeScale).
const TimeScaleAuto = "auto"

// resolveTimeScale reads time_scale into r: k (1 when unset), a number in
// [1, cometbft.MaxTimeScale] every node's release can run at, or "auto"
// (TimeScaleAuto set, k 1 until chosen). A time-scaled testnet cannot
// have a sentinel (its rates and timers are not scaled) or a user's own
// app (its timers are unknown); [host.*] testnets are refused in
// checkHostFeatures.
func (m *Manifest) resolveTimeScale(ps *problems, r *Resolved) {
	k, auto, msg := timeScaleOf(m.TimeScale)
	r.TimeScale, r.TimeScaleAuto = 1, auto
	if msg != "" {
		ps.add(f("time_scale"), "%s", msg)
		return
	}
	if k == 1 && !auto {
		return
	}
	if msg := r.TimeScaleProblem(k); msg != "" {
		ps.add(f("time_scale"), "%s", msg)
	}
	r.TimeScale = k
	if r.Sentinel != nil {
		ps.add(f("time_scale"), "the sentinel's rates and timers are not scaled: a time-scaled run sends its load to the target directly")
	}
	if r.App == AppExternal {
		ps.add(f("time_scale"), "the timers of the user's own app are unknown to cometlab and cannot be scaled: time-scale the kvstore or the e2e app")
	}
	if msg := zonesHandshakeProblem(r, k, m.LibP2P); msg != "" {
		ps.add(f("time_scale"), "%s", msg)
	}
}

// zonesHandshakeProblem says why r's zones cannot run at time scale k:
// CometBFT's p2p transport gives a new connection's secret handshake and
// node-info exchange cometbft.TransportHandshakeTimeout each, hard-coded
// (its config.toml's handshake_timeout and dial_timeout are not used:
// p2p/transport.go), and each exchange waits for the bytes of both ends,
// about one round trip. A pair of zones whose round trip × k reaches it
// (jitter counted at 2 σ, a fifth kept for the CPU) could never connect. "" when every
// pair of the nodes' zones fits, or on libp2p (its own transport).
func zonesHandshakeProblem(r *Resolved, k float64, libp2p bool) string {
	if r.Zones == nil || libp2p || k <= 1 {
		return ""
	}
	var zones []string
	for _, n := range r.Nodes {
		if n.Zone != "" && !slices.Contains(zones, n.Zone) {
			zones = append(zones, n.Zone)
		}
	}
	slices.Sort(zones)
	limit := cometbft.TransportHandshakeTimeout.Seconds() * 0.8 // a fifth of it for the CPU and the exchange's own work
	worst, wa, wb := 0.0, "", ""
	for i, a := range zones {
		for _, b := range zones[i+1:] {
			ab, _ := r.Zones.Matrix.Delay(a, b)
			ba, _ := r.Zones.Matrix.Delay(b, a)
			if rtt := (ab + ba).Seconds() * (1 + 2*r.Zones.Jitter); rtt > worst {
				worst, wa, wb = rtt, a, b
			}
		}
	}
	if worst*k < limit {
		return ""
	}
	return fmt.Sprintf("the round trip between zones %s and %s, %.0f ms, takes %.1f s at time scale %g, and CometBFT's p2p transport gives a connection's handshake %v, hard-coded (config.toml's p2p.handshake_timeout is not used): their nodes could fail to connect; at most time_scale = %g with these zones (docs/timescale.md)",
		wa, wb, worst*1000, worst*k, k, cometbft.TransportHandshakeTimeout, math.Floor(limit/worst*10)/10)
}

// TimeScaleProblem says why r's testnet cannot run at time scale k (a
// release whose genesis bounds a scaled value, cometbft.TimeScaleProblem,
// for each release of its nodes, joined), "" when it can.
func (r Resolved) TimeScaleProblem(k float64) string {
	var versions, msgs []string
	for _, n := range r.Nodes {
		if !slices.Contains(versions, n.Version) {
			versions = append(versions, n.Version)
		}
	}
	for _, v := range versions {
		if msg := cometbft.TimeScaleProblem(v, k); msg != "" {
			msgs = append(msgs, msg)
		}
	}
	return strings.Join(msgs, "; ")
}

// WithTimeScale returns r run at the time scale k chosen for
// time_scale = "auto" (TimeScaleAuto cleared, so that its manifest.toml
// records k and resolves to the same testnet again), or why r cannot run
// at k.
func (r Resolved) WithTimeScale(k float64) (Resolved, error) {
	if _, _, msg := timeScaleOf(k); msg != "" {
		return r, fmt.Errorf("time_scale %v: %s", k, msg)
	}
	if msg := r.TimeScaleProblem(k); msg != "" {
		return r, fmt.Errorf("time_scale %v: %s", k, msg)
	}
	r.TimeScale, r.TimeScaleAuto = k, false
	return r, nil
}

// timeScaleOf reads a time_scale value (a TOML number, or a string from
// a flag or --set): k, or auto for "auto" (k 1), or why it is neither.
func timeScaleOf(v any) (k float64, auto bool, msg string) {
	switch x := v.(type) {
	case nil:
		return 1, false, ""
	case int64:
		k = float64(x)
	case float64:
		k = x
	case string:
		if strings.TrimSpace(x) == TimeScaleAuto {
			return 1, true, ""
		}
		p, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil {
			return 0, false, fmt.Sprintf("want a number >= 1 (or %q), got %q", TimeScaleAuto, x)
		}
		k = p
	default:
		return 0, false, fmt.Sprintf("want a number >= 1 or %q, got %s", TimeScaleAuto, tomlKind(v))
	}
	switch {
	case math.IsNaN(k) || math.IsInf(k, 0) || k < 1:
		return 0, false, fmt.Sprintf("must be a number >= 1 (1 runs in real time), got %v", k)
	case k > cometbft.MaxTimeScale:
		return 0, false, fmt.Sprintf("must be <= %d (nothing was measured beyond it), got %v", cometbft.MaxTimeScale, k)
	}
	return k, false, ""
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
