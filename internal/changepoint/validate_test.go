package changepoint

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// noiseLevels are the between-run coefficients of variation measured on
// this machine (docs/measurements.md, "A/A calibration" and "v0.38.26
// against v0.40.0"), at which TestValidation replays injected shifts. A
// CV from an A/A is RMS(Δ %)/√2, the RMS being the single-run noise floor
// of 5 pairs divided by t(0.975; 5) = 2.571 where only the floor is given.
var noiseLevels = []struct {
	cv     float64
	figure string
}{
	{0.014, "committed tx/s, quiet A/A (floor 5.1 %)"},
	{0.035, "block latency mean, quiet A/A (floor 12.7 %); v0.40.0 repeats"},
	{0.040, "block latency mean, busy A/A (RMS Δ 5.7 %)"},
	{0.085, "block latency p99, worst of the repeats"},
}

// validationShifts are the injected relative shifts, as Hunter's paper
// replays them.
var validationShifts = []float64{0.02, 0.05, 0.10}

// validation holds the counts of one cell of TestValidation.
type validation struct {
	changes, reported, found int
}

// precision is the share of reported points that find an injected shift.
func (v validation) precision() float64 { return float64(v.found) / float64(max(v.reported, 1)) }

// recall is the share of injected shifts found.
func (v validation) recall() float64 { return float64(v.found) / float64(max(v.changes, 1)) }

// history returns n points of normal noise (CV cv) around a level that
// starts at 1000 and moves by ±rel (random sign) at the points shifts
// returns, and those points.
func history(r *rand.Rand, n int, cv, rel float64, shifts func(r *rand.Rand) []int) ([]float64, []int) {
	truth := shifts(r)
	xs := make([]float64, n)
	level, k := 1000.0, 0
	for i := range xs {
		if k < len(truth) && i == truth[k] {
			level *= 1 + rel*float64(1-2*r.IntN(2))
			k++
		}
		xs[i] = level * (1 + cv*r.NormFloat64())
	}
	return xs, truth
}

// spread returns shifts 20 to 60 points apart (the first 20 to 60 points
// in), none in the last 20 of n points.
func spread(n int) func(r *rand.Rand) []int {
	return func(r *rand.Rand) []int {
		var at []int
		for i := 20 + r.IntN(41); i <= n-20; i += 20 + r.IntN(41) {
			at = append(at, i)
		}
		return at
	}
}

// validate runs Detect on series histories and counts what it finds: an
// injected shift is found by the nearest reported point within tol points
// not already taken; a reported point that finds none is a false one.
func validate(t *testing.T, series, n int, cv, rel float64, tol int, shifts func(r *rand.Rand) []int) validation {
	var v validation
	for s := range uint64(series) {
		r := rand.New(rand.NewPCG(s, math.Float64bits(rel)^math.Float64bits(cv)^uint64(n)))
		xs, truth := history(r, n, cv, rel, shifts)
		got, err := Detect(xs, DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		taken := make([]bool, len(got))
		for _, at := range truth {
			best := -1
			for j, p := range got {
				if !taken[j] && abs(p.Index-at) <= tol && (best < 0 || abs(p.Index-at) < abs(got[best].Index-at)) {
					best = j
				}
			}
			if best >= 0 {
				taken[best] = true
				v.found++
			}
		}
		v.changes += len(truth)
		v.reported += len(got)
	}
	return v
}

// TestValidation replays histories of 200 runs with shifts of 2, 5 and
// 10 % injected at this machine's noise levels (noiseLevels) and reports
// Detect's precision and recall with the default config, placed within
// ±3 and ±10 points; then how soon a 5 % and a 10 % shift are found: the
// recall of one shift k points before the end of 100. go test -v prints
// the tables (bench/changepoint.sh runs it); -short replays 100
// histories per cell instead of 500. It asserts loose bounds: at 10 %
// shifts in at most 4 % noise, precision and recall (±3) ≥ 0.9.
func TestValidation(t *testing.T) {
	series := 500
	if testing.Short() {
		series = 100
	}
	const n = 200
	var b strings.Builder
	for _, tol := range []int{3, 10} {
		fmt.Fprintf(&b, "\nPrecision / recall, a shift found within ±%d points (%d histories of %d points per cell, shifts 20–60 points apart):\n\n", tol, series, n)
		b.WriteString("| noise (CV) | measured on | 2 % shift | 5 % shift | 10 % shift |\n|---:|---|---:|---:|---:|\n")
		for _, level := range noiseLevels {
			fmt.Fprintf(&b, "| %.1f %% | %s |", 100*level.cv, level.figure)
			for _, rel := range validationShifts {
				v := validate(t, series, n, level.cv, rel, tol, spread(n))
				fmt.Fprintf(&b, " %.2f / %.2f |", v.precision(), v.recall())
				if tol == 3 && rel >= 0.10 && level.cv <= 0.04 && (v.precision() < 0.9 || v.recall() < 0.9) {
					t.Errorf("%.0f %% shift in %.1f %% noise: precision %.2f, recall %.2f (±%d); want ≥ 0.9", 100*rel, 100*level.cv, v.precision(), v.recall(), tol)
				}
			}
			b.WriteString("\n")
		}
	}
	tails := []int{3, 5, 10, 20}
	fmt.Fprintf(&b, "\nRecall of one shift k points before the end of a history of 100 (within ±3; %d histories per cell):\n\n", series)
	b.WriteString("| noise (CV) | shift |")
	for _, k := range tails {
		fmt.Fprintf(&b, " k = %d |", k)
	}
	b.WriteString("\n|---:|---:|" + strings.Repeat("---:|", len(tails)) + "\n")
	for _, level := range noiseLevels {
		for _, rel := range validationShifts[1:] {
			fmt.Fprintf(&b, "| %.1f %% | %.0f %% |", 100*level.cv, 100*rel)
			for _, k := range tails {
				v := validate(t, series, 100, level.cv, rel, 3, func(*rand.Rand) []int { return []int{100 - k} })
				fmt.Fprintf(&b, " %.2f |", v.recall())
			}
			b.WriteString("\n")
		}
	}
	t.Log(b.String())
}
