package history

import (
	"math"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/saturation"
	"github.com/cometlab/cometlab/internal/stats"
)

// Verdicts of a gate as a whole.
const (
	GatePass         = "pass"         // no judged figure is worse
	GateRegression   = "regression"   // a judged figure is worse
	GateInsufficient = "insufficient" // too few runs before to judge any figure
)

// Verdicts of one figure of a gate.
const (
	FigureWorse    = "worse"     // worse beyond the magnitude, and significant
	FigureBetter   = "better"    // better beyond the magnitude, and significant
	FigureNoChange = "no_change" // within the magnitude, or not significant
	FigureTooFew   = "too_few"   // fewer than MinRuns earlier runs have it
)

// GateConfig is the gate's rule: a figure is worse when the new runs'
// mean is worse than the history's mean (the dictionary's direction) by
// more than MinDelta = max(Floor(history), ThresholdPct % of the history's
// mean), and the difference is significant, p ≤ Alpha: one-sided, t =
// |Δ| / (sd·√(1/n + 1/m)) with n − 1 degrees of freedom, n earlier runs
// and m new ones (for one new run, the prediction interval of the next
// observation).
type GateConfig struct {
	Alpha        float64 `json:"alpha"`
	ThresholdPct float64 `json:"threshold_pct"`
	MinRuns      int     `json:"min_runs"`
	// Figures are the figures judged, in order (those the new runs lack
	// are left out); neutral ones are never judged.
	Figures []string `json:"figures"`
	// Floor is the series' noise floor; nil: none.
	Floor NoiseFloor `json:"-"`
	// Detect, when given, finds the history's change points: only the
	// runs since the last one are the history a figure is judged against.
	Detect Detector `json:"-"`
}

// DefaultGate is the rule by default: p ≤ 0.001, at least 5 % of the
// history's mean, at least 3 earlier runs, DefaultGateFigures.
func DefaultGate() GateConfig {
	return GateConfig{Alpha: 0.001, ThresholdPct: 5, MinRuns: 3, Figures: DefaultGateFigures()}
}

// DefaultGateFigures are the figures a gate judges by default: the
// headline figures of a run (throughput, latency, adoption, footprint),
// of a sweep and of a search. Counts that are nearly always 0 (rejected,
// missing, slow heights) are left out: one event in a run would be
// "significant" against a history of zeros. Safety has its own exit code.
func DefaultGateFigures() []string {
	return []string{
		"committed_tps", "throughput_ratio", "tps_mean",
		"block_latency_mean_ms", "block_latency_p50_ms", "block_latency_p90_ms", "block_latency_p99_ms",
		"observed_latency_p50_ms", "observed_latency_p99_ms",
		"adoption_p50_ms", "rss_max_mib", "cpu_mean_pct",
		"saturation_tps", "saturation_diagonal_tps", "saturated_tps",
	}
}

// JudgedFigures are every figure a gate can judge: the dictionary's
// (runs', sweeps', searches') that are not neutral.
func JudgedFigures() []string {
	var ids []string
	for _, m := range append(analysis.Dictionary(), saturation.Dictionary()...) {
		if m.Better != analysis.Neutral && !m.PerPerturbation {
			ids = append(ids, m.ID)
		}
	}
	return ids
}

// Judgement is one figure of a gate.
type Judgement struct {
	Figure string `json:"figure"`
	Title  string `json:"title"`
	Unit   string `json:"unit"`
	Better string `json:"better"` // higher or lower
	// N earlier runs, their mean and sample standard deviation.
	N    int     `json:"n"`
	Mean float64 `json:"mean"`
	SD   float64 `json:"sd"`
	// M new runs and their mean.
	M   int     `json:"m"`
	New float64 `json:"new"`
	// Delta is New − Mean; DeltaPct the same in % of Mean (absent when
	// Mean is 0).
	Delta    float64  `json:"delta"`
	DeltaPct *float64 `json:"delta_pct,omitempty"`
	// MinDelta is the magnitude a change must exceed; P the one-sided
	// p-value of a change of Delta's sign.
	MinDelta float64 `json:"min_delta"`
	P        float64 `json:"p"`
	// Since is how many earlier runs were left out, before the history's
	// last change point.
	Since   int    `json:"since,omitempty"`
	Verdict string `json:"verdict"`
}

// GateResult is a gate's decision.
type GateResult struct {
	SeriesID string    `json:"series_id"`
	Series   SeriesKey `json:"series"`
	// Targets are the new runs' directories; History is how many earlier
	// runs of the series there were.
	Targets []string    `json:"targets"`
	Release string      `json:"release,omitempty"`
	Label   string      `json:"label,omitempty"`
	History int         `json:"history"`
	Config  GateConfig  `json:"config"`
	Judged  []Judgement `json:"judged"`
	Verdict string      `json:"verdict"`
}

// Judge judges the new runs targets (one series, their values averaged)
// against the earlier runs history of their series, oldest first, by
// cfg. It is pure.
func Judge(history, targets []Run, cfg GateConfig) GateResult {
	res := GateResult{Config: cfg, History: len(history), Judged: []Judgement{}, Verdict: GateInsufficient}
	if len(targets) > 0 {
		res.Series = targets[0].Series()
		res.SeriesID = res.Series.ID()
		res.Release, res.Label = targets[0].Release, targets[0].Label
	}
	for _, t := range targets {
		res.Targets = append(res.Targets, t.Dir)
	}
	judged := false
	for _, id := range cfg.Figures {
		m, ok := Lookup(id)
		if !ok || m.Better == analysis.Neutral {
			continue
		}
		ys := values(targets, id)
		if len(ys) == 0 {
			continue
		}
		j := judgeFigure(m, values(history, id), ys, cfg)
		res.Judged = append(res.Judged, j)
		switch j.Verdict {
		case FigureTooFew:
		case FigureWorse:
			judged = true
			res.Verdict = GateRegression
		default:
			judged = true
		}
	}
	if judged && res.Verdict != GateRegression {
		res.Verdict = GatePass
	}
	return res
}

// judgeFigure judges one figure: xs earlier values (oldest first), ys new.
func judgeFigure(m analysis.Metric, xs, ys []float64, cfg GateConfig) Judgement {
	j := Judgement{Figure: m.ID, Title: m.Title, Unit: m.Unit, Better: m.Better.String(), M: len(ys), New: stats.Mean(ys), P: 1}
	if cfg.Detect != nil && len(xs) >= cfg.MinRuns {
		last := 0
		for _, cp := range cfg.Detect(xs) {
			last = max(last, cp.Index)
		}
		if last > 0 && last < len(xs) {
			j.Since, xs = last, xs[last:]
		}
	}
	j.N = len(xs)
	if j.N < max(cfg.MinRuns, 2) {
		j.Verdict = FigureTooFew
		if j.N > 0 {
			j.Mean = stats.Mean(xs)
		}
		return j
	}
	j.Mean, j.SD = stats.Mean(xs), stats.StdDev(xs)
	j.Delta = j.New - j.Mean
	if j.Mean != 0 {
		pct := 100 * j.Delta / math.Abs(j.Mean)
		j.DeltaPct = &pct
	}
	j.MinDelta = cfg.ThresholdPct / 100 * math.Abs(j.Mean)
	if cfg.Floor != nil {
		if f := cfg.Floor(xs); f > j.MinDelta && !math.IsInf(f, 0) && !math.IsNaN(f) {
			j.MinDelta = f
		}
	}
	se := j.SD * math.Sqrt(1/float64(j.N)+1/float64(j.M))
	switch {
	case j.Delta == 0:
		j.P = 1
	case se == 0:
		j.P = 0
	default:
		j.P = stats.TSurvival(math.Abs(j.Delta)/se, float64(j.N-1))
	}
	j.Verdict = FigureNoChange
	if math.Abs(j.Delta) > j.MinDelta && j.P <= cfg.Alpha {
		worse := (m.Better == analysis.HigherIsBetter) == (j.Delta < 0)
		j.Verdict = FigureBetter
		if worse {
			j.Verdict = FigureWorse
		}
	}
	return j
}

// values are the runs' values of the figure id, in order, where they
// have it.
func values(runs []Run, id string) []float64 {
	var xs []float64
	for _, r := range runs {
		if f, ok := r.Figures[id]; ok && !math.IsNaN(f.Value) && !math.IsInf(f.Value, 0) {
			xs = append(xs, f.Value)
		}
	}
	return xs
}
