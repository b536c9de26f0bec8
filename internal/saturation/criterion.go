package saturation

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Criterion is the saturation criterion: when a run counts as keeping up
// with its load. A run passes when every check passes:
//
//   - run: the run finished (status complete, or partial only because the
//     mempools did not drain; a failed or interrupted run fails);
//   - throughput: committed ÷ expected ≥ MinThroughputRatio;
//   - latency trend: block latency does not keep rising through the steady
//     part of the load. Over the send-time window [SteadyFrom·T, SteadyTo·T)
//     of a load of duration T, each block gives one point (mean send time of
//     its transactions sent in the window, mean block latency of those
//     transactions), and a least-squares line is fitted to the points. The
//     check fails when latency rises significantly, fast and far: the slope
//     exceeds MaxLatencySlope (seconds of latency per second of send time),
//     its 95 % confidence interval lies above zero (Student's t, n − 2
//     degrees of freedom), and the fitted rise over the window, slope ×
//     window length, exceeds MinLatencyRiseS. A queue that grows because
//     the offered rate λ exceeds the service rate μ gives a slope of
//     (λ − μ)/μ, so 0.04 flags loads about 4 % over capacity. It is not
//     set lower because latency drifts up below the knee too: as the
//     application state grows, blocks take longer, and a lower bound
//     judges that drift rather than saturation (the README's
//     "Saturation" section gives the slopes measured). CometBFT's mempool
//     is bounded, so overload mostly shows as transactions not
//     committed, not as latency without bound. The rise floor keeps the
//     start-up transient of a short run
//     (latency grows with block size in the first seconds) from counting
//     as a backlog;
//   - drain: every mempool is empty within MaxDrainS seconds of the end of
//     the load;
//   - rounds: at most MaxRoundShare of the run's heights were committed in
//     a round above 0 (no round-skipping storm).
//
// The zero value is not useful; start from DefaultCriterion.
type Criterion struct {
	MinThroughputRatio float64 `json:"min_throughput_ratio"`
	MaxLatencySlope    float64 `json:"max_latency_slope"`  // s of latency per s of send time
	MinLatencyRiseS    float64 `json:"min_latency_rise_s"` // s of fitted rise over the steady window
	SteadyFrom         float64 `json:"steady_from"`        // start of the steady window, fraction of the load duration
	SteadyTo           float64 `json:"steady_to"`          // end of the steady window, fraction of the load duration
	MaxDrainS          float64 `json:"max_drain_s"`        // s after the load end
	MaxRoundShare      float64 `json:"max_round_share"`    // fraction of heights
}

// DefaultCriterion returns the default saturation criterion: throughput
// ratio ≥ 0.98; block latency not rising significantly by more than
// 0.04 s/s and 0.5 s over the middle 60 % of the load; mempools empty
// within 10 s of the end of the load; at most 10 % of heights committed
// after round 0.
func DefaultCriterion() Criterion {
	return Criterion{
		MinThroughputRatio: 0.98,
		MaxLatencySlope:    0.04,
		MinLatencyRiseS:    0.5,
		SteadyFrom:         0.2,
		SteadyTo:           0.8,
		MaxDrainS:          10,
		MaxRoundShare:      0.10,
	}
}

// Validate returns every problem with c at once.
func (c Criterion) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if !(c.MinThroughputRatio > 0 && c.MinThroughputRatio <= 1) {
		bad("min throughput ratio must be in (0, 1], got %v", c.MinThroughputRatio)
	}
	if !(c.MaxLatencySlope >= 0) || math.IsInf(c.MaxLatencySlope, 0) {
		bad("max latency slope must be >= 0 and finite, got %v", c.MaxLatencySlope)
	}
	if !(c.MinLatencyRiseS >= 0) || math.IsInf(c.MinLatencyRiseS, 0) {
		bad("min latency rise must be >= 0 and finite, got %v s", c.MinLatencyRiseS)
	}
	if !(c.SteadyFrom >= 0 && c.SteadyFrom < c.SteadyTo && c.SteadyTo <= 1) {
		bad("steady window must satisfy 0 <= from < to <= 1, got %v…%v", c.SteadyFrom, c.SteadyTo)
	}
	if !(c.MaxDrainS >= 0) || math.IsInf(c.MaxDrainS, 0) {
		bad("max drain must be >= 0 and finite, got %v s", c.MaxDrainS)
	}
	if !(c.MaxRoundShare >= 0 && c.MaxRoundShare <= 1) {
		bad("max round share must be in [0, 1], got %v", c.MaxRoundShare)
	}
	return errors.Join(errs...)
}

// Describe returns the criterion as sentences, one per check, for reports.
func (c Criterion) Describe() []string {
	return []string{
		"**run**: the run finished (a failed or interrupted run does not pass).",
		fmt.Sprintf("**throughput**: committed ÷ expected (c × r × duration) ≥ %s.", satG(c.MinThroughputRatio)),
		fmt.Sprintf("**latency trend**: over the steady window (send times %s %%–%s %% of the load duration), "+
			"block latency does not keep rising: the least-squares slope of per-block mean block latency against send time "+
			"fails the run only when it is above %s s/s, its 95 %% confidence interval is above 0, "+
			"and the fitted rise over the window is above %s s.",
			satG(100*c.SteadyFrom), satG(100*c.SteadyTo), satG(c.MaxLatencySlope), satG(c.MinLatencyRiseS)),
		fmt.Sprintf("**drain**: every mempool is empty within %s s of the end of the load.", satG(c.MaxDrainS)),
		fmt.Sprintf("**rounds**: at most %s %% of the run's heights were committed after round 0.", satG(100*c.MaxRoundShare)),
	}
}

// Check names of a Verdict, in order.
const (
	CheckRun        = "run"
	CheckThroughput = "throughput"
	CheckLatency    = "latency trend"
	CheckDrain      = "drain"
	CheckRounds     = "rounds"
)

// Check is the outcome of one check of the criterion on one run.
type Check struct {
	Name   string `json:"name"`
	Pass   bool   `json:"pass"`
	Detail string `json:"detail"` // the measured value against the bound, in words
}

// Verdict is the criterion applied to one run: Pass when every check
// passes.
type Verdict struct {
	Pass   bool    `json:"pass"`
	Checks []Check `json:"checks"`
}

// Failed returns the names of the failed checks.
func (v Verdict) Failed() []string {
	var out []string
	for _, c := range v.Checks {
		if !c.Pass {
			out = append(out, c.Name)
		}
	}
	return out
}

// Judge applies the criterion to a run's evidence. Evidence that is
// missing fails the throughput check (nothing shows the run kept up) and
// passes the others, with a detail saying what was missing.
func (c Criterion) Judge(ev Evidence) Verdict {
	var v Verdict
	add := func(name string, pass bool, format string, a ...any) {
		v.Checks = append(v.Checks, Check{Name: name, Pass: pass, Detail: fmt.Sprintf(format, a...)})
	}

	switch {
	case ev.Interrupted:
		add(CheckRun, false, "interrupted")
	case ev.Status == "failed":
		add(CheckRun, false, "run failed")
	case ev.Status == "complete" || ev.Status == "partial":
		add(CheckRun, true, "%s", ev.Status)
	default:
		add(CheckRun, false, "status %q", ev.Status)
	}

	if r := ev.ThroughputRatio; r != nil {
		add(CheckThroughput, *r >= c.MinThroughputRatio, "ratio %s %s %s", satRatio(*r), satPick(*r >= c.MinThroughputRatio, "≥", "<"), satG(c.MinThroughputRatio))
	} else {
		add(CheckThroughput, false, "no throughput ratio (nothing expected or not analysed)")
	}

	switch t := ev.Trend; {
	case t == nil || t.Points < 3:
		add(CheckLatency, true, "not tested: fewer than 3 blocks in the steady window")
	default:
		rise := t.Slope * (t.ToS - t.FromS)
		rising := t.Slope > c.MaxLatencySlope && t.Low > 0 && rise > c.MinLatencyRiseS
		add(CheckLatency, !rising, "slope %s s/s (95 %% CI %s…%s, %d blocks), rise %s s over %s s: %s",
			satSlope(t.Slope), satSlope(t.Low), satSlope(t.High), t.Points, satRise(rise), satG(math.Round(1e6*(t.ToS-t.FromS))/1e6), satPick(!rising, "not rising", "rising"))
	}

	switch d := ev.Drain; {
	case d == nil:
		add(CheckDrain, true, "not measured")
	case !d.Drained:
		add(CheckDrain, false, "mempools not empty after %s s (%s)", satSec(d.Seconds), d.Source)
	default:
		ok := d.Seconds <= c.MaxDrainS
		add(CheckDrain, ok, "empty after %s s %s %s s (%s)", satSec(d.Seconds), satPick(ok, "≤", ">"), satG(c.MaxDrainS), d.Source)
	}

	switch r := ev.Rounds; {
	case r == nil || r.Heights == 0:
		add(CheckRounds, true, "no heights")
	default:
		share := float64(r.Late-r.Absent) / float64(r.Heights)
		ok := share <= c.MaxRoundShare
		absent := ""
		if r.Absent > 0 {
			absent = fmt.Sprintf(" without the %d an absent proposer cost", r.Absent)
		}
		add(CheckRounds, ok, "%d of %d heights after round 0 (%s %%%s, max round %d) %s %s %%", r.Late, r.Heights,
			satG(math.Round(1000*share)/10), absent, r.MaxRound, satPick(ok, "≤", ">"), satG(100*c.MaxRoundShare))
	}

	v.Pass = true
	for _, ch := range v.Checks {
		v.Pass = v.Pass && ch.Pass
	}
	return v
}

func satPick(ok bool, yes, no string) string {
	if ok {
		return yes
	}
	return no
}

func satG(v float64) string     { return strconv.FormatFloat(v, 'g', -1, 64) }
func satRatio(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }
func satSlope(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }
func satRise(v float64) string  { return strconv.FormatFloat(v, 'f', 2, 64) }
func satSec(v float64) string   { return strconv.FormatFloat(v, 'f', 1, 64) }
