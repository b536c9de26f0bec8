package analysis

import (
	"math"
	"regexp"
	"slices"

	"github.com/cometlab/cometlab/internal/results"
)

// UpgradeAction is the action of an upgrade perturbation's events: its
// perturb-begin detail is "upgrade 1/1, v1.0.0 → v1.0.1".
const UpgradeAction = "upgrade"

// upgradeReleases matches the releases of an upgrade's detail.
var upgradeReleases = regexp.MustCompile(`(\S+) → (\S+)$`)

// Upgrade is one node's upgrade, read from events.csv and adoption.csv
// (times Unix ns, by cometlab's clock; 0 when not seen):
//
//   - Term: the node's term event within the perturbation (its begin
//     when there is none); Start: its first start event after Term;
//   - FirstCommit: its first adoption row after Start; DowntimeS =
//     FirstCommit − Term (-1 without one);
//   - CaughtUp: its first adoption row after Start at a height at least
//     the highest the other nodes had committed by then; CatchUpS =
//     CaughtUp − Start (-1 without one);
//   - NetworkHeights: the heights the other nodes committed from Term to
//     FirstCommit (to their last row without one);
//   - Stalled: NetworkHeights is 0 over a window at least twice the other
//     nodes' median interval between new heights: a network that stopped
//     committing while the node was down (a shorter window without a new
//     height is an ordinary gap between blocks).
type Upgrade struct {
	Perturbation
	From, To              string
	Term, Start           int64
	FirstCommit, CaughtUp int64
	DowntimeS, CatchUpS   float64
	NetworkHeights        int64
	Stalled               bool
}

// stallFactor is how many median intervals without a new height make a
// stall.
const stallFactor = 2

// medianStep returns the median time between the tip's new heights (0
// with fewer than two).
func (tf tipFunc) medianStep() int64 {
	var steps []int64
	last, prevH := int64(0), int64(0)
	for i, t := range tf.t {
		if tf.h[i] > prevH {
			if prevH > 0 {
				steps = append(steps, t-last)
			}
			last, prevH = t, tf.h[i]
		}
	}
	if len(steps) == 0 {
		return 0
	}
	slices.Sort(steps)
	return steps[len(steps)/2]
}

// UpgradesOf returns the upgrades of ev, in order of begin.
func UpgradesOf(ev []results.Event, adoption []results.Adoption) []Upgrade {
	ev = sortedEvents(ev)
	byNode := adoptionByNode(adoption)
	var out []Upgrade
	for _, p := range Perturbations(ev) {
		if p.Action != UpgradeAction || p.Node == "" {
			continue
		}
		u := Upgrade{Perturbation: p, Term: p.Begin, DowntimeS: -1, CatchUpS: -1}
		if m := upgradeReleases.FindStringSubmatch(p.Detail); m != nil {
			u.From, u.To = m[1], m[2]
		}
		u.Term, u.Start = upgradeSteps(ev, p)
		tip := newTip(byNode, p.Node)
		upgradeCommits(&u, byNode[p.Node], tip)
		to := u.FirstCommit
		if to == 0 && len(tip.t) > 0 {
			to = tip.t[len(tip.t)-1]
		}
		u.NetworkHeights = max(0, tip.at(to)-tip.at(u.Term))
		u.Stalled = u.NetworkHeights == 0 && to-u.Term >= stallFactor*tip.medianStep()
		out = append(out, u)
	}
	return out
}

// upgradeSteps returns the term and the next start of p's node within p
// (the start may come at its end), Term p.Begin when there is no term.
func upgradeSteps(ev []results.Event, p Perturbation) (term, start int64) {
	term = p.Begin
	seen := false
	for _, e := range ev {
		if e.Node != p.Node || e.At < p.Begin || p.End != 0 && e.At > p.End {
			continue
		}
		switch {
		case e.Kind == results.EventTerm && !seen:
			term, seen = e.At, true
		case e.Kind == results.EventStart && start == 0 && e.At >= term:
			start = e.At
		}
	}
	return term, start
}

// upgradeCommits sets u's first commit and catch-up from its node's
// adoption rows by time (rows) and the other nodes' tip.
func upgradeCommits(u *Upgrade, rows []results.Adoption, tip tipFunc) {
	if u.Start == 0 {
		return
	}
	for _, a := range rows {
		if a.At <= u.Start {
			continue
		}
		if u.FirstCommit == 0 {
			u.FirstCommit = a.At
			u.DowntimeS = float64(a.At-u.Term) / 1e9
		}
		if a.Height >= tip.at(a.At) {
			u.CaughtUp = a.At
			u.CatchUpS = float64(a.At-u.Start) / 1e9
			return
		}
	}
}

// MixedVersionS is the mixed-version period of ups: from the first
// upgrade's begin to the last one's end, in s; NaN without an upgrade or
// when one never ended.
func MixedVersionS(ups []Upgrade) float64 {
	if len(ups) == 0 {
		return math.NaN()
	}
	first, last := ups[0].Begin, int64(0)
	for _, u := range ups {
		if u.End == 0 {
			return math.NaN()
		}
		first, last = min(first, u.Begin), max(last, u.End)
	}
	return float64(last-first) / 1e9
}

// upgradeFigures puts each upgrade's figures in its perturbation's and
// the run-wide upgrade figures.
func upgradeFigures(in Input, b *builder) {
	ups := UpgradesOf(in.Events, in.Adoption)
	if len(ups) == 0 {
		return
	}
	down, up, stalls := math.NaN(), math.NaN(), 0
	for _, u := range ups {
		i := slices.IndexFunc(b.s.Perturbations, func(ps PerturbationSummary) bool {
			return ps.Node == u.Node && ps.Detail == u.Detail && ps.Figures != nil
		})
		put := func(id string, v float64) {
			if i >= 0 && v >= 0 {
				b.s.Perturbations[i].Figures[id] = v
			}
		}
		put("upgrade_downtime_s", u.DowntimeS)
		put("upgrade_catch_up_s", u.CatchUpS)
		put("upgrade_network_heights", float64(u.NetworkHeights))
		if u.Stalled {
			stalls++
		}
		if u.DowntimeS >= 0 && !(u.DowntimeS <= down) {
			down = u.DowntimeS
		}
		if u.CatchUpS >= 0 && !(u.CatchUpS <= up) {
			up = u.CatchUpS
		}
		if u.FirstCommit == 0 {
			b.note("%s: %s committed no height after its upgrade's start before the end of adoption.csv", u.Label(), u.Node)
		}
	}
	b.s.Metrics["upgrades"] = float64(len(ups))
	b.put("upgrade_downtime_max_s", down, "no upgraded node committed a height after its start")
	b.put("upgrade_catch_up_max_s", up, "no upgraded node caught up")
	b.put("upgrade_network_stalls", float64(stalls), "")
	b.put("upgrade_mixed_version_s", MixedVersionS(ups), "an upgrade did not end before the end of the run")
}
