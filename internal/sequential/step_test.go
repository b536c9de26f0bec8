package sequential

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// simulate runs one sequential experiment: pair by pair, the base draws
// N(mu, (cv·mu)²) and the candidate N(mu·(1+effect), (cv·mu)²), until
// Step says stop. It returns the final decision of the one metric.
func simulate(r *rand.Rand, cfg Config, mu, cv, effect, thresholdPct float64) Result {
	m := Metric{ID: "m", Better: LowerIsBetter, ThresholdPct: thresholdPct}
	for {
		m.Base = append(m.Base, mu+r.NormFloat64()*cv*mu)
		m.Cand = append(m.Cand, mu*(1+effect)+r.NormFloat64()*cv*mu)
		d, err := Step(cfg, []Metric{m})
		if err != nil {
			panic(err)
		}
		if d.Stop {
			return d.Metrics[0]
		}
	}
}

func TestStepSimulated(t *testing.T) {
	cases := []struct {
		name         string
		cfg          Config
		cv, effect   float64 // noise (CV of one run) and true change
		thresholdPct float64
		want         Outcome
		maxPairs     int // the decision comes at most this late
		minPairs     int // … and at least this late
		failures     int // seeds of 20 allowed to miss (a false alarm has probability ≤ α)
	}{
		{"large effect stops early", Config{MaxPairs: 10}, 0.03, 0.5, 10, Worse, 5, 2, 0},
		{"large improvement stops early", Config{MaxPairs: 10}, 0.03, -0.5, 10, Better, 5, 2, 0},
		{"large effect, Pocock", Config{MaxPairs: 10, Spending: Pocock}, 0.03, 0.5, 10, Worse, 4, 2, 0},
		{"null, small noise: equivalent early", Config{MaxPairs: 10}, 0.01, 0, 10, Equivalent, 5, 2, 0},
		{"null, noise above the threshold: to the budget", Config{MaxPairs: 8}, 0.3, 0, 10, Undecided, 8, 8, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			missed := 0
			for seed := range uint64(20) {
				r := rand.New(rand.NewPCG(seed, 1))
				got := simulate(r, c.cfg, 1000, c.cv, c.effect, c.thresholdPct)
				at := got.DecidedAt
				if got.Outcome == Undecided {
					at = got.Pairs
				}
				if got.Outcome != c.want || at > c.maxPairs || at < c.minPairs {
					if missed++; missed <= c.failures {
						continue
					}
					t.Errorf("seed %d: %v after %d pairs (p %.3g at level %.3g, Δ %.1f, θ %.1f); want %v within %d…%d pairs",
						seed, got.Outcome, at, got.P, got.Level, got.MeanDiff, got.Threshold, c.want, c.minPairs, c.maxPairs)
				}
			}
		})
	}
}

// TestFalseAlarmRate runs many simulated A/A experiments, with no
// threshold (every significant difference counts) so that nothing stops
// them but a false alarm or the budget, and checks that the share called
// worse or better stays at or below α. It logs, for contrast, the rate of
// the naive rule that tests at α at every look.
func TestFalseAlarmRate(t *testing.T) {
	const experiments = 2000
	for _, sp := range []Spending{OBrienFleming, Pocock} {
		for _, alpha := range []float64{0.05, 0.10} {
			cfg := Config{Alpha: alpha, MaxPairs: 10, Spending: sp}
			r := rand.New(rand.NewPCG(42, uint64(alpha*100)))
			alarms, naive := 0, 0
			for range experiments {
				m := Metric{ID: "m", Better: LowerIsBetter}
				naiveAlarm := false
				for i := range cfg.MaxPairs {
					m.Base = append(m.Base, 1000+r.NormFloat64()*50)
					m.Cand = append(m.Cand, 1000+r.NormFloat64()*50)
					if i >= 1 && !naiveAlarm {
						naiveAlarm = naiveP(m.Base, m.Cand) < alpha
					}
				}
				d, err := Step(cfg, []Metric{m})
				if err != nil {
					t.Fatal(err)
				}
				if o := d.Metrics[0].Outcome; o == Worse || o == Better {
					alarms++
				}
				if naiveAlarm {
					naive++
				}
			}
			rate := float64(alarms) / experiments
			t.Logf("%v spending, α = %.2f, %d A/A experiments of ≤ %d pairs: false-alarm rate %.4f (naive repeated t-test at α: %.4f)",
				sp, alpha, experiments, cfg.MaxPairs, rate, float64(naive)/experiments)
			if rate > alpha {
				t.Errorf("%v, α = %.2f: false-alarm rate %.4f > α", sp, alpha, rate)
			}
			if float64(naive)/experiments <= alpha {
				t.Errorf("%v, α = %.2f: the naive rule's rate %.4f does not show the inflation it should", sp, alpha, float64(naive)/experiments)
			}
		}
	}
}

// naiveP is the p-value of the paired t-test on all pairs so far, for
// the naive rule of TestFalseAlarmRate.
func naiveP(base, cand []float64) float64 {
	d, _ := Step(Config{Alpha: 0.999999, MaxPairs: len(base), MinPairs: len(base)}, []Metric{{ID: "m", Base: base, Cand: cand}})
	return d.Metrics[0].P
}

// TestPower reports the power of the rule on known effects (the share of
// simulated experiments that call the candidate worse) and checks it is
// not below a floor worked out from the fixed-sample t-test.
func TestPower(t *testing.T) {
	const experiments = 1000
	cases := []struct {
		cv, effect float64
		min        float64
	}{
		{0.05, 0.20, 0.95},
		{0.10, 0.20, 0.60},
		{0.10, 0.15, 0.30},
	}
	for _, c := range cases {
		for _, sp := range []Spending{OBrienFleming, Pocock} {
			cfg := Config{MaxPairs: 10, Spending: sp}
			r := rand.New(rand.NewPCG(7, uint64(c.effect*100)))
			worse, pairs := 0, 0
			for range experiments {
				got := simulate(r, cfg, 1000, c.cv, c.effect, 10)
				if got.Outcome == Worse {
					worse++
					pairs += got.DecidedAt
				}
			}
			power := float64(worse) / experiments
			mean := math.NaN()
			if worse > 0 {
				mean = float64(pairs) / float64(worse)
			}
			t.Logf("%v, CV %.0f %%, effect +%.0f %%, threshold 10 %%, ≤ 10 pairs: power %.3f, mean pairs to detect %.1f",
				sp, c.cv*100, c.effect*100, power, mean)
			if power < c.min {
				t.Errorf("%v, CV %v, effect %v: power %.3f < %.2f", sp, c.cv, c.effect, power, c.min)
			}
		}
	}
}

func TestStepErrors(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		ms   []Metric
		want string
	}{
		{Config{}, nil, "max pairs 0"},
		{Config{MaxPairs: 5, Alpha: 2}, nil, "want 0 < α < 1"},
		{Config{MaxPairs: 5}, []Metric{{ID: "x", Base: []float64{1, 2}, Cand: []float64{1}}}, "metric x: 2 base values, 1 candidate values"},
	} {
		if _, err := Step(c.cfg, c.ms); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Step(%+v): error %v, want %q", c.cfg, err, c.want)
		}
	}
}

// TestStepFiles runs the cases of testdata/step*.txt: a command
//
//	step max=N [alpha=A] [pocock] [familywise]
//
// and one input line per metric, "id better pct base… | cand…"
// (better: higher, lower or neutral), and prints Step's decision.
func TestStepFiles(t *testing.T) {
	resultstest.RunFiles(t, filepath.Join("testdata", "step*.txt"), func(t *testing.T, c resultstest.Case) string {
		var cfg Config
		for k, v := range c.Args {
			var err error
			switch k {
			case "max":
				cfg.MaxPairs, err = strconv.Atoi(v)
			case "alpha":
				cfg.Alpha, err = strconv.ParseFloat(v, 64)
			case "pocock":
				cfg.Spending = Pocock
			case "familywise":
				cfg.FamilyWise = true
			default:
				err = fmt.Errorf("unknown argument")
			}
			if err != nil {
				t.Fatalf("%s: %s=%s: %v", c.Pos, k, v, err)
			}
		}
		var ms []Metric
		for _, line := range c.Input {
			sides := strings.SplitN(line, "|", 2)
			f := strings.Fields(sides[0])
			if len(sides) != 2 || len(f) < 3 {
				t.Fatalf("%s: %q: want id better pct base… | cand…", c.Pos, line)
			}
			m := Metric{ID: f[0], Better: map[string]Direction{"higher": HigherIsBetter, "lower": LowerIsBetter}[f[1]]}
			m.ThresholdPct, _ = strconv.ParseFloat(f[2], 64)
			m.Base = floats(t, f[3:])
			m.Cand = floats(t, strings.Fields(sides[1]))
			ms = append(ms, m)
		}
		d, err := Step(cfg, ms)
		if err != nil {
			return "error: " + err.Error()
		}
		var b strings.Builder
		for _, r := range d.Metrics {
			fmt.Fprintf(&b, "%s: %v pairs=%d decided_at=%d Δ=%.4g θ=%.4g p=%.3g level=%.3g\n",
				r.ID, r.Outcome, r.Pairs, r.DecidedAt, r.MeanDiff, r.Threshold, r.P, r.Level)
		}
		fmt.Fprintf(&b, "stop=%v", d.Stop)
		return b.String()
	})
}

func floats(t *testing.T, ss []string) []float64 {
	out := make([]float64, len(ss))
	for i, s := range ss {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = v
	}
	return out
}

func TestOutcomeText(t *testing.T) {
	for o := Undecided; o <= Equivalent; o++ {
		b, _ := o.MarshalText()
		var got Outcome
		if err := got.UnmarshalText(b); err != nil || got != o {
			t.Errorf("%v: round trip gave %v, %v", o, got, err)
		}
	}
	var o Outcome
	if err := o.UnmarshalText([]byte("maybe")); err == nil {
		t.Error("maybe: no error")
	}
}
