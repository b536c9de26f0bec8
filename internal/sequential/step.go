package sequential

import (
	"errors"
	"fmt"
	"math"

	"github.com/cometlab/cometlab/internal/stats"
)

// Spending names an alpha-spending function A(t) of Lan and DeMets: the
// part of the level a spent by the information fraction t ∈ (0, 1], with
// A(1) = a.
type Spending int

// Spending functions.
const (
	// OBrienFleming is A(t) = 2 − 2Φ(z_{1−a/2}/√t): almost nothing spent
	// early, nearly the whole level kept for the last look.
	OBrienFleming Spending = iota
	// Pocock is A(t) = a·ln(1 + (e − 1)·t): spent evenly, so a large
	// effect stops sooner and a small one needs more pairs.
	Pocock
)

func (s Spending) String() string {
	if s == Pocock {
		return "Pocock-type"
	}
	return "O'Brien–Fleming-type"
}

// spent returns A(t) for level a.
func (s Spending) spent(a, t float64) float64 {
	if t <= 0 {
		return 0
	}
	t = math.Min(t, 1)
	if s == Pocock {
		return a * math.Log(1+(math.E-1)*t)
	}
	return 2 - 2*stats.NormalCDF(stats.NormalQuantile(1-a/2)/math.Sqrt(t))
}

// Direction says which way of a metric is an improvement.
type Direction int

// Directions.
const (
	Neutral        Direction = iota // no better way: a change is only "changed"
	HigherIsBetter                  // more is an improvement (throughput)
	LowerIsBetter                   // less is an improvement (latency)
)

// Outcome is the decision on one metric.
type Outcome int

// Outcomes.
const (
	Undecided  Outcome = iota // neither a change nor equivalence shown yet
	Worse                     // significantly changed by at least the threshold, the wrong way
	Better                    // significantly changed by at least the threshold, the right way
	Changed                   // as Worse/Better for a Neutral metric
	Equivalent                // the change is shown to lie within ±threshold (TOST)
)

func (o Outcome) String() string {
	return [...]string{"undecided", "worse", "better", "changed", "equivalent"}[o]
}

// MarshalText writes the outcome's name.
func (o Outcome) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// UnmarshalText reads an outcome's name.
func (o *Outcome) UnmarshalText(b []byte) error {
	for c := Undecided; c <= Equivalent; c++ {
		if c.String() == string(b) {
			*o = c
			return nil
		}
	}
	return fmt.Errorf("outcome %q: want undecided, worse, better, changed or equivalent", b)
}

// Config is the design of the experiment.
type Config struct {
	// Alpha bounds the probability that a metric whose true change is 0
	// is ever called worse, better or changed, over all looks up to
	// MaxPairs (two-sided). Default 0.05.
	Alpha float64
	// EquivAlpha bounds the probability that a metric whose true change
	// is ±threshold or more is ever called equivalent. Default Alpha.
	EquivAlpha float64
	// MaxPairs is the budget and the planned horizon: the information
	// fraction of the look after n pairs is n/MaxPairs, and the whole
	// level is spent by the look at MaxPairs. Stopping earlier (a time
	// budget) leaves the rest unspent, which keeps the bound.
	MaxPairs int
	// MinPairs is the first look (default 2, the least a t-test needs).
	MinPairs int
	// Spending is the spending function of both tests.
	Spending Spending
	// FamilyWise divides Alpha and EquivAlpha by the number of metrics
	// (Bonferroni), so that the bound holds for "any metric called
	// changed" rather than metric by metric.
	FamilyWise bool
}

func (c Config) withDefaults() (Config, error) {
	if c.Alpha == 0 {
		c.Alpha = 0.05
	}
	if c.EquivAlpha == 0 {
		c.EquivAlpha = c.Alpha
	}
	if c.MinPairs == 0 {
		c.MinPairs = 2
	}
	var errs []error
	if !(c.Alpha > 0 && c.Alpha < 1) || !(c.EquivAlpha > 0 && c.EquivAlpha < 1) {
		errs = append(errs, fmt.Errorf("alpha %v, equivalence alpha %v: want 0 < α < 1", c.Alpha, c.EquivAlpha))
	}
	if c.MinPairs < 2 {
		errs = append(errs, fmt.Errorf("min pairs %d: want at least 2", c.MinPairs))
	}
	if c.MaxPairs < c.MinPairs {
		errs = append(errs, fmt.Errorf("max pairs %d: want at least min pairs (%d)", c.MaxPairs, c.MinPairs))
	}
	return c, errors.Join(errs...)
}

// Metric is the paired sample of one metric so far: Base[i] and Cand[i]
// come from the i-th AB pair.
type Metric struct {
	ID     string
	Better Direction
	// ThresholdPct is the smallest |Δ| that counts, in % of the base's
	// mean; MinDelta an absolute floor in the metric's unit. The
	// threshold θ is max(ThresholdPct/100·|mean(Base)|, MinDelta).
	ThresholdPct float64
	MinDelta     float64
	Base, Cand   []float64
	// BaseExposure and CandExposure, when set (one per pair), make the
	// metric a count of events over an exposure (slow heights over the
	// run's heights): each look tests the rates of the pairs so far
	// (lookRate) instead of the paired t-test of their differences.
	BaseExposure, CandExposure []float64
}

// Result is the decision on one metric.
type Result struct {
	ID      string  `json:"id"`
	Outcome Outcome `json:"outcome"`
	// Pairs is the number of pairs looked at; DecidedAt the number of
	// pairs at the look that decided (0 while undecided). Once decided,
	// the figures below are those of the deciding look.
	Pairs     int `json:"pairs"`
	DecidedAt int `json:"decided_at,omitempty"`
	// MeanDiff is the mean of Cand[i] − Base[i]; Threshold is θ.
	MeanDiff  float64 `json:"mean_diff"`
	Threshold float64 `json:"threshold"`
	// Level is the two-sided level of the change test at that look (the
	// increment of the spent α) and P its p-value.
	Level float64 `json:"level"`
	P     float64 `json:"p"`
}

// Decision is what Step returns.
type Decision struct {
	Metrics []Result `json:"metrics"`
	// Stop is true when every metric is decided or the budget of pairs
	// is spent.
	Stop bool `json:"stop"`
}

// Step replays the looks after MinPairs, MinPairs+1, … n pairs (n the
// shortest sample of the metrics, at most MaxPairs) and returns each
// metric's decision. A metric decided at one look stays decided.
//
// At the look after n pairs, with d_i = Cand_i − Base_i, d̄ their mean, s
// their standard deviation and T the Student t distribution with n − 1
// degrees of freedom:
//
//	t_n  = n / MaxPairs                       information fraction
//	α_n  = A(t_n; α) − A(t_{n−1}; α)          level of this look (t_{MinPairs−1} = 0)
//	β_n  = A(t_n; β) − A(t_{n−1}; β)          level of the equivalence test
//	p    = 2·(1 − T(|d̄|·√n / s))
//	changed    ⇔ p < α_n and |d̄| ≥ θ          (worse or better by the sign and Direction)
//	equivalent ⇔ d̄ ± T⁻¹(1 − β_n)·s/√n ⊂ (−θ, θ)   (TOST at level β_n)
//
// Σ α_n = A(1; α) = α, so P(ever changed | true Δ = 0) ≤ α by the union
// bound; likewise β for equivalence. With s = 0 the test is exact: d̄ ≠ 0
// is a change (when ≥ θ), d̄ = 0 is equivalence (for any θ, 0 included).
func Step(cfg Config, ms []Metric) (Decision, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return Decision{}, err
	}
	alpha, beta := cfg.Alpha, cfg.EquivAlpha
	if cfg.FamilyWise && len(ms) > 0 {
		alpha /= float64(len(ms))
		beta /= float64(len(ms))
	}
	var out Decision
	n := cfg.MaxPairs
	for _, m := range ms {
		if len(m.Base) != len(m.Cand) {
			return Decision{}, fmt.Errorf("metric %s: %d base values, %d candidate values: want pairs", m.ID, len(m.Base), len(m.Cand))
		}
		if m.BaseExposure != nil && (len(m.BaseExposure) != len(m.Base) || len(m.CandExposure) != len(m.Cand)) {
			return Decision{}, fmt.Errorf("metric %s: %d and %d exposures for %d pairs: want one a value", m.ID, len(m.BaseExposure),
				len(m.CandExposure), len(m.Base))
		}
		n = min(n, len(m.Base))
	}
	allDecided := true
	for _, m := range ms {
		r := Result{ID: m.ID, Pairs: n}
		for k := cfg.MinPairs; k <= n && r.Outcome == Undecided; k++ {
			look(cfg, alpha, beta, m, k, &r)
		}
		// Undecided, r holds the figures of the last look.
		allDecided = allDecided && r.Outcome != Undecided
		out.Metrics = append(out.Metrics, r)
	}
	out.Stop = allDecided || n >= cfg.MaxPairs
	return out, nil
}

// look makes the tests of the look after k pairs and records them in r;
// it sets r.Outcome when the look decides.
func look(cfg Config, alpha, beta float64, m Metric, k int, r *Result) {
	prev := 0.0
	if k > cfg.MinPairs {
		prev = float64(k-1) / float64(cfg.MaxPairs)
	}
	cur := float64(k) / float64(cfg.MaxPairs)
	levelA := cfg.Spending.spent(alpha, cur) - cfg.Spending.spent(alpha, prev)
	levelB := cfg.Spending.spent(beta, cur) - cfg.Spending.spent(beta, prev)
	if m.BaseExposure != nil {
		lookRate(m, k, levelA, levelB, r)
		return
	}

	diffs := make([]float64, k)
	for i := range k {
		diffs[i] = m.Cand[i] - m.Base[i]
	}
	mean, sd := stats.Mean(diffs), stats.StdDev(diffs)
	theta := math.Max(m.ThresholdPct/100*math.Abs(stats.Mean(m.Base[:k])), m.MinDelta)
	df := float64(k - 1)

	p := 1.0
	var halfWidth float64
	switch {
	case sd > 0:
		se := sd / math.Sqrt(float64(k))
		p = 2 * (1 - stats.TCDF(math.Abs(mean)/se, df))
		halfWidth = stats.TQuantile(1-levelB, df) * se
	case mean != 0:
		p = 0
	}
	*r = Result{ID: m.ID, Pairs: r.Pairs, MeanDiff: mean, Threshold: theta, Level: levelA, P: p}
	switch {
	case p < levelA && math.Abs(mean) >= theta:
		r.Outcome = direction(m.Better, mean)
		r.DecidedAt = k
	case sd == 0 && mean == 0:
		// Every pair identical: no change at all, whatever the threshold
		// (a zero threshold would otherwise leave it undecided forever).
		r.Outcome = Equivalent
		r.DecidedAt = k
	case theta > 0 && mean-halfWidth > -theta && mean+halfWidth < theta:
		r.Outcome = Equivalent
		r.DecidedAt = k
	}
}

// direction maps the sign of a significant change to an outcome.
func direction(b Direction, mean float64) Outcome {
	switch {
	case b == Neutral:
		return Changed
	case (mean > 0) == (b == HigherIsBetter):
		return Better
	}
	return Worse
}
