package results

import (
	"path/filepath"
	"time"
)

// Files and directories of a QA directory (cometlab qa: qa/<UTC time>/).
const (
	QAFile       = "qa.json" // the QA's record: the plan, each step's status, runs and verdicts
	QAReportFile = "qa.md"   // the QA report
	QAHTMLFile   = "qa.html" // the same report as one self-contained HTML file
	// QATestsDir holds one directory per step (tests/<step>/): a
	// saturation search and grid per side (tests/saturation/<side>/search,
	// …/grid), an A/B directory per compared test, a run directory for
	// the rolling upgrade, a sweep for the vote-extension sweep.
	QATestsDir = "tests"
	// QASearchDir and QAGridDir are a side's saturation search and grid
	// under tests/saturation/<side>/.
	QASearchDir = "search"
	QAGridDir   = "grid"
)

// Statuses of a QA step (QAStep.Status), besides the run statuses
// running, complete (done) and failed.
const (
	QAPending     = "pending"
	QADone        = "done"
	QASkipped     = "skipped"     // skipped by --skip or because the lines cannot do it
	QANotBuilt    = "not_built"   // a step of the method this cometlab does not run yet
	QAInterrupted = "interrupted" // stopped by Ctrl-C; --resume runs it again
)

// Verdicts of a QA test (QAStep.Verdict) and of the whole QA.
const (
	QAVerdictPass       = "pass"
	QAVerdictRegression = "regression"
	QAVerdictUnsafe     = "unsafe"     // a run broke safety
	QAVerdictFailed     = "failed"     // the step could not run to its end
	QAVerdictNotJudged  = "not_judged" // a step with no baseline to judge against (the vote-extension sweep)
)

// QARecord is qa.json: what the QA was asked to do (its plan), how far
// it got and what it found. It is rewritten atomically before and after
// every step (and every run of a step, by the step's own record), so that
// a killed QA leaves it readable and --resume continues from it.
type QARecord struct {
	Kind            string    `json:"kind"`   // "qa"
	Status          string    `json:"status"` // running, complete, interrupted, failed
	CometlabVersion string    `json:"cometlab_version"`
	Created         time.Time `json:"created"`
	Updated         time.Time `json:"updated"`
	Command         string    `json:"command,omitempty"`
	Host            Host      `json:"host"`
	// Baseline and Candidate are the specs as written; Labels name the
	// sides (baseline first), each with its resolved manifest in
	// manifests/<label>.toml; Testnets describe them.
	Baseline  string        `json:"baseline"`
	Candidate string        `json:"candidate"`
	Labels    []string      `json:"labels"`
	Testnets  []TestnetInfo `json:"testnets"`
	// ThresholdPct is the regression threshold (--threshold), Alpha the
	// significance level.
	ThresholdPct float64 `json:"threshold_pct"`
	Alpha        float64 `json:"alpha"`
	Plan         QAPlan  `json:"plan"`
	// Load is the QA load once the saturation step chose it.
	Load  *QALoad  `json:"load,omitempty"`
	Steps []QAStep `json:"steps"`
	// Verdict is the QA's: unsafe, regression, failed (a step failed),
	// pass; "" while it runs.
	Verdict  string  `json:"verdict,omitempty"`
	ElapsedS float64 `json:"elapsed_s"`
	// AnalyzedBy is the cometlab (its version: the module's, or the
	// commit it was built from) that last analysed the QA's runs and
	// judged them (cometlab report QA_DIR), at AnalyzedAt; "" when only
	// the QA run itself did (CometlabVersion).
	AnalyzedBy string    `json:"analyzed_by,omitempty"`
	AnalyzedAt time.Time `json:"analyzed_at,omitzero"`
}

// QAPlan is every run the QA makes and the time it takes, as planned
// before the first run (pure: qa/plan.Make).
type QAPlan struct {
	Steps []QAPlanStep `json:"steps"`
	// DurationS is the manifest's run length; LongDurationS the long
	// test's (the same, or an hour with --long, or less under a budget).
	DurationS     float64 `json:"duration_s"`
	LongDurationS float64 `json:"long_duration_s"`
	// Repeat is the long test's rounds; ScenarioRepeat the rounds of the
	// other compared tests (rotation, partition, absent stake).
	Repeat         int  `json:"repeat"`
	ScenarioRepeat int  `json:"scenario_repeat"`
	Long           bool `json:"long,omitempty"`
	// Connections and Factors are each side's saturation grid: c, and r
	// as factors of the knee its search found.
	Connections []int     `json:"connections"`
	Factors     []float64 `json:"factors"`
	SearchRuns  int       `json:"search_runs"`
	// VoteExtensionSizes are the sizes (bytes) the vote-extension sweep
	// runs (0: the app's default 8-byte extension).
	VoteExtensionSizes []int `json:"vote_extension_sizes,omitempty"`
	// StorageParams are the storage matrix's swept settings (each value
	// of each, crossed) and StorageDurationS its runs' length: the
	// manifest's, or an hour with --long.
	StorageParams    []SweepParam `json:"storage_params,omitempty"`
	StorageDurationS float64      `json:"storage_duration_s,omitempty"`
	// OverheadS is the time a run takes besides its load (start-up,
	// drain, read-back, stop), and OverheadFrom where it comes from.
	OverheadS    float64 `json:"overhead_s"`
	OverheadFrom string  `json:"overhead_from"`
	EstimateS    float64 `json:"estimate_s"`
	BudgetS      float64 `json:"budget_s,omitempty"`
	// GaveUp says what the budget shrank, in order.
	GaveUp []string `json:"gave_up,omitempty"`
}

// QAPlanStep is one step of the plan: its runs, or why it does not run.
type QAPlanStep struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// Skip is why the step does not run ("" when it runs); NotBuilt marks
	// a step of the method this cometlab does not run yet.
	Skip     string      `json:"skip,omitempty"`
	NotBuilt bool        `json:"not_built,omitempty"`
	Runs     []QAPlanRun `json:"runs,omitempty"`
	// EstimateS is the step's time: its runs' durations plus the overhead
	// of each.
	EstimateS float64 `json:"estimate_s"`
}

// QAPlanRun is a group of alike runs of a step.
type QAPlanRun struct {
	Side      string   `json:"side"` // a label, or "both"
	What      string   `json:"what"`
	Changes   []string `json:"changes,omitempty"` // key=value on the side's manifest
	Count     int      `json:"count"`
	DurationS float64  `json:"duration_s"`
	// MaxCount is the most runs when Count is an estimate (a search).
	MaxCount int `json:"max_count,omitempty"`
}

// QALoad is the QA load and the rule that chose it.
type QALoad struct {
	Connections int     `json:"connections"`
	Rate        float64 `json:"rate"` // tx/s per connection
	Rule        string  `json:"rule"`
}

// QAStep is one step of the QA as it ran.
type QAStep struct {
	ID      string    `json:"id"`
	Status  string    `json:"status"` // QAPending, running, QADone, failed, QASkipped, QANotBuilt, QAInterrupted
	Error   string    `json:"error,omitempty"`
	Started time.Time `json:"started,omitzero"`
	Ended   time.Time `json:"ended,omitzero"`
	// Dirs are the step's series directories (relative to the QA
	// directory): a search, a grid, an A/B directory, a run directory.
	Dirs []string `json:"dirs,omitempty"`
	// Verdict is the test's (QAVerdict…); Summary says it in a phrase.
	Verdict string     `json:"verdict,omitempty"`
	Summary string     `json:"summary,omitempty"`
	Figures []QAFigure `json:"figures,omitempty"`
	// RoundsBudget is the most rounds a compared test could run to decide
	// its figures beyond the rule: the sequential rule's horizon, which a
	// report made again judges by too (0 in records before it was kept).
	RoundsBudget int `json:"rounds_budget,omitempty"`
}

// QAFigure is one figure of a compared test: the sides' values with
// their n, the change (Δ, Δ %), its interval and p, the method's 10 %
// rule and significance each in a word, and the QA verdict
// (compare.QAVerdict).
type QAFigure struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Unit     string `json:"unit"`
	Headline bool   `json:"headline,omitempty"`
	// Baseline and Candidate are the means over each side's runs, NBase
	// and NCand the runs that have the figure.
	Baseline  *float64 `json:"baseline"`
	Candidate *float64 `json:"candidate"`
	NBase     int      `json:"n_base,omitempty"`
	NCand     int      `json:"n_cand,omitempty"`
	// Delta is candidate − baseline (the unit's), DeltaPct 100·Δ/|baseline|.
	Delta    *float64 `json:"delta,omitempty"`
	DeltaPct *float64 `json:"delta_pct"`
	// CILo … CIHi is the interval of Δ (at the comparison's confidence,
	// Bonferroni-widened with Holm's correction); P the test's p-value
	// (Holm-adjusted where Test says so).
	CILo *float64 `json:"ci_lo,omitempty"`
	CIHi *float64 `json:"ci_hi,omitempty"`
	P    *float64 `json:"p,omitempty"`
	Test string   `json:"test,omitempty"`
	// Rate is the evidence of a count figure judged as a rate (its Δ %
	// and interval are the rate ratio's, not the per-run means').
	Rate *Rate `json:"rate,omitempty"`
	// Rule is the method's 10 % rule as published, in a word ("over",
	// "within", "" when not judged); Significance the test's
	// ("significant", "not significant", "untested", "").
	Rule         string `json:"rule,omitempty"`
	Significance string `json:"significance,omitempty"`
	Verdict      string `json:"verdict"`
	Reason       string `json:"reason,omitempty"`
	// UndecidedAfter is the rounds after which an undecided figure (over
	// the threshold, not significant) was left undecided, the budget of
	// rounds spent; 0 while more rounds may decide it.
	UndecidedAfter int `json:"undecided_after,omitempty"`
}

// Rate is the evidence of a count figure judged as a rate (compare's
// count figures: slow heights per height, rejected transactions per sent
// transaction): each side's events and exposure summed over its runs, and
// the ratio of the candidate's rate to the baseline's with its interval.
type Rate struct {
	// Per names the unit of exposure ("height", "sent tx"); Exposure is
	// the dictionary id of the figure it is read from.
	Per      string `json:"per"`
	Exposure string `json:"exposure"`
	// BaseCount events over BaseExposure, CandCount over CandExposure.
	BaseCount    float64 `json:"base_count"`
	BaseExposure float64 `json:"base_exposure"`
	CandCount    float64 `json:"cand_count"`
	CandExposure float64 `json:"cand_exposure"`
	// Ratio is the candidate's rate ÷ the baseline's, nil when the
	// baseline's rate is 0; Lo and Hi its interval, Hi nil when it is
	// unbounded; Dispersion the runs' Pearson dispersion φ̂ (1: none
	// measured, or no more than Poisson counts vary).
	Ratio      *float64 `json:"ratio,omitempty"`
	Lo         *float64 `json:"ratio_lo,omitempty"`
	Hi         *float64 `json:"ratio_hi,omitempty"`
	Dispersion float64  `json:"dispersion"`
}

// DeltaPct is the change of the rate, 100·(ratio − 1) %; ok is false when
// the baseline's rate is 0.
func (r Rate) DeltaPct() (float64, bool) {
	if r.Ratio == nil {
		return 0, false
	}
	return 100 * (*r.Ratio - 1), true
}

// Rates are the sides' rates per unit of exposure (events ÷ exposure).
func (r Rate) Rates() (base, cand float64) {
	return r.BaseCount / r.BaseExposure, r.CandCount / r.CandExposure
}

// Step returns the step of id, or nil.
func (r *QARecord) Step(id string) *QAStep {
	for i := range r.Steps {
		if r.Steps[i].ID == id {
			return &r.Steps[i]
		}
	}
	return nil
}

// PlanStep returns the planned step of id, or nil.
func (p *QAPlan) PlanStep(id string) *QAPlanStep {
	for i := range p.Steps {
		if p.Steps[i].ID == id {
			return &p.Steps[i]
		}
	}
	return nil
}

// ReadQA reads dir/qa.json.
func ReadQA(dir string) (QARecord, error) {
	var r QARecord
	err := ReadJSON(filepath.Join(dir, QAFile), &r)
	return r, err
}
