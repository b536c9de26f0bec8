package saturation

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// searchConfig builds a SearchConfig from a case's arguments over the
// data-driven defaults: start=200 dur=60s probe=20s growth=2 res=0.05
// margin=0.05 runs=8 min=1 max=100000 split=estimate quantum=1 (fixed here, so that
// the cases do not move with DefaultSearch; "default" takes DefaultSearch).
func searchConfig(t *testing.T, c resultstest.Case) SearchConfig {
	t.Helper()
	cfg := DefaultSearch(200, 60)
	cfg.Growth, cfg.ProbeDurationS, cfg.Margin = 2, 20, 0.05
	if _, ok := c.Args["default"]; ok {
		cfg = DefaultSearch(200, 60)
	}
	for k, v := range c.Args {
		var err error
		switch k {
		case "start":
			cfg.Start, err = strconv.ParseFloat(v, 64)
		case "growth":
			cfg.Growth, err = strconv.ParseFloat(v, 64)
		case "res":
			cfg.Resolution, err = strconv.ParseFloat(v, 64)
		case "min":
			cfg.MinRate, err = strconv.ParseFloat(v, 64)
		case "max":
			cfg.MaxRate, err = strconv.ParseFloat(v, 64)
		case "runs":
			cfg.MaxRuns, err = strconv.Atoi(v)
		case "dur":
			cfg.DurationS, err = seconds(v)
		case "probe":
			cfg.ProbeDurationS, err = seconds(v)
		case "split":
			cfg.Split = v
		case "margin":
			cfg.Margin, err = strconv.ParseFloat(v, 64)
		case "quantum":
			cfg.Quantum, err = strconv.ParseFloat(v, 64)
		case "knee", "est", "probeest", "shortknee", "flaky", "soft", "default":
			// simulate's model
		default:
			t.Fatalf("%s: unknown argument %q", c.Pos, k)
		}
		if err != nil {
			t.Fatalf("%s: %s=%s: %v", c.Pos, k, v, err)
		}
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("%s: %v", c.Pos, err)
	}
	return cfg
}

func seconds(s string) (float64, error) {
	d, err := time.ParseDuration(s)
	return d.Seconds(), err
}

// parseObservation reads "RATE/DURATION pass|fail [soft] [est=E]".
func parseObservation(t *testing.T, pos, line string) Observation {
	t.Helper()
	f := strings.Fields(line)
	if len(f) < 2 {
		t.Fatalf("%s: bad observation %q", pos, line)
	}
	rs, ds, ok := strings.Cut(f[0], "/")
	if !ok {
		t.Fatalf("%s: want RATE/DURATION in %q", pos, line)
	}
	var o Observation
	var err error
	if o.Rate, err = strconv.ParseFloat(rs, 64); err != nil {
		t.Fatalf("%s: %v", pos, err)
	}
	if o.DurationS, err = seconds(ds); err != nil {
		t.Fatalf("%s: %v", pos, err)
	}
	switch f[1] {
	case "pass":
		o.Pass = true
	case "fail":
	default:
		t.Fatalf("%s: want pass or fail in %q", pos, line)
	}
	for _, kv := range f[2:] {
		if kv == "soft" {
			o.Soft = true
			continue
		}
		if v, ok := strings.CutPrefix(kv, "est="); ok {
			if o.Estimate, err = strconv.ParseFloat(v, 64); err != nil {
				t.Fatalf("%s: %v", pos, err)
			}
		}
	}
	return o
}

func fmtStep(s Step) string {
	return fmt.Sprintf("%s %s/%ss: %s", s.Phase, satRate(s.Rate), satRate(s.DurationS), s.Reason)
}

func fmtOutcome(o Outcome) string {
	s := fmt.Sprintf("%s: %s", o.Status, o.Summary)
	if o.Recommended > 0 {
		s += fmt.Sprintf("; recommended %s", satRate(o.Recommended))
	}
	return s
}

// TestSearchDataDriven runs testdata/saturation/search*.txt. Commands:
//
//	next [config]        the input lines are observations; prints Next's
//	                     step (or "done") and Conclude's outcome when done
//	simulate [config] knee=K [est=F] [probeest=P] [shortknee=S] [flaky=R1,R2]
//	                     runs the whole search against a model network: a
//	                     run passes when its rate ≤ K (≤ S for probes
//	                     shorter than the full duration), except the rates
//	                     listed in flaky, whose verdict is flipped (with
//	                     soft=true only a probe's, and a flipped failure is
//	                     soft); a failing run at
//	                     rate r estimates min(F·K, r) (default F = 1), a
//	                     failing probe min(P·K, r) (default P = F): an
//	                     overloaded network commits at most what it is
//	                     sent. Prints the path and the outcome.
func TestSearchDataDriven(t *testing.T) {
	resultstest.RunFiles(t, "../../testdata/saturation/search*.txt", func(t *testing.T, c resultstest.Case) string {
		cfg := searchConfig(t, c)
		switch c.Cmd {
		case "next":
			var obs []Observation
			for _, l := range c.Input {
				obs = append(obs, parseObservation(t, c.Pos, l))
			}
			step, done := cfg.Next(obs)
			if done {
				return "done\n" + fmtOutcome(cfg.Conclude(obs))
			}
			return fmtStep(step)
		case "simulate":
			return simulate(t, c, cfg)
		}
		t.Fatalf("%s: unknown command %q", c.Pos, c.Cmd)
		return ""
	})
}

func simulate(t *testing.T, c resultstest.Case, cfg SearchConfig) string {
	num := func(k string, def float64) float64 {
		v, ok := c.Args[k]
		if !ok {
			return def
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatalf("%s: %s: %v", c.Pos, k, err)
		}
		return f
	}
	knee := num("knee", 0)
	if knee <= 0 {
		t.Fatalf("%s: simulate needs knee=", c.Pos)
	}
	estF, shortKnee := num("est", 1), num("shortknee", knee)
	probeF := num("probeest", estF)
	softFlaky := c.Args["soft"] == "true"
	flaky := map[float64]bool{}
	if v := c.Args["flaky"]; v != "" {
		for _, s := range strings.Split(v, ",") {
			f, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("%s: flaky: %v", c.Pos, err)
			}
			flaky[f] = true
		}
	}
	var obs []Observation
	var b strings.Builder
	for i := 1; ; i++ {
		step, done := cfg.Next(obs)
		if done {
			break
		}
		if i > 100 {
			t.Fatalf("%s: the search does not end", c.Pos)
		}
		k, f := knee, estF
		if step.DurationS < cfg.DurationS {
			k, f = shortKnee, probeF
		}
		o := Observation{Rate: step.Rate, DurationS: step.DurationS, Pass: step.Rate <= k}
		if flaky[step.Rate] && (!softFlaky || step.DurationS < cfg.DurationS) {
			o.Pass = !o.Pass
			o.Soft = !o.Pass && softFlaky
		}
		verdict := "pass"
		if !o.Pass {
			o.Estimate = min(f*knee, step.Rate)
			verdict = "fail est=" + satRate(o.Estimate)
			if o.Soft {
				verdict = "soft " + verdict
			}
		}
		obs = append(obs, o)
		fmt.Fprintf(&b, "%d %s → %s\n", i, fmtStep(step), verdict)
	}
	return b.String() + fmtOutcome(cfg.Conclude(obs))
}

// TestFloorRunResolvesInOne checks the H/q² floor for many failures H and
// quanta: when the floor sets the run after a full-length failure, a pass
// there leaves a bracket that the following run resolves, whether it
// passes or fails.
func TestFloorRunResolvesInOne(t *testing.T) {
	floored, total := 0, 0
	for _, quantum := range []float64{1, 5, 0.5} {
		for h := 100.0; h < 5000; h += 37 {
			cfg := DefaultSearch(200, 60)
			cfg.Quantum = quantum
			// An estimate of 0.92 H puts 15 % below it (0.78 H) under
			// H/q² (0.82 H) and half the margin below it (0.85 H) above.
			obs := []Observation{{Rate: h, DurationS: 60, Estimate: 0.92 * h}}
			step, done := cfg.Next(obs)
			total++
			if done || !strings.HasPrefix(step.Reason, "the lowest rate whose pass") {
				continue // a coarse quantum lifted the floor over the cap
			}
			floored++
			obs = append(obs, Observation{Rate: step.Rate, DurationS: 60, Pass: true})
			next, done := cfg.Next(obs)
			if done {
				t.Fatalf("quantum %v, H %v: done after the pass at %v", quantum, h, step.Rate)
			}
			for _, pass := range []bool{true, false} {
				o := append(append([]Observation{}, obs...), Observation{Rate: next.Rate, DurationS: 60, Pass: pass, Estimate: next.Rate})
				if out := cfg.Conclude(o); out.Status != OutcomeResolved {
					t.Errorf("quantum %v, H %v: floor %v, then %v (pass %v): %s", quantum, h, step.Rate, next.Rate, pass, out.Summary)
				}
			}
		}
	}
	if floored < total*9/10 {
		t.Fatalf("the floor set %d of %d runs", floored, total)
	}
}
