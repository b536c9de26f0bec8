package compare

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/stats"
)

// Noise is the between-run noise of one setup, measured by an A/A
// experiment (`cometlab ab --aa`: the same spec on both sides, pair after
// pair) and kept in noise.json. Given to a comparison of single runs
// (`compare --noise`), it is the evidence a single run cannot give about
// itself: how much a figure moves from one run to the next on this host
// with nothing changed. A test inside one run (the bootstrap over its
// transactions) cannot see a busier host, and calls such moves changes.
type Noise struct {
	// Spec is what ran on both sides; Pairs the number of A/A pairs.
	Spec  string  `json:"spec"`
	Pairs int     `json:"pairs"`
	Alpha float64 `json:"alpha"`
	// Metrics by dictionary id.
	Metrics map[string]NoiseMetric `json:"metrics"`
	// FalseAlarms are the false alarms observed over the pairs (each pair
	// compared as two single runs), with the within-run evidence
	// (Before) and against the noise of the other pairs (After).
	FalseAlarms *FalseAlarms `json:"false_alarms,omitempty"`
	// Position is the position effect of the main metrics: how the second
	// run of a round differed from the first (see PositionEffects).
	Position []PositionEffect `json:"position,omitempty"`
}

// NoiseMetric is one metric's between-run noise. Differences are
// candidate − baseline of a pair, relative to the pair's baseline as
// compare's Δ % is.
type NoiseMetric struct {
	Pairs int     `json:"pairs"` // pairs with a value on both sides
	Mean  float64 `json:"mean"`  // over every run of both sides
	// CVPct is the between-run coefficient of variation of a single run's
	// value, 100·SD/|mean| over every run of both sides.
	CVPct float64 `json:"cv_pct"`
	// DiffRMSPct is the root mean square of the pairs' Δ %, DiffRMS of
	// their Δ: the spread of the difference between two single runs of
	// the same setup (the mean difference is 0 by design, so the RMS
	// about 0 has Pairs degrees of freedom). RelPairs counts the pairs
	// whose baseline was not 0 (those with a Δ %).
	DiffRMSPct float64 `json:"diff_rms_pct"`
	DiffRMS    float64 `json:"diff_rms"`
	RelPairs   int     `json:"rel_pairs"`
	// FloorPct is the noise floor of a single-run comparison: the
	// smallest |Δ %| that compare calls significant at Alpha,
	// t(1−α/2; Pairs)·DiffRMSPct.
	FloorPct float64 `json:"floor_pct"`
	// MDEPct is the smallest change an A/B of the same number of pairs
	// detects with 80 % power (paired t test at Alpha):
	// (t(1−α/2; n−1) + t(0.8; n−1))·SD(Δ %)/√n.
	MDEPct float64 `json:"mde_pct"`
}

// FalseAlarms counts, over the pairs of an A/A experiment, the pairs in
// which a single-run comparison called some metric worse or better, and
// per metric.
type FalseAlarms struct {
	Pairs           int            `json:"pairs"`
	Before          int            `json:"before"` // pairs with any metric flagged by the within-run evidence
	After           int            `json:"after"`  // pairs with any metric flagged against the noise of the other pairs
	Judged          int            `json:"judged"` // metrics judged per pair (the denominator of the per-metric rates)
	PerMetricBefore map[string]int `json:"per_metric_before,omitempty"`
	PerMetricAfter  map[string]int `json:"per_metric_after,omitempty"`
}

// RateBefore and RateAfter are the fractions of pairs with a false alarm.
func (f FalseAlarms) RateBefore() float64 { return ratio(f.Before, f.Pairs) }

// RateAfter is the fraction of pairs with a false alarm against the noise.
func (f FalseAlarms) RateAfter() float64 { return ratio(f.After, f.Pairs) }

// MetricRates are the mean per-metric false-alarm rates (a metric-pair
// flagged, over every judged metric and pair).
func (f FalseAlarms) MetricRates() (before, after float64) {
	sum := func(m map[string]int) (s int) {
		for _, v := range m {
			s += v
		}
		return s
	}
	return ratio(sum(f.PerMetricBefore), f.Pairs*f.Judged), ratio(sum(f.PerMetricAfter), f.Pairs*f.Judged)
}

func ratio(a, b int) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

// MeasureNoise computes the noise of every dictionary metric that is not
// neutral from A/A pairs: base[i] and cand[i] ran the same spec in pair i.
// Metrics with fewer than 2 pairs are left out.
func MeasureNoise(spec string, base, cand []Run, alpha float64) Noise {
	if alpha <= 0 {
		alpha = DefaultAlpha
	}
	n := min(len(base), len(cand))
	out := Noise{Spec: spec, Pairs: n, Alpha: alpha, Metrics: map[string]NoiseMetric{}}
	for _, dm := range analysis.Dictionary() {
		if dm.Better == analysis.Neutral {
			continue
		}
		var all, rel, abs []float64
		for i := range n {
			b, okB := finite(base[i].Metrics, dm.ID)
			c, okC := finite(cand[i].Metrics, dm.ID)
			if !okB || !okC {
				continue
			}
			all = append(all, b, c)
			abs = append(abs, c-b)
			if b != 0 {
				rel = append(rel, 100*(c-b)/math.Abs(b))
			}
		}
		if len(abs) < 2 {
			continue
		}
		m := NoiseMetric{Pairs: len(abs), Mean: stats.Mean(all), DiffRMS: stats.RMS(abs), RelPairs: len(rel)}
		if m.Mean != 0 {
			m.CVPct = 100 * math.Sqrt(stats.Variance(all)) / math.Abs(m.Mean)
		}
		if len(rel) == len(abs) {
			m.DiffRMSPct = stats.RMS(rel)
			m.FloorPct = stats.TQuantile(1-alpha/2, float64(len(rel))) * m.DiffRMSPct
			df := float64(len(rel) - 1)
			m.MDEPct = (stats.TQuantile(1-alpha/2, df) + stats.TQuantile(0.8, df)) * math.Sqrt(stats.Variance(rel)) / math.Sqrt(float64(len(rel)))
		}
		out.Metrics[dm.ID] = m
	}
	return out
}

func finite(ms map[string]float64, id string) (float64, bool) {
	v, ok := ms[id]
	return v, ok && !math.IsNaN(v) && !math.IsInf(v, 0)
}

// noiseTest judges a single-run Δ against the metric's noise: Δ/RMS
// follows Student's t with Pairs degrees of freedom when nothing changed.
// It uses Δ % when the metric's noise is relative and Δ % exists, the
// absolute Δ otherwise; ok is false when the noise cannot judge it.
func noiseTest(nm NoiseMetric, b, d float64, conf float64) (iv Interval, p float64, test string, ok bool) {
	scale, df, test, ok := noiseScale(nm, b)
	if !ok {
		return Interval{}, 0, "", false
	}
	if scale == 0 {
		p = 1
		if d != 0 {
			p = 0
		}
		return Interval{Lo: d, Hi: d}, p, test, true
	}
	half := stats.TQuantile(1-(1-conf)/2, df) * scale
	return Interval{Lo: d - half, Hi: d + half}, 2 * (1 - stats.TCDF(math.Abs(d)/scale, df)), test, true
}

// noiseScale returns the spread of a single-run Δ when nothing changed
// (in the metric's unit, for a baseline b), its degrees of freedom and
// the test's name; ok is false when the noise cannot judge the metric.
func noiseScale(nm NoiseMetric, b float64) (scale, df float64, test string, ok bool) {
	switch {
	case nm.RelPairs == nm.Pairs && nm.RelPairs >= 2 && b != 0:
		return nm.DiffRMSPct / 100 * math.Abs(b), float64(nm.RelPairs),
			fmt.Sprintf("against the A/A noise (%d pairs: Δ %% RMS %.2g %%)", nm.RelPairs, nm.DiffRMSPct), true
	case nm.Pairs >= 2:
		return nm.DiffRMS, float64(nm.Pairs), fmt.Sprintf("against the A/A noise (%d pairs: Δ RMS %.3g)", nm.Pairs, nm.DiffRMS), true
	}
	return 0, 0, "", false
}

// ReadNoise reads a noise.json.
func ReadNoise(path string) (*Noise, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var n Noise
	if err := json.Unmarshal(b, &n); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if n.Metrics == nil {
		return nil, fmt.Errorf("%s: no \"metrics\": not a noise.json of cometlab ab --aa", path)
	}
	return &n, nil
}

// WriteNoise writes n as indented JSON.
func WriteNoise(path string, n Noise) error {
	b, err := json.MarshalIndent(n, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// CountFalseAlarms compares every A/A pair as two single runs, with
// opts (thresholds, seed) and, for the after count, the noise measured
// on the other pairs (leave one out, so that a pair is never judged
// against its own difference), and counts the pairs and metrics called
// worse or better.
func CountFalseAlarms(spec string, base, cand []Run, opts Options) (FalseAlarms, error) {
	n := min(len(base), len(cand))
	fa := FalseAlarms{Pairs: n, PerMetricBefore: map[string]int{}, PerMetricAfter: map[string]int{}}
	for i := range n {
		ob, oc := slices.Delete(slices.Clone(base[:n]), i, i+1), slices.Delete(slices.Clone(cand[:n]), i, i+1)
		loo := MeasureNoise(spec, ob, oc, opts.Thresholds.Alpha)
		o := opts
		o.Noise = &loo
		res, err := Sides(Side{Label: "a", Runs: base[i : i+1]}, []Side{{Label: "b", Runs: cand[i : i+1]}}, o)
		if err != nil {
			return fa, err
		}
		before, after, judged := false, false, 0
		for _, r := range res.Metrics {
			c := r.Candidates[0]
			if c.Verdict == NotJudged || c.Verdict == Missing || c.Verdict == NotComparable {
				continue
			}
			judged++
			if changed(c.WithinRun) {
				before = true
				fa.PerMetricBefore[r.ID]++
			}
			if changed(c.Verdict) {
				after = true
				fa.PerMetricAfter[r.ID]++
			}
		}
		fa.Judged = max(fa.Judged, judged)
		if before {
			fa.Before++
		}
		if after {
			fa.After++
		}
	}
	return fa, nil
}

func changed(v Verdict) bool { return v == Worse || v == Better }
