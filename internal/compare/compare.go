package compare

import (
	"fmt"
	"math"
	"slices"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/stats"
)

// Run is what a comparison needs from one run directory. LoadRun
// reads it; tests build it by hand.
type Run struct {
	Dir string      // as given by the user
	Run results.Run // run.json
	// Metrics are the run's figures by dictionary id: recomputed from the
	// records by this cometlab, plus the ids of summary.json it did not
	// compute (Foreign lists those it does not know at all).
	Metrics map[string]float64
	Foreign []string
	// Samples are the distributions tested (see Distributions), Traces
	// the time series plotted (see Traces).
	Samples map[string]DistSample
	Traces  map[string]Trace
	// Settings describe what was run, flattened to dotted keys: run.*
	// (versions, load, host), manifest.*, config.* (the target node's
	// config.toml) and genesis.* (consensus parameters).
	Settings map[string]string
	// Notes are problems with the inputs: missing files, a partial run.
	Notes []string
}

// Side is one side of a comparison: the runs of one setup (one run,
// or repeats whose spread estimates the run-to-run noise).
type Side struct {
	Label string
	Runs  []Run
}

// Options tune Sides.
type Options struct {
	Thresholds Thresholds // DefaultThresholds() when zero
	Confidence float64    // of the intervals; 0 means 1 − Thresholds.Alpha
	Resamples  int        // bootstrap resamples; 0 means 2000
	Seed       uint64     // of the bootstrap; the same seed gives the same intervals
	// Noise is the between-run noise measured by an A/A experiment: a
	// single-run comparison judges a metric against it, and calls a
	// change of a metric it lacks "noise unknown".
	Noise *Noise
	// AllowTimeScaleMismatch compares runs made at different time scales
	// (a warning says so); without it Sides refuses them (see
	// TimeScaleMismatch).
	AllowTimeScaleMismatch bool
}

// Verdict is the judgement of one metric (or of a whole comparison).
type Verdict string

// Verdicts. Only Better and Worse are changes; Worse in any metric makes a
// comparison a regression.
const (
	Better        Verdict = "better"
	Worse         Verdict = "worse"
	NoChange      Verdict = "no_change"      // within the threshold, or not significant
	NotJudged     Verdict = "not_judged"     // neutral, unknown or ignored metric
	NotComparable Verdict = "not_comparable" // the loads differ, so the figure means something else
	Missing       Verdict = "missing"        // absent on one side
	// NoiseUnknown: single runs whose within-run evidence calls a change,
	// with no measured between-run noise to judge it against (a cell); a
	// candidate with such cells and no worse or better one (a side).
	NoiseUnknown Verdict = "noise_unknown"
)

// Result is the result of Sides; compare.json holds it.
type Result struct {
	Baseline      SideInfo      `json:"baseline"`
	Candidates    []SideInfo    `json:"candidates"`
	Method        Method        `json:"method"`
	Differences   []SettingDiff `json:"differences"`
	Warnings      []string      `json:"warnings"`
	Metrics       []Row         `json:"metrics"`
	Distributions []DistRow     `json:"distributions"`
	Verdict       Verdict       `json:"verdict"`
}

// SideInfo describes one side.
type SideInfo struct {
	Label   string    `json:"label"`
	Runs    []RunInfo `json:"runs"`
	Verdict Verdict   `json:"verdict,omitempty"` // candidates: against the baseline
	Better  int       `json:"better,omitempty"`  // candidates: metrics better
	Worse   int       `json:"worse,omitempty"`   // candidates: metrics worse
}

// RunInfo identifies one run of a side.
type RunInfo struct {
	Dir     string `json:"dir"`
	ID      string `json:"id"`
	Status  string `json:"status"`
	Version string `json:"cometbft_version"`
}

// Method records how the comparison decided, so that it can be repeated.
type Method struct {
	Thresholds Thresholds `json:"thresholds"`
	Confidence float64    `json:"confidence"`
	Resamples  int        `json:"resamples"`
	Seed       uint64     `json:"seed"`
}

// Row is one metric: the baseline and each candidate.
type Row struct {
	ID           string    `json:"id"`
	Title        string    `json:"title"`
	Unit         string    `json:"unit"`
	Group        string    `json:"group"`
	Better       string    `json:"better"`
	InDictionary bool      `json:"in_dictionary"`
	Baseline     *float64  `json:"baseline"`
	BaselineRuns []float64 `json:"baseline_runs,omitempty"`
	Candidates   []Cell    `json:"candidates"`
}

// Cell is one candidate's value of a metric against the baseline.
type Cell struct {
	Value *float64  `json:"value"`
	Runs  []float64 `json:"runs,omitempty"` // per-run values when a side has repeats
	Delta *float64  `json:"delta"`          // candidate − baseline
	// DeltaPct is 100·Δ/|baseline|; nil when the baseline is 0.
	DeltaPct *float64  `json:"delta_pct"`
	CI       *Interval `json:"ci,omitempty"` // confidence interval of Δ
	P        *float64  `json:"p,omitempty"`  // p-value of the test named by Test
	Test     string    `json:"test,omitempty"`
	// Beyond is set when the change reaches the threshold (and floor);
	// Tested when there was evidence to judge its significance.
	Beyond  bool    `json:"beyond_threshold,omitempty"`
	Tested  bool    `json:"tested,omitempty"`
	Verdict Verdict `json:"verdict"`
	Reason  string  `json:"reason"`
	// Rate is the evidence of a count figure judged as a rate over
	// repeats (rate.go): its P is the rate test's and CI is nil.
	Rate *RateEvidence `json:"rate,omitempty"`
	// WithinRun is the verdict of the within-run evidence alone, for
	// single runs (Verdict is then judged against the A/A noise, or
	// NoiseUnknown).
	WithinRun Verdict `json:"within_run,omitempty"`
}

// Sides compares each candidate with the baseline, metric by metric and
// distribution by distribution, and judges every change. It is pure and
// deterministic: the bootstrap draws from a generator seeded by
// opts.Seed, the distribution and the candidate.
//
// Per metric, Δ = candidate − baseline (each side the mean of its runs) and
// Δ % = 100·Δ/|baseline| (undefined for a zero baseline). A change counts
// when |Δ %| ≥ the metric's threshold and |Δ| ≥ its floor, and is
// significant when p < α or the interval of Δ excludes 0. The evidence:
//   - repeats on a side: the runs' own values, by Student's t (Welch);
//   - single runs, a figure of a distribution: a cluster bootstrap of the
//     figure's Δ and a Mann–Whitney U test of the cluster means;
//   - single runs, a count of transactions: a two-proportion z test;
//   - otherwise none, and the change is reported but not judged.
//
// A counted, significant change in the metric's better direction is
// Better, in the other Worse; anything else NoChange,
// with the reason. The verdicts of a candidate's metrics are one family
// (family.go): metrics with the same values in every run are judged once,
// the extremes of runs (heavy-tailed) are not judged over repeats, and
// Holm's correction holds the chance of any false verdict at α, whether
// the sides are single runs judged against the A/A noise or repeats.
func Sides(base Side, cands []Side, opts Options) (Result, error) {
	if len(base.Runs) == 0 {
		return Result{}, fmt.Errorf("the baseline has no run")
	}
	if len(cands) == 0 {
		return Result{}, fmt.Errorf("no candidate to compare with the baseline")
	}
	for _, c := range cands {
		if len(c.Runs) == 0 {
			return Result{}, fmt.Errorf("candidate %q has no run", c.Label)
		}
	}
	scaleWarning, err := checkTimeScales(append([]Side{base}, cands...), opts.AllowTimeScaleMismatch)
	if err != nil {
		return Result{}, err
	}
	if opts.Thresholds.DefaultPct == 0 && opts.Thresholds.Alpha == 0 && opts.Thresholds.Metric == nil {
		opts.Thresholds = DefaultThresholds()
	}
	if opts.Thresholds.Alpha <= 0 {
		opts.Thresholds.Alpha = DefaultAlpha
	}
	if opts.Confidence <= 0 || opts.Confidence >= 1 {
		opts.Confidence = 1 - opts.Thresholds.Alpha
	}
	if opts.Resamples <= 0 {
		opts.Resamples = 2000
	}
	c := comparer{opts: opts, base: base, cands: cands, boot: map[bootKey]bootResult{}, rates: map[rateKey]*rateInput{}}
	out := Result{
		Baseline: sideInfo(base),
		Method:   Method{Thresholds: opts.Thresholds, Confidence: opts.Confidence, Resamples: opts.Resamples, Seed: opts.Seed},
	}
	for _, s := range cands {
		out.Candidates = append(out.Candidates, sideInfo(s))
	}
	out.Differences = settingDiffs(append([]Side{base}, cands...))
	out.Warnings = inputWarnings(base, cands)
	if scaleWarning != "" {
		out.Warnings = append(out.Warnings, scaleWarning)
	}
	if w := blockTimeWarning(append([]Side{base}, cands...)); w != "" {
		out.Warnings = append(out.Warnings, w)
	}
	out.Metrics = c.rows()
	c.family(out.Metrics)
	out.Distributions = c.distRows()

	out.Verdict = NoChange
	for i := range out.Candidates {
		ci := &out.Candidates[i]
		for _, r := range out.Metrics {
			switch r.Candidates[i].Verdict {
			case Better:
				ci.Better++
			case Worse:
				ci.Worse++
			}
		}
		unknown := 0
		for _, r := range out.Metrics {
			if r.Candidates[i].Verdict == NoiseUnknown {
				unknown++
			}
		}
		switch {
		case ci.Worse > 0:
			ci.Verdict = Worse
			out.Verdict = Worse
		case ci.Better > 0:
			ci.Verdict = Better
			if out.Verdict != Worse {
				out.Verdict = Better
			}
		case unknown > 0:
			ci.Verdict = NoiseUnknown
			if out.Verdict == NoChange {
				out.Verdict = NoiseUnknown
			}
		default:
			ci.Verdict = NoChange
		}
	}
	return out, nil
}

func sideInfo(s Side) SideInfo {
	si := SideInfo{Label: s.Label}
	for _, r := range s.Runs {
		si.Runs = append(si.Runs, RunInfo{Dir: r.Dir, ID: r.Run.ID, Status: r.Run.Status, Version: NodeVersions(r.Run)})
	}
	return si
}

type comparer struct {
	opts    Options
	base    Side
	cands   []Side
	boot    map[bootKey]bootResult
	pending []pending // cells whose verdict waits for the family (family.go)
	rates   map[rateKey]*rateInput
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// metricValues returns the values of id in the runs that have it.
func metricValues(s Side, id string) []float64 {
	var vs []float64
	for _, r := range s.Runs {
		if v, ok := r.Metrics[id]; ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
			vs = append(vs, v)
		}
	}
	return vs
}

// rows returns one row per metric any run has: dictionary metrics in
// dictionary order, then the others sorted by id.
func (c *comparer) rows() []Row {
	have := map[string]bool{}
	for _, s := range append([]Side{c.base}, c.cands...) {
		for _, r := range s.Runs {
			for id := range r.Metrics {
				have[id] = true
			}
		}
	}
	var rows []Row
	for _, m := range analysis.Dictionary() {
		if have[m.ID] {
			rows = append(rows, c.row(m, true))
			delete(have, m.ID)
		}
	}
	var other []string
	for id := range have {
		other = append(other, id)
	}
	slices.Sort(other)
	for _, id := range other {
		rows = append(rows, c.row(analysis.Metric{ID: id, Title: id, Group: GroupOther, Better: analysis.Neutral}, false))
	}
	return rows
}

// GroupOther holds metrics of the inputs that this cometlab's dictionary
// does not know (a run from another cometlab version).
const GroupOther = "not in this cometlab's dictionary"

func (c *comparer) row(m analysis.Metric, known bool) Row {
	r := Row{ID: m.ID, Title: m.Title, Unit: m.Unit, Group: m.Group, Better: m.Better.String(), InDictionary: known}
	bv := metricValues(c.base, m.ID)
	if len(bv) > 0 {
		r.Baseline = ptr(stats.Mean(bv))
	}
	if len(c.base.Runs) > 1 {
		r.BaselineRuns = bv
	}
	for i := range c.cands {
		r.Candidates = append(r.Candidates, c.cell(m, known, bv, i))
	}
	return r
}

func ptr(v float64) *float64 { return &v }

func (c *comparer) cell(m analysis.Metric, known bool, bv []float64, ci int) Cell {
	cand := c.cands[ci]
	cv := metricValues(cand, m.ID)
	var cell Cell
	if len(cand.Runs) > 1 {
		cell.Runs = cv
	}
	if len(cv) > 0 {
		cell.Value = ptr(stats.Mean(cv))
	}
	switch {
	case len(bv) == 0 && len(cv) == 0:
		cell.Verdict, cell.Reason = Missing, "in neither side"
		return cell
	case len(bv) == 0:
		cell.Verdict, cell.Reason = Missing, "not in the baseline"
		return cell
	case len(cv) == 0:
		cell.Verdict, cell.Reason = Missing, "not in the candidate"
		return cell
	}
	b, v := stats.Mean(bv), stats.Mean(cv)
	d := v - b
	cell.Delta = ptr(d)
	if b != 0 {
		cell.DeltaPct = ptr(100 * d / math.Abs(b))
	}
	if why := incomparable(m, c.base, cand); why != "" {
		cell.Verdict, cell.Reason = NotComparable, why
		return cell
	}
	c.test(&cell, m, bv, cv, ci)

	pct, floor, ignore := c.opts.Thresholds.For(m.ID)
	switch {
	case !known:
		cell.Verdict, cell.Reason = NotJudged, "not in this cometlab's metric dictionary: better direction unknown"
		return cell
	case m.Better == analysis.Neutral:
		cell.Verdict, cell.Reason = NotJudged, "describes the run; neither direction is better"
		return cell
	case ignore:
		cell.Verdict, cell.Reason = NotJudged, "ignored by the thresholds file"
		return cell
	case m.Violation && d != 0:
		cell.Beyond, cell.Verdict, cell.Reason = true, Worse, "more safety violations: any increase is worse"
		if d < 0 {
			cell.Verdict, cell.Reason = Better, "fewer safety violations"
		}
		return cell
	}
	material := d != 0 && math.Abs(d) >= floor
	var beyond, within string
	if cell.Rate != nil {
		material, beyond, within = rateMaterial(*cell.Rate, pct)
		material = material && math.Abs(d) >= floor
		br, cr := cell.Rate.Rates()
		d = cr - br // the direction of the change is the rates'
	} else if cell.DeltaPct != nil {
		material = material && math.Abs(*cell.DeltaPct) >= pct
		beyond = fmt.Sprintf("%+.1f %% is beyond the %s %% threshold", *cell.DeltaPct, fmtNum(pct))
		within = fmt.Sprintf("within the %s %% threshold", fmtNum(pct))
	} else {
		beyond = "a change from a zero baseline (Δ % undefined)"
	}
	if floor > 0 {
		beyond += fmt.Sprintf(" and the floor of %s", fmtNum(floor))
		if within != "" {
			within += " or "
		}
		within += fmt.Sprintf("below the floor of %s", fmtNum(floor))
	}
	if zeroTolerance(m.ID) && allZero(bv) != allZero(cv) {
		cell.Verdict, cell.Beyond = Worse, true
		if d < 0 {
			cell.Verdict = Better
		}
		cell.Reason = "any panic, consensus failure or crash is an issue: judged without a threshold or a test"
		return cell
	}
	single := len(bv) == 1 && len(cv) == 1
	if !single && heavyTailed(m.ID) && cell.Rate == nil {
		cell.Verdict, cell.Beyond = NotJudged, material
		cell.Reason = "the extreme of each run (heavy-tailed): a t test over runs would call noise a change; reported, not judged"
		return cell
	}
	c.judge(&cell, m, d, material, beyond, within)
	if !single {
		if cell.P != nil {
			c.pending = append(c.pending, pending{cand: ci, m: m, key: dataKey(bv, cv), b: b, d: d, material: material,
				beyond: beyond, within: within, bv: bv, cv: cv, rate: c.rates[rateKey{m.ID, ci}]})
		}
		return cell
	}
	c.singleRun(&cell, m, ci, bv, cv, b, d, material, beyond, within)
	return cell
}

// lossCount says whether id counts transactions lost or duplicated: a
// healthy setup has none in any run, so host noise does not move it and
// the within-run test of a single run judges it.
// zeroTolerance reports whether metric id counts issues that no noise
// excuses (panics, consensus failures, crashes): when one side had none in
// every run and the other had some, the change is judged, in its
// direction, without a threshold or a test (counts on both sides are
// judged as any figure).
func zeroTolerance(id string) bool {
	return id == "log_panics" || id == "log_consensus_failures" || id == "node_exits"
}

// allZero reports whether every value of vs is 0.
func allZero(vs []float64) bool {
	for _, v := range vs {
		if v != 0 {
			return false
		}
	}
	return true
}

func lossCount(id string) bool { return id == "missing_txs" || id == "duplicate_txs" }

// noise returns the measured between-run noise of metric id, if any.
func (c *comparer) noise(id string) (NoiseMetric, bool) {
	if c.opts.Noise == nil {
		return NoiseMetric{}, false
	}
	nm, ok := c.opts.Noise.Metrics[id]
	return nm, ok
}
