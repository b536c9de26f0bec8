package saturation

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Split strategies of the saturation search: where the next run goes once
// a failure brackets the saturation point.
const (
	// SplitEstimate places the next run at the saturation point the
	// lowest failing run estimates (Evidence.Estimate), just below it or
	// just above the highest pass, while a wrong estimate cannot cost the
	// resolution (see SearchConfig), and otherwise bisects in log space.
	SplitEstimate = "estimate"
	// SplitMidpoint is plain bisection: the midpoint of the bracket.
	SplitMidpoint = "midpoint"
)

// Phases of a search step.
const (
	PhaseGrow    = "grow"    // no run has failed yet: grow the rate geometrically
	PhaseBracket = "bracket" // a run failed: narrow the bracket with full-length runs
)

// SearchConfig configures the saturation search over the rate per
// connection r (the connections c stay fixed). Rates are in tx/s per
// connection, durations in s.
//
// The search grows the rate geometrically (Start, Start·Growth, …) with
// runs of ProbeDurationS until one fails the criterion; the lowest failure
// is the bracket's top H. It then narrows the bracket [L, H] with runs of
// DurationS, where L is the highest full-length pass below H, until
//
//	(H − L) / (H + L) ≤ Resolution
//
// that is, until the midpoint (L + H)/2 is within ±Resolution of every rate
// in the bracket, i.e. H/L ≤ q with q = (1 + Resolution)/(1 − Resolution).
// With SplitEstimate the runs go Margin below the estimate of the lowest
// failure (after a full-length failure at H, no lower than H/q², unless
// that is within Margin/2 of the estimate: a pass there leaves a bracket
// one more run resolves), then to the rate whose failure would resolve the
// bracket, L·q, or whose pass would, H/q. Such a step is taken only while
// a wrong estimate cannot cost the resolution: with lo = max(L, S), S the
// highest short pass below H, and need(a, b) the bisections in log space
// that narrow [a, b] to the resolution, the least n with
// (b/a)^(1/2ⁿ) ≤ q, a step to r is replaced by the geometric midpoint
// √(lo·H) when need(lo, H) ≤ k, the k runs left (bisection can still
// resolve the bracket), but r's failure would leave need(lo, r) > k − 1
// (+1 when lo is S: when every run fails, S is run at full length) or its
// pass need(r, H) > k − 1. A full-length pass more than a factor q above
// the estimate refutes it: the search bisects in log space from there.
// So a probe's estimate 2 × too low or too high no longer makes the search
// creep by factors of q until the budget is spent: with DefaultSearch it
// resolves knees from 1.5 to 50 × the start within the 8 runs
// (search_model_test.go), except just above a probe's pass with 4 runs
// left, where no stepper can. A failure of a shorter probe counts as a
// failure at full length (a load that overwhelms the network in 20 s does
// so in 60 s) when it failed on throughput or drain; a probe failing only
// on the latency trend or rounds (Observation.Soft) is passed over, and a
// short pass does not count as a pass (it only places runs). A short pass
// S is contradicted by a full-length failure whose estimate e lies more
// than the resolution below it (S/e > q), unless a full-length pass lies
// more than the resolution above e (which refutes e instead): S is then
// not the bottom of the bracket, and S' below is the highest short pass
// nothing contradicts. The next run is S at full length, whose pass makes
// it L and whose failure the new H (after which the search goes below
// it), as long as the runs left could still bisect [S, H] after its pass,
// need(S, H) + 1 ≤ k; with fewer, S stays the bottom, as with estimates
// too low on a network whose probes are right the evidence is the same
// (probes passing far above the full-length knee with those few runs left
// are not resolved: TestSearchModelShortKnee). Rates are
// rounded to multiples of Quantum. The search stops after MaxRuns runs,
// below MinRate and above MaxRate.
type SearchConfig struct {
	Start          float64 `json:"start"`
	Growth         float64 `json:"growth"`
	Resolution     float64 `json:"resolution"`
	MinRate        float64 `json:"min_rate"`
	MaxRate        float64 `json:"max_rate"`
	MaxRuns        int     `json:"max_runs"`
	DurationS      float64 `json:"duration_s"`
	ProbeDurationS float64 `json:"probe_duration_s"` // 0 or ≥ DurationS: every run is full length
	Split          string  `json:"split"`
	// Margin is how far below a failing run's estimate the next run goes
	// (fraction). A failing run's committed rate is what the network
	// delivers overloaded, in bigger and cheaper blocks than a network
	// that keeps up; a load that passes the criterion (ratio ≥ 0.98,
	// latency not rising) sits at or below it. The default, 15 %, is
	// above the overshoot of the estimates measured (README, "Saturation"),
	// so that it puts the next run under the knee, where it passes, rather
	// than at it, where the verdict is a coin toss and a miss costs a run;
	// after a full-length failure the H/q² floor (see SearchConfig) keeps
	// it from going so low that the bracket needs two more runs.
	Margin  float64 `json:"margin"`
	Quantum float64 `json:"quantum"`
}

// DefaultSearch returns the default search from start tx/s per connection
// with runs of durationS: growth ×4 with probes of a sixth of the duration
// (at least 10 s), resolution ±5 %, at most 8 runs, 1…100000 tx/s, the
// estimate split 15 % below estimates, rates rounded to 1 tx/s.
//
// Probes only have to show a failure and give an estimate, which a load
// well over capacity does within seconds (the mempool fills, latency
// climbs); the full-length runs decide the bracket. Growing ×4 reaches a
// failure in half the probes of ×2; the failing probe's estimate brings
// the next run near the knee when it is close (a knee about 7× the start
// and estimates 1.08 × it: 3 probes and 2 full-length runs), and when it
// is 2 × off the runs bisect in log space: within the 8 runs either way
// (testdata/saturation/search_simulate.txt, search_model_test.go).
func DefaultSearch(start, durationS float64) SearchConfig {
	probe := math.Round(durationS / 6)
	if probe < 10 {
		probe = 10
	}
	if probe >= durationS {
		probe = 0
	}
	return SearchConfig{Start: start, Growth: 4, Resolution: 0.05, MinRate: 1, MaxRate: 100000, MaxRuns: 8,
		DurationS: durationS, ProbeDurationS: probe, Split: SplitEstimate, Margin: 0.15, Quantum: 1}
}

// Validate returns every problem with c at once.
func (c SearchConfig) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if !(c.Start > 0) || math.IsInf(c.Start, 0) {
		bad("start rate must be > 0, got %v", c.Start)
	}
	if !(c.Growth > 1) || math.IsInf(c.Growth, 0) {
		bad("growth must be > 1, got %v", c.Growth)
	}
	if !(c.Resolution > 0 && c.Resolution < 1) {
		bad("resolution must be in (0, 1), got %v", c.Resolution)
	}
	if !(c.MinRate > 0 && c.MinRate <= c.Start && c.Start <= c.MaxRate) {
		bad("want 0 < min rate ≤ start ≤ max rate, got %v, %v, %v", c.MinRate, c.Start, c.MaxRate)
	}
	if c.MaxRuns < 1 {
		bad("max runs must be >= 1, got %d", c.MaxRuns)
	}
	if !(c.DurationS > 0) {
		bad("duration must be > 0, got %v s", c.DurationS)
	}
	if c.ProbeDurationS < 0 {
		bad("probe duration must be >= 0, got %v s", c.ProbeDurationS)
	}
	if c.Split != SplitEstimate && c.Split != SplitMidpoint {
		bad("split must be %q or %q, got %q", SplitEstimate, SplitMidpoint, c.Split)
	}
	if !(c.Margin >= 0 && c.Margin < 1) {
		bad("margin must be in [0, 1), got %v", c.Margin)
	}
	if !(c.Quantum > 0) {
		bad("quantum must be > 0, got %v", c.Quantum)
	}
	return errors.Join(errs...)
}

// Observation is a finished run of the search as the stepper sees it.
type Observation struct {
	Rate      float64 `json:"rate"` // tx/s per connection
	DurationS float64 `json:"duration_s"`
	Pass      bool    `json:"pass"`
	// Soft marks a failure only on checks a short probe cannot judge
	// reliably: the latency trend (a few blocks, the start-up transient,
	// a busy host) and rounds. A probe's soft failure does not bracket the
	// saturation point: the growth goes on past it. Full-length failures
	// always count.
	Soft bool `json:"soft,omitempty"`
	// Estimate is the run's estimate of the highest sustainable rate per
	// connection (Evidence.Estimate); 0 when unknown. Only failures' are
	// used.
	Estimate float64 `json:"estimate,omitempty"`
}

// Step is the stepper's next run.
type Step struct {
	Rate      float64 `json:"rate"` // tx/s per connection
	DurationS float64 `json:"duration_s"`
	Phase     string  `json:"phase"`  // PhaseGrow or PhaseBracket
	Reason    string  `json:"reason"` // why this rate, in words
}

// bracket is what the observations say about the saturation point.
type bracket struct {
	hasH, hasL, hasTop bool
	h, hEst            float64 // lowest failure and its estimate (the smallest if several)
	l                  float64 // highest full-length pass below h
	top                float64 // highest pass of any length (below h when hasH)
	short              float64 // highest short pass below h no full-length failure contradicts (0 when none)
	refuted            float64 // highest contradicted short pass in (l, h) (0 when none)
	refRate, refEst    float64 // the full-length failure that contradicts it, and its estimate
	topSoft            bool    // top is a probe's soft failure
	hFull              bool    // a full-length run failed at h
}

func (c SearchConfig) full() float64 { return c.DurationS }

func (c SearchConfig) probe() float64 {
	if c.ProbeDurationS > 0 && c.ProbeDurationS < c.DurationS {
		return c.ProbeDurationS
	}
	return c.DurationS
}

// softProbe reports whether o is a probe's soft failure, which grows the
// rate like a pass but is neither a pass nor a failure.
func (c SearchConfig) softProbe(o Observation) bool {
	return !o.Pass && o.Soft && o.DurationS < c.full()
}

func (c SearchConfig) bracket(obs []Observation) bracket {
	var b bracket
	for _, o := range obs {
		if o.Pass || c.softProbe(o) {
			continue
		}
		switch {
		case !b.hasH || o.Rate < b.h:
			b.hasH, b.h, b.hEst, b.hFull = true, o.Rate, o.Estimate, o.DurationS >= c.full()
		case o.Rate == b.h:
			b.hFull = b.hFull || o.DurationS >= c.full()
			if o.Estimate > 0 && (b.hEst == 0 || o.Estimate < b.hEst) {
				b.hEst = o.Estimate
			}
		}
	}
	var shorts []float64
	for _, o := range obs {
		if b.hasH && o.Rate >= b.h {
			continue
		}
		if soft := c.softProbe(o); o.Pass || soft {
			if !b.hasTop || o.Rate > b.top {
				b.hasTop, b.top, b.topSoft = true, o.Rate, soft
			}
		}
		if !o.Pass {
			continue
		}
		if o.DurationS >= c.full() {
			if !b.hasL || o.Rate > b.l {
				b.hasL, b.l = true, o.Rate
			}
		} else {
			shorts = append(shorts, o.Rate)
		}
	}
	for _, s := range shorts {
		if f, ok := c.contradicts(obs, b, s); ok && s > b.l {
			if s > b.refuted {
				b.refuted, b.refRate, b.refEst = s, f.Rate, f.Estimate
			}
		} else {
			b.short = max(b.short, s)
		}
	}
	return b
}

// contradicts returns the full-length failure, if any, whose estimate e
// contradicts the short pass s: e lies more than the resolution below s
// (s/e > q) and no full-length pass L lies more than the resolution above
// e (which refutes the estimate instead). The lowest such estimate wins.
func (c SearchConfig) contradicts(obs []Observation, b bracket, s float64) (Observation, bool) {
	var f Observation
	found := false
	for _, o := range obs {
		e := o.Estimate
		if o.Pass || o.DurationS < c.full() || e <= 0 || e >= s || c.resolved(e, s) {
			continue
		}
		if b.hasL && b.l > e && !c.resolved(e, b.l) {
			continue
		}
		if !found || e < f.Estimate {
			f, found = o, true
		}
	}
	return f, found
}

// resolved reports whether [l, h] meets the resolution.
func (c SearchConfig) resolved(l, h float64) bool {
	return (h-l)/(h+l) <= c.Resolution+1e-9
}

func (c SearchConfig) round(r float64) float64 { return math.Round(r/c.Quantum) * c.Quantum }
func (c SearchConfig) floor(r float64) float64 { return math.Floor(r/c.Quantum+1e-9) * c.Quantum }
func (c SearchConfig) ceil(r float64) float64  { return math.Ceil(r/c.Quantum-1e-9) * c.Quantum }

// Next returns the next run of the search given the runs so far (in any
// order), or done when the search is over: the bracket meets the
// resolution, MaxRuns runs were made, no failure up to MaxRate, a failure
// at MinRate, or rounding to Quantum leaves no rate inside the bracket. It
// is a pure function of c and obs; see SearchConfig for the method.
func (c SearchConfig) Next(obs []Observation) (next Step, done bool) {
	b := c.bracket(obs)
	if b.hasH && b.hasL && c.resolved(b.l, b.h) || len(obs) >= c.MaxRuns {
		return Step{}, true
	}
	if !b.hasH {
		if !b.hasTop {
			return Step{Rate: c.round(c.Start), DurationS: c.probe(), Phase: PhaseGrow, Reason: "the start rate"}, false
		}
		r := c.round(b.top * c.Growth)
		reason := fmt.Sprintf("×%s after the pass at %s", satRate(c.Growth), satRate(b.top))
		if b.topSoft {
			reason = fmt.Sprintf("×%s after %s, a probe failing only on latency or rounds (not counted)", satRate(c.Growth), satRate(b.top))
		}
		if r > c.MaxRate {
			if b.top >= c.MaxRate {
				return Step{}, true
			}
			r, reason = c.MaxRate, "the maximum rate"
		}
		return Step{Rate: r, DurationS: c.probe(), Phase: PhaseGrow, Reason: reason}, false
	}

	return c.bracketStep(b, c.MaxRuns-len(obs))
}

// Outcome states of a search.
const (
	OutcomeResolved  = "resolved"   // the bracket meets the resolution
	OutcomeBracketed = "bracketed"  // a bracket, but wider than the resolution (the budget ran out)
	OutcomeNoFailure = "no failure" // no run failed: the saturation point is above the highest pass
	OutcomeNoPass    = "no pass"    // no full-length run passed: it is below the lowest failure
	OutcomeNoRuns    = "no runs"
)

// Outcome is what a search found. Rates are per connection.
type Outcome struct {
	Status string `json:"status"` // one of the Outcome constants
	// Low is the highest full-length pass below High; High the lowest
	// failure. Either is 0 when there is none.
	Low  float64 `json:"low,omitempty"`
	High float64 `json:"high,omitempty"`
	// Saturation is the saturation point (L + H)/2 ± HalfWidth (H − L)/2;
	// 0 unless Status is resolved or bracketed.
	Saturation float64 `json:"saturation,omitempty"`
	HalfWidth  float64 `json:"half_width,omitempty"`
	// Recommended is the recommended QA load: the highest full-length pass
	// below the saturation point, "slightly under the saturation point" as
	// CometBFT's QA chooses it; 0 unless a failure brackets the point.
	Recommended float64 `json:"recommended,omitempty"`
	Summary     string  `json:"summary"` // one sentence
}

// Conclude says what the runs so far show. It is pure.
func (c SearchConfig) Conclude(obs []Observation) Outcome {
	b := c.bracket(obs)
	switch {
	case len(obs) == 0:
		return Outcome{Status: OutcomeNoRuns, Summary: "no run finished"}
	case b.hasH && b.hasL:
		o := Outcome{Status: OutcomeBracketed, Low: b.l, High: b.h, Saturation: (b.l + b.h) / 2, HalfWidth: (b.h - b.l) / 2, Recommended: b.l}
		if c.resolved(b.l, b.h) {
			o.Status = OutcomeResolved
		}
		o.Summary = fmt.Sprintf("saturation at %s ± %s tx/s per connection (±%s %%): passes at %s, fails at %s",
			satRate(o.Saturation), satRate(o.HalfWidth), strconv.FormatFloat(100*o.HalfWidth/o.Saturation, 'f', 1, 64), satRate(b.l), satRate(b.h))
		if o.Status == OutcomeBracketed {
			o.Summary += fmt.Sprintf(" (wider than the ±%s %% resolution)", satRate(100*c.Resolution))
		}
		return o
	case b.hasH:
		return Outcome{Status: OutcomeNoPass, High: b.h,
			Summary: fmt.Sprintf("no full-length run passed: saturation below %s tx/s per connection", satRate(b.h))}
	}
	o := Outcome{Status: OutcomeNoFailure, Low: b.l}
	o.Summary = fmt.Sprintf("no run failed: saturation above %s tx/s per connection", satRate(b.top))
	if !b.hasL {
		o.Summary += " (no full-length run yet)"
	}
	return o
}

// satRate formats a rate (or factor) with up to 3 decimals and no
// trailing zeros.
func satRate(v float64) string {
	return strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64)
}
