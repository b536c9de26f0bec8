package saturation

import (
	"fmt"
	"math"
)

// bracketStep is Next once a run has failed, with left runs of the budget
// to go (≥ 1). A contradicted short pass is run at full length first while
// the runs left allow; then the estimate's step (findPass, narrow) is
// taken unless it forfeits the guarantee that bisection in log space
// still has; see SearchConfig.
func (c SearchConfig) bracketStep(b bracket, left int) (Step, bool) {
	q := (1 + c.Resolution) / (1 - c.Resolution)
	if b.refuted > 0 {
		// A full-length failure's estimate contradicts the short pass
		// S: test S at full length while the runs left could still
		// bisect [S, H] after its pass; otherwise S stays the bottom.
		if c.Split == SplitEstimate && c.need(b.refuted, b.h, q)+1 <= left {
			return Step{Rate: b.refuted, DurationS: c.full(), Phase: PhaseBracket,
				Reason: fmt.Sprintf("the full-length failure at %s estimates %s, more than %s %% below the short pass %s: the short pass at full length",
					satRate(b.refRate), satRate(b.refEst), satRate(100*c.Resolution), satRate(b.refuted))}, false
		}
		b.short = max(b.short, b.refuted)
	}
	var step Step
	if !b.hasL {
		step = c.findPass(b, q)
	} else {
		step = c.narrow(b, q)
	}
	if c.Split == SplitEstimate && c.forfeits(b, step.Rate, q, left) {
		step = c.geometric(b, q, fmt.Sprintf("a run at %s could leave a bracket the %d runs left cannot resolve", satRate(step.Rate), left-1))
	}
	if !b.hasL && step.Rate < c.MinRate {
		if b.h <= c.MinRate {
			return Step{}, true
		}
		step.Rate, step.Reason = c.MinRate, "the minimum rate"
	}
	if step.Rate <= b.l || step.Rate >= b.h {
		return Step{}, true // the quantum leaves nothing between L and H
	}
	return step, false
}

// need is the number of runs bisection in log space needs to narrow
// [lo, hi] to the resolution: 0 when it is resolved, else the least n ≥ 1
// with (hi/lo)^(1/2ⁿ) ≤ q, the bracket widened by half a quantum each side
// for the rounding of the midpoints.
func (c SearchConfig) need(lo, hi, q float64) int {
	if c.resolved(lo, hi) {
		return 0
	}
	if lo > c.Quantum {
		lo -= c.Quantum / 2
	}
	n := 1
	for r := math.Sqrt((hi + c.Quantum/2) / lo); r > q*(1+1e-9); r = math.Sqrt(r) {
		n++
	}
	return n
}

// forfeits reports whether a run at r would forfeit the guarantee of
// bisection: with lo = max(L, S), S the highest short pass below H that
// no full-length failure contradicts,
// bisection in log space between lo and H resolves the bracket within the
// left runs when need(lo, H) ≤ left (a short lo costs one more run, at
// full length, when every run fails); r forfeits that when its failure
// leaves [lo, r] with need(lo, r) (+1 for a short lo) > left − 1 or its
// pass leaves [r, H] with need(r, H) > left − 1 (for r ≤ lo, [lo, H]).
func (c SearchConfig) forfeits(b bracket, r, q float64, left int) bool {
	lo := max(b.l, b.short)
	if lo <= 0 || r >= b.h || c.need(lo, b.h, q) > left {
		return false // nothing to bisect, or no guarantee to forfeit
	}
	short := 0
	if lo > b.l {
		short = 1
	}
	if r <= lo {
		return c.need(lo, b.h, q)+short > left-1
	}
	return c.need(lo, r, q)+short > left-1 || c.need(r, b.h, q) > left-1
}

// geometric is the geometric midpoint √(lo·H) of lo = max(L, S), the
// highest pass below the lowest failure H (S the highest short pass), and
// H, rounded; when lo is L, clamped into [⌈H/q⌉, ⌊L·q⌋], the rates whose
// verdict resolves the bracket either way, if there are any. A short lo
// already within the resolution of H is run at full length; with no pass
// below H, the run goes ÷√Growth below it.
func (c SearchConfig) geometric(b bracket, q float64, why string) Step {
	lo := max(b.l, b.short)
	step := Step{DurationS: c.full(), Phase: PhaseBracket}
	switch {
	case lo <= 0:
		step.Rate = c.round(b.h / math.Sqrt(c.Growth))
		step.Reason = fmt.Sprintf("%s: ÷√%s below the failure at %s", why, satRate(c.Growth), satRate(b.h))
	case lo > b.l && c.resolved(lo, b.h):
		step.Rate = lo
		step.Reason = fmt.Sprintf("%s: the short pass %s, at full length", why, satRate(lo))
	default:
		step.Rate = c.round(math.Sqrt(lo * b.h))
		if down, up := c.ceil(b.h/q), c.floor(lo*q); lo == b.l && down <= up {
			step.Rate = min(max(step.Rate, down), up)
		}
		step.Reason = fmt.Sprintf("%s: the geometric midpoint of %s…%s", why, satRate(lo), satRate(b.h))
	}
	return step
}

// findPass is the estimate's step toward a full-length pass below the
// lowest failure.
func (c SearchConfig) findPass(b bracket, q float64) Step {
	step := Step{DurationS: c.full(), Phase: PhaseBracket}
	switch {
	case b.hEst >= b.h:
		// The failing run kept up with its rate by throughput: it
		// failed on latency, drain or rounds just above the knee.
		step.Rate = c.ceil(b.h / q)
		step.Reason = fmt.Sprintf("the failure at %s estimates at least its own rate: the rate whose pass resolves the bracket", satRate(b.h))
	case b.hEst > 0:
		step.Rate = c.round(b.hEst * (1 - c.Margin))
		step.Reason = fmt.Sprintf("%s %% below the estimate %s of the failure at %s", satRate(100*c.Margin), satRate(b.hEst), satRate(b.h))
		// After a full-length failure at H, a pass at H/q² or above
		// leaves a bracket that one more run resolves whichever way
		// it goes; so go no lower than that, unless it comes within
		// half the margin of the estimate.
		// low is the lowest rate L whose pass leaves a bracket one
		// more run resolves: the run at ⌊L·q⌋ must be ≥ H/q, both
		// rounded to the quantum.
		if low := c.ceil(c.ceil(b.h/q) / q); b.hFull && low > step.Rate {
			step.Rate = low
			step.Reason = fmt.Sprintf("the lowest rate whose pass leaves a bracket one more run resolves, below the failure at %s", satRate(b.h))
			if half := c.floor(b.hEst * (1 - c.Margin/2)); half < low {
				step.Rate = half
				step.Reason = fmt.Sprintf("%s %% below the estimate %s of the failure at %s (toward the rate from which one more run resolves the bracket)",
					satRate(100*c.Margin/2), satRate(b.hEst), satRate(b.h))
			}
		}
	case b.short > 0:
		step.Rate = b.short
		step.Reason = fmt.Sprintf("the highest short pass %s, at full length", satRate(b.short))
	default:
		step.Rate = c.round(b.h / c.Growth)
		step.Reason = fmt.Sprintf("÷%s below the failure at %s", satRate(c.Growth), satRate(b.h))
	}
	if step.Rate >= b.h {
		step.Rate = c.floor(b.h * (1 - c.Resolution))
		step.Reason = fmt.Sprintf("%s %% below the failure at %s", satRate(100*c.Resolution), satRate(b.h))
	}
	return step
}

// narrow is the estimate's step inside [L, H]. up is the highest rate
// whose failure would resolve the bracket, (up − L)/(up + L) = Resolution;
// down the lowest rate whose pass would, (H − down)/(H + down) =
// Resolution. The estimate of the failure at H is used unless a pass more
// than one such step above it refutes it; then, and when the step is not
// inside the bracket, the run goes to the geometric midpoint √(L·H) (the
// arithmetic one, (L + H)/2, with SplitMidpoint).
func (c SearchConfig) narrow(b bracket, q float64) Step {
	step := Step{DurationS: c.full(), Phase: PhaseBracket}
	up, down := c.floor(b.l*q), c.ceil(b.h/q)
	est := b.hEst
	if c.Split == SplitEstimate && est > 0 {
		below := c.round(est * (1 - c.Margin))
		switch {
		case est >= b.h:
			step.Rate = down
			step.Reason = fmt.Sprintf("the failure at %s estimates at least its own rate: the rate whose pass resolves the bracket", satRate(b.h))
		case b.l > est*q:
			return c.geometric(b, q, fmt.Sprintf("the pass at %s refutes the estimate %s", satRate(b.l), satRate(est)))
		case b.l >= below:
			step.Rate = up
			step.Reason = fmt.Sprintf("the pass at %s is within %s %% of the estimate %s or above it: the rate whose failure resolves the bracket",
				satRate(b.l), satRate(100*c.Margin), satRate(est))
		default:
			step.Rate = below
			step.Reason = fmt.Sprintf("%s %% below the estimate %s of the failure at %s", satRate(100*c.Margin), satRate(est), satRate(b.h))
		}
	}
	if step.Rate <= b.l || step.Rate >= b.h {
		if c.Split == SplitEstimate {
			why := "no estimate"
			if est > 0 {
				why = fmt.Sprintf("the estimate's step %s is outside the bracket", satRate(step.Rate))
			}
			return c.geometric(b, q, why)
		}
		step.Rate = c.round((b.l + b.h) / 2)
		step.Reason = fmt.Sprintf("the midpoint of %s…%s", satRate(b.l), satRate(b.h))
	}
	return step
}
