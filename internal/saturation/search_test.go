package saturation

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rewrite regenerates the expected output of the data-driven cases, as
// cockroachdb/datadriven's -rewrite does (etcd-io/raft's quorum tests).
var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of testdata/saturation/*.txt")

// ddCase is one case of a data-driven file:
//
//	command key=value …
//	input line
//	…
//	----
//	expected output
//	(blank line)
type ddCase struct {
	pos     string // file:line of the command
	cmd     string
	args    map[string]string
	input   []string
	want    string
	start   int // line index of the command
	outFrom int // line index of the first output line
	outTo   int // line index after the last output line
}

// parseDD reads the cases of a data-driven file. Lines starting with '#'
// outside the output are comments.
func parseDD(t *testing.T, path string) ([]ddCase, []string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	var cases []ddCase
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		c := ddCase{pos: fmt.Sprintf("%s:%d", filepath.Base(path), i+1), start: i, args: map[string]string{}}
		fields := strings.Fields(l)
		c.cmd = fields[0]
		for _, f := range fields[1:] {
			k, v, _ := strings.Cut(f, "=")
			c.args[k] = v
		}
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "----"; i++ {
			if s := strings.TrimSpace(lines[i]); s != "" && !strings.HasPrefix(s, "#") {
				c.input = append(c.input, s)
			}
		}
		if i >= len(lines) {
			t.Fatalf("%s: no ---- separator", c.pos)
		}
		c.outFrom = i + 1
		var out []string
		for i++; i < len(lines) && lines[i] != ""; i++ {
			out = append(out, lines[i])
		}
		c.outTo = i
		c.want = strings.Join(out, "\n")
		cases = append(cases, c)
	}
	return cases, lines
}

// runDD runs every case of the files matching glob through fn, comparing
// (or with -rewrite, replacing) the expected output.
func runDD(t *testing.T, glob string, fn func(t *testing.T, c ddCase) string) {
	files, err := filepath.Glob(glob)
	if err != nil || len(files) == 0 {
		t.Fatalf("no files match %s (%v)", glob, err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			cases, lines := parseDD(t, path)
			var out []string
			last := 0
			for _, c := range cases {
				got := strings.TrimRight(fn(t, c), "\n")
				if *rewrite {
					out = append(out, lines[last:c.outFrom]...)
					out = append(out, strings.Split(got, "\n")...)
					last = c.outTo
					continue
				}
				if got != c.want {
					t.Errorf("%s: %s\ngot:\n%s\nwant:\n%s", c.pos, c.cmd, got, c.want)
				}
			}
			if *rewrite {
				out = append(out, lines[last:]...)
				if err := os.WriteFile(path, []byte(strings.Join(out, "\n")), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// searchConfig builds a SearchConfig from a case's arguments over the
// data-driven defaults: start=200 dur=60s probe=20s growth=2 res=0.05
// margin=0.05 runs=8 min=1 max=100000 split=estimate quantum=1 (fixed here, so that
// the cases do not move with DefaultSearch; "default" takes DefaultSearch).
func searchConfig(t *testing.T, c ddCase) SearchConfig {
	t.Helper()
	cfg := DefaultSearch(200, 60)
	cfg.Growth, cfg.ProbeDurationS, cfg.Margin = 2, 20, 0.05
	if _, ok := c.args["default"]; ok {
		cfg = DefaultSearch(200, 60)
	}
	for k, v := range c.args {
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
			t.Fatalf("%s: unknown argument %q", c.pos, k)
		}
		if err != nil {
			t.Fatalf("%s: %s=%s: %v", c.pos, k, v, err)
		}
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("%s: %v", c.pos, err)
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
//	                     listed in flaky, whose verdict is flipped (a flipped
//	                     failure is soft with soft=true); a failing run at
//	                     rate r estimates min(F·K, r) (default F = 1), a
//	                     failing probe min(P·K, r) (default P = F): an
//	                     overloaded network commits at most what it is
//	                     sent. Prints the path and the outcome.
func TestSearchDataDriven(t *testing.T) {
	runDD(t, "../../testdata/saturation/search*.txt", func(t *testing.T, c ddCase) string {
		cfg := searchConfig(t, c)
		switch c.cmd {
		case "next":
			var obs []Observation
			for _, l := range c.input {
				obs = append(obs, parseObservation(t, c.pos, l))
			}
			step, done := cfg.Next(obs)
			if done {
				return "done\n" + fmtOutcome(cfg.Conclude(obs))
			}
			return fmtStep(step)
		case "simulate":
			return simulate(t, c, cfg)
		}
		t.Fatalf("%s: unknown command %q", c.pos, c.cmd)
		return ""
	})
}

func simulate(t *testing.T, c ddCase, cfg SearchConfig) string {
	num := func(k string, def float64) float64 {
		v, ok := c.args[k]
		if !ok {
			return def
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatalf("%s: %s: %v", c.pos, k, err)
		}
		return f
	}
	knee := num("knee", 0)
	if knee <= 0 {
		t.Fatalf("%s: simulate needs knee=", c.pos)
	}
	estF, shortKnee := num("est", 1), num("shortknee", knee)
	probeF := num("probeest", estF)
	softFlaky := c.args["soft"] == "true"
	flaky := map[float64]bool{}
	if v := c.args["flaky"]; v != "" {
		for _, s := range strings.Split(v, ",") {
			f, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("%s: flaky: %v", c.pos, err)
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
			t.Fatalf("%s: the search does not end", c.pos)
		}
		k, f := knee, estF
		if step.DurationS < cfg.DurationS {
			k, f = shortKnee, probeF
		}
		o := Observation{Rate: step.Rate, DurationS: step.DurationS, Pass: step.Rate <= k}
		if flaky[step.Rate] {
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
