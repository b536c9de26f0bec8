package experiment

import (
	"fmt"
	"strconv"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/results"
)

// maxProbes is how many probes time_scale = "auto" runs at most: the
// first at k = 1, then, while a probe's host was itself above the limit
// (its demand a lower bound), one at a larger k, at most maxProbeScale (a
// probe at k loads the host for 5 × k s).
const (
	maxProbes     = 3
	maxProbeScale = 8
)

// autoScales are the time scales "auto" chooses among: 1, 2, 4, … up to
// maxK (at most cometbft.MaxTimeScale).
func autoScales(maxK float64) []float64 {
	var ks []float64
	for k := 1.0; k <= min(maxK, cometbft.MaxTimeScale); k *= 2 {
		ks = append(ks, k)
	}
	return ks
}

// chooseTimeScale is the rule of time_scale = "auto", from the probes so
// far (the last one measures) and the largest k the testnet's releases
// allow (maxK). With the last probe at k_p, its means over the load of
// the testnet's CPU T, cometlab's H and other work's O (cores) on a host
// of C cores:
//
//	demand D = (T + H) × k_p           cores the run takes in real time
//	O' = min(O, C × DisturbedPct/100)  other work, counted up to the disturbance threshold
//	busy(k) = 100 × (O' + D ÷ k) ÷ C   % of the host at time scale k
//	limit L = analysis.BusyLimitPct (100 − analysis.DisturbedPct)
//
// Other work beyond the disturbance threshold is counted at it: no k makes
// room for it (the run is disturbed whatever k, and says so), and a k
// chosen to make room would only make the run longer.
//
// k is the smallest of autoScales(maxK) with busy(k) ≤ L; when none is,
// the largest, marked saturated. When the probe's own host was above L
// (100 × (O' + T + H) ÷ C > L: the nodes queued for CPU, so D is a lower
// bound) and fewer than maxProbes ran, it returns instead reprobe > 0:
// the k to probe again at, the smallest allowed k ≥ 2 k_p with
// busy(k) ≤ L, at most maxProbeScale; none when that is not above k_p.
func chooseTimeScale(probes []results.TimeScaleProbe, maxK float64) (choice results.TimeScaleAuto, reprobe float64) {
	ks := autoScales(maxK)
	p := probes[len(probes)-1]
	cores := float64(max(p.Cores, 1))
	limit := float64(analysis.BusyLimitPct)
	demand := (p.Testnet + p.Harness) * p.K
	other := min(p.Other, cores*analysis.DisturbedPct/100)
	busy := func(k float64) float64 { return 100 * (other + demand/k) / cores }
	choice = results.TimeScaleAuto{Probes: probes, LimitPct: limit, DemandCores: demand, MaxScale: ks[len(ks)-1]}
	if 100*(other+p.Testnet+p.Harness)/cores > limit && len(probes) < maxProbes {
		next := ks[len(ks)-1]
		for _, k := range ks {
			if k >= 2*p.K && busy(k) <= limit {
				next = k
				break
			}
		}
		if next = min(next, maxProbeScale); next > p.K {
			return choice, next
		}
	}
	choice.Chosen, choice.Saturated = ks[len(ks)-1], true
	for _, k := range ks {
		if busy(k) <= limit {
			choice.Chosen, choice.Saturated = k, false
			break
		}
	}
	choice.BusyPct = busy(choice.Chosen)
	choice.Reason = autoReason(choice, p)
	return choice, 0
}

// autoReason says in a sentence why c.Chosen, from the probe p.
func autoReason(c results.TimeScaleAuto, p results.TimeScaleProbe) string {
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) }
	s := fmt.Sprintf("a %.0f s probe at k = %s measured the testnet and cometlab at %.2f cores of %d (%.2f in real time), other work at %.2f",
		p.Seconds, g(p.K), p.Testnet+p.Harness, p.Cores, c.DemandCores, p.Other)
	if len(c.Probes) > 1 {
		s = fmt.Sprintf("after %d probes (the host was above the limit at k = %s), ", len(c.Probes), g(c.Probes[0].K)) + s
	}
	switch {
	case c.Saturated:
		s += fmt.Sprintf(": even k = %s, the largest allowed, leaves the host %.0f %% busy, above its %.0f %% limit: the run saturates it",
			g(c.Chosen), c.BusyPct, c.LimitPct)
	case c.Chosen == 1:
		s += fmt.Sprintf(": in real time the host is %.0f %% busy, within its %.0f %% limit", c.BusyPct, c.LimitPct)
	default:
		other := min(p.Other, float64(max(p.Cores, 1))*analysis.DisturbedPct/100)
		s += fmt.Sprintf(": k = %s is the smallest that keeps the host within its %.0f %% limit (%.0f %% busy; k = %s: %.0f %%)",
			g(c.Chosen), c.LimitPct, c.BusyPct, g(c.Chosen/2), 100*(other+c.DemandCores/(c.Chosen/2))/float64(max(p.Cores, 1)))
	}
	if pct := 100 * p.Other / float64(max(p.Cores, 1)); pct > analysis.DisturbedPct {
		s += fmt.Sprintf("; other work took %.0f %% of the host during the probe, above the %d %% disturbance threshold: "+
			"it is counted at %d %%, since no k makes room for it (the run says whether its own host was disturbed)", pct, analysis.DisturbedPct, analysis.DisturbedPct)
	}
	return s
}
