package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/compare"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/report"
	"github.com/cometlab/cometlab/internal/sequential"
	"github.com/spf13/cobra"
)

type abFlags struct {
	base       string
	cands      []string
	repeat     string
	maxPairs   int
	maxTime    time.Duration
	order      string
	seed       uint64
	out        string
	thresholds string
	aa         bool
	stop       string
	metrics    []string
	familyWise bool
}

// abRecord is ab.json: how the experiment was made and what it decided.
type abRecord struct {
	Base       string                `json:"base"`
	Candidates []string              `json:"candidates"`
	Repeat     string                `json:"repeat"`
	MaxPairs   int                   `json:"max_pairs"`
	Order      string                `json:"order"`
	Seed       uint64                `json:"seed"`
	Method     string                `json:"method"`
	Alpha      float64               `json:"alpha"`
	Pairs      int                   `json:"pairs"`
	Rounds     [][]string            `json:"rounds"` // run directories in the order they ran
	Sequential []sequential.Decision `json:"sequential,omitempty"`
	Verdict    compare.Verdict       `json:"verdict"`
	Partial    bool                  `json:"partial,omitempty"`
	// AA is set for an A/A calibration (--aa): Noise names its noise.json.
	AA    bool   `json:"aa,omitempty"`
	Noise string `json:"noise,omitempty"`
	// Stop, Metrics and FamilyWise are --repeat auto's rule.
	Stop       string   `json:"stop,omitempty"`
	Metrics    []string `json:"metrics,omitempty"`
	FamilyWise bool     `json:"family_wise,omitempty"`
}

func newABCmd(st *state) *cobra.Command {
	var (
		tf testnetFlags
		lf loadFlags
		f  abFlags
	)
	cmd := &cobra.Command{
		Use:   "ab",
		Short: "Run an A/B experiment: interleaved runs of a baseline and candidates, compared, with a verdict",
		Long: `Run an A/B experiment: the baseline and each candidate run on fresh
testnets in rounds (base, cand, base, cand, … or a seeded random order per
round), so that drift of the host falls on every side; then compare the
runs as 'cometlab compare' does and write everything to one directory.

A SPEC is a CometBFT version (v0.38.26), the path of a cometbft binary, a
manifest file (*.toml), or key=value overrides on the manifest, separated
by spaces ('consensus.timeout_commit=2s'; keys as 'sweep --set' takes
them). --base defaults to the manifest as given.

--repeat N runs N rounds. --repeat auto adds rounds until every judged
metric of every candidate is decided (worse, better, or within the
threshold) or --max-pairs / --max-time is spent, by a group-sequential
paired t-test with O'Brien–Fleming-type alpha spending (Lan & DeMets 1983)
and two one-sided tests for equivalence: the chance of calling a metric
changed when it is not stays ≤ alpha (per metric) over all the looks.

--stop worse ends an auto experiment as soon as a metric is decided worse
(what a CI gate needs; stopping early never raises the false-alarm bound);
--metrics limits the judged metrics to those named (the others are still
compared, not waited for); --family-wise divides alpha among the judged
metrics (Bonferroni), so that the bound holds for "any metric called
changed" instead of metric by metric.

--aa is an A/A calibration: the --base spec runs on both sides (no --cand;
--repeat defaults to 10 pairs). It writes noise.json: per metric the
between-run coefficient of variation, the RMS of the pairs' Δ %, the noise
floor a single-run comparison must exceed, the smallest change that many
pairs detect, and the false alarms of single-run 'compare' over the pairs,
with the within-run tests (before) and against the noise of the other
pairs (after). 'compare --noise noise.json' then judges single runs of
this setup against it. An A/A experiment exits 0 whatever it finds.

Exit code 4 when a candidate is worse (auto: a metric decided worse),
130 on Ctrl-C: the finished runs are kept and a partial verdict written.`,
		Example: `  cometlab ab --base v0.38.26 --cand v0.40.0 --repeat 3 -T 60s
  cometlab ab --cand 'consensus.timeout_commit=2s' --repeat auto --max-pairs 6
  cometlab ab --base base.toml --cand cand.toml --order random --seed 7
  cometlab ab --aa -T 30s --out ab/aa-default          # then: compare --noise ab/aa-default/noise.json …
  cometlab ab --base v0.38.26 --cand v0.40.0 --repeat auto --stop worse --metrics block_latency_p50_ms,committed_tps`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runAB(st, cmd, &tf, &lf, f) },
	}
	tf.register(cmd.Flags())
	lf.register(cmd.Flags())
	fs := cmd.Flags()
	fs.StringVar(&f.base, "base", "", "baseline SPEC (default: the manifest as given)")
	fs.StringArrayVar(&f.cands, "cand", nil, "candidate SPEC (repeatable; at least one)")
	fs.StringVar(&f.repeat, "repeat", "3", `rounds to run, or "auto" to stop when every metric is decided`)
	fs.IntVar(&f.maxPairs, "max-pairs", 10, "--repeat auto: most rounds (the planned horizon of the alpha spending)")
	fs.DurationVar(&f.maxTime, "max-time", 0, "--repeat auto: start no round after this much time (0: no limit)")
	fs.StringVar(&f.order, "order", "interleaved", `order of the sides in a round: "interleaved" (base first) or "random"`)
	fs.Uint64Var(&f.seed, "seed", 1, "--order random: seed of the order (recorded in ab.json)")
	fs.StringVar(&f.out, "out", "", "experiment directory (default ab/<UTC time>)")
	fs.StringVar(&f.thresholds, "thresholds", "", "thresholds file, as 'compare --thresholds'")
	fs.BoolVar(&f.aa, "aa", false, "A/A calibration: run --base on both sides and write noise.json (between-run noise, noise floors, false alarms of single-run compare); --repeat defaults to 10")
	fs.StringVar(&f.stop, "stop", "all", `--repeat auto: stop when "all" judged metrics are decided, or at the first metric decided "worse"`)
	fs.StringSliceVar(&f.metrics, "metrics", nil, "--repeat auto: judge only these metric ids (comma-separated; default every judged metric of the dictionary)")
	fs.BoolVar(&f.familyWise, "family-wise", false, "--repeat auto: split alpha among the judged metrics (Bonferroni), bounding the chance that any metric is called changed")
	return cmd
}

func runAB(st *state, cmd *cobra.Command, tf *testnetFlags, lf *loadFlags, f abFlags) error {
	usage := func(err error) error { return exitcode.With(err, exitcode.Usage) }
	if f.aa {
		if len(f.cands) > 0 {
			return usage(errors.New("--aa runs --base on both sides: give no --cand"))
		}
		f.cands = []string{f.base}
		if !cmd.Flags().Changed("repeat") {
			f.repeat = "10"
		}
	}
	if f.stop != "all" && f.stop != "worse" {
		return usage(fmt.Errorf("--stop %q: want all or worse", f.stop))
	}
	for _, id := range f.metrics {
		if _, ok := analysis.Lookup(id); !ok {
			return usage(fmt.Errorf("--metrics: %q is not a metric id (see 'cometlab analyze --help' or summary.json)", id))
		}
	}
	auto := f.repeat == "auto"
	rounds := f.maxPairs
	if !auto {
		n, err := strconv.Atoi(f.repeat)
		if err != nil || n < 1 {
			return usage(fmt.Errorf("--repeat %q: want a number ≥ 1 or auto", f.repeat))
		}
		rounds = n
	}
	if len(f.cands) == 0 {
		return usage(errors.New("--cand: at least one candidate SPEC"))
	}
	if f.order != "interleaved" && f.order != "random" {
		return usage(fmt.Errorf("--order %q: want interleaved or random", f.order))
	}
	if auto && f.maxPairs < 2 {
		return usage(fmt.Errorf("--max-pairs %d: want at least 2", f.maxPairs))
	}
	th, err := readThresholds(f.thresholds)
	if err != nil {
		return err
	}
	sides, labels, err := abSides(cmd, tf, lf, f)
	if err != nil {
		return err
	}
	fetch, err := fetcher(st.stderr)
	if err != nil {
		return err
	}
	out := f.out
	if out == "" {
		out = filepath.Join("ab", time.Now().UTC().Format("20060102-150405"))
	}
	rec := abRecord{Base: f.base, Candidates: f.cands, Repeat: f.repeat, MaxPairs: f.maxPairs, Order: f.order, Seed: f.seed,
		Method: "group-sequential paired t-test, O'Brien–Fleming-type alpha spending (Lan & DeMets 1983), TOST equivalence",
		AA:     f.aa, Alpha: th.Alpha}
	if auto {
		rec.Stop, rec.Metrics, rec.FamilyWise = f.stop, f.metrics, f.familyWise
	}
	dirs := make([][]string, len(sides))
	start := time.Now()
	var runErr error
rounds:
	for round := range rounds {
		if auto && f.maxTime > 0 && time.Since(start) > f.maxTime {
			fmt.Fprintf(st.stderr, "ab: --max-time %v spent after %d rounds\n", f.maxTime, round)
			break
		}
		var ran []string
		for _, i := range experiment.ABOrder(round, len(sides), f.order == "random", f.seed) {
			dir := filepath.Join(out, "runs", fmt.Sprintf("%02d-%s", round+1, labels[i]))
			fmt.Fprintf(st.stderr, "ab: round %d, %s: %s\n", round+1, labels[i], dir)
			res, err := experiment.Run(cmd.Context(), experiment.Options{Manifest: sides[i], Dir: dir, Env: experiment.Env{Fetcher: fetch, Out: st.stderr, Logger: newLogger(st.stderr, tf.verbose), Version: version, StartTimeout: tf.startTimeout, Hard: st.hard}})
			if err != nil || cmd.Context().Err() != nil {
				if cmd.Context().Err() != nil {
					runErr = exitcode.With(firstErr(err, cmd.Context().Err()), exitcode.Interrupted)
				} else {
					runErr = exitcode.With(err, exitcode.Failed)
				}
				if res.Dir != "" {
					ran = append(ran, res.Dir)
				}
				rec.Rounds = append(rec.Rounds, ran)
				rec.Partial = true
				break rounds
			}
			dirs[i] = append(dirs[i], res.Dir)
			ran = append(ran, res.Dir)
		}
		rec.Rounds = append(rec.Rounds, ran)
		rec.Pairs = round + 1
		if auto {
			decs, stop, err := abStep(dirs, labels, th, f)
			if err != nil {
				return err
			}
			rec.Sequential = decs
			for ci, d := range decs {
				fmt.Fprintf(st.stderr, "ab: after %d pairs, %s: %s\n", rec.Pairs, labels[ci+1], decisionLine(d))
			}
			if stop {
				break
			}
		}
	}
	return abFinish(st, out, commandLine(nil, cmd), dirs, labels, th, rec, auto, runErr)
}

func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// abSides resolves the manifests of the sides and their labels.
func abSides(cmd *cobra.Command, tf *testnetFlags, lf *loadFlags, f abFlags) ([]manifest.Resolved, []string, error) {
	var o manifest.Overrides
	if err := lf.overrides(cmd.Flags(), &o); err != nil {
		return nil, nil, err
	}
	tf.overrides(cmd.Flags(), &o)
	m, _, err := manifestFromFlags(tf.manifest, tf.perturb, o)
	if err != nil {
		return nil, nil, err
	}
	specs := append([]string{f.base}, f.cands...)
	var sides []manifest.Resolved
	var labels []string
	for i, text := range specs {
		flag, label := "--cand", "cand"
		if len(f.cands) > 1 {
			label = fmt.Sprintf("cand%d", i)
		}
		side := m
		if i == 0 {
			flag, label = "--base", "base"
		}
		if text != "" || (i > 0 && !f.aa) {
			s, err := experiment.ParseSpec(flag, text)
			if err != nil {
				return nil, nil, err
			}
			if side, err = s.Manifest(flag, m); err != nil {
				return nil, nil, err
			}
			if s.Kind == experiment.SpecVersion && !f.aa && !slices.Contains(specs[:i], text) {
				label = s.Value // a version names its side (runs/NN-v0.40.0)
			}
			if s.Kind == experiment.SpecManifest {
				if err := side.Apply(o); err != nil {
					return nil, nil, exitcode.With(err, exitcode.Usage)
				}
			}
		}
		r, err := side.Resolve()
		if err != nil {
			return nil, nil, exitcode.With(fmt.Errorf("%s %q: %w", flag, text, err), exitcode.Usage)
		}
		sides = append(sides, r)
		labels = append(labels, label)
	}
	return sides, labels, nil
}

// abStep reads the runs so far and applies the stepping rule to every
// candidate; stop is true when every candidate may stop.
func abStep(dirs [][]string, labels []string, th compare.Thresholds, f abFlags) ([]sequential.Decision, bool, error) {
	runs := make([][]compare.Run, len(dirs))
	for i, ds := range dirs {
		for _, d := range ds {
			r, err := compare.LoadRun(d, compare.LoadOptions{})
			if err != nil {
				return nil, false, fmt.Errorf("%s: %w", labels[i], err)
			}
			runs[i] = append(runs[i], r)
		}
	}
	cfg := sequential.Config{Alpha: th.Alpha, MaxPairs: f.maxPairs, FamilyWise: f.familyWise}
	stop := true
	var decs []sequential.Decision
	for ci := 1; ci < len(runs); ci++ {
		d, err := sequential.Step(cfg, seqMetrics(runs[0], runs[ci], th, f.metrics))
		if err != nil {
			return nil, false, err
		}
		decs = append(decs, d)
		stop = stop && d.Stop
	}
	if f.stop == "worse" && anyOutcome(decs, sequential.Worse) {
		stop = true
	}
	return decs, stop, nil
}

// seqMetrics pairs the runs of two sides round by round, for every judged
// metric of the dictionary that every run has.
func seqMetrics(base, cand []compare.Run, th compare.Thresholds, only []string) []sequential.Metric {
	n := min(len(base), len(cand))
	var ms []sequential.Metric
	for _, dm := range analysis.Dictionary() {
		pct, minDelta, ignore := th.For(dm.ID)
		if ignore || dm.Better == analysis.Neutral || (len(only) > 0 && !slices.Contains(only, dm.ID)) {
			continue
		}
		m := sequential.Metric{ID: dm.ID, ThresholdPct: pct, MinDelta: minDelta, Better: sequential.LowerIsBetter}
		if dm.Better == analysis.HigherIsBetter {
			m.Better = sequential.HigherIsBetter
		}
		ok := true
		for i := range n {
			b, okB := base[i].Metrics[dm.ID]
			c, okC := cand[i].Metrics[dm.ID]
			if !okB || !okC || math.IsNaN(b) || math.IsNaN(c) {
				ok = false
				break
			}
			m.Base, m.Cand = append(m.Base, b), append(m.Cand, c)
		}
		if ok && n > 0 {
			ms = append(ms, m)
		}
	}
	return ms
}

// anyOutcome says whether some metric of some decision has outcome o.
func anyOutcome(decs []sequential.Decision, o sequential.Outcome) bool {
	for _, d := range decs {
		for _, r := range d.Metrics {
			if r.Outcome == o {
				return true
			}
		}
	}
	return false
}

// decisionLine counts a decision's outcomes and names the metrics found
// worse or better.
func decisionLine(d sequential.Decision) string {
	count := map[sequential.Outcome]int{}
	var changed []string
	for _, r := range d.Metrics {
		count[r.Outcome]++
		if r.Outcome == sequential.Worse || r.Outcome == sequential.Better {
			changed = append(changed, fmt.Sprintf("%s %v (at %d pairs)", r.ID, r.Outcome, r.DecidedAt))
		}
	}
	s := fmt.Sprintf("%d worse, %d better, %d equivalent, %d undecided", count[sequential.Worse], count[sequential.Better],
		count[sequential.Equivalent], count[sequential.Undecided])
	if len(changed) > 0 {
		s += fmt.Sprintf(": %v", changed)
	}
	return s
}

// abFinish compares the finished runs, writes the comparison (with the
// sequential decisions or the A/A noise at its top), noise.json and
// ab.json, and returns the error that sets the exit code.
func abFinish(st *state, out, command string, dirs [][]string, labels []string, th compare.Thresholds, rec abRecord, auto bool, runErr error) error {
	complete := true
	for _, ds := range dirs {
		complete = complete && len(ds) > 0
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if complete {
		given := make([]compare.SideDirs, len(dirs))
		for i := range dirs {
			given[i] = compare.SideDirs{Label: labels[i], Dirs: dirs[i]}
		}
		c, cs, err := compare.Runs(given, compare.Options{Thresholds: th}, compare.LoadOptions{})
		if err != nil {
			return err
		}
		rec.Verdict = c.Verdict
		var preface string
		if auto {
			rec.Verdict = sequentialVerdict(rec.Sequential)
			preface = sequentialMarkdown(rec, labels)
		}
		if rec.AA && len(cs) == 2 {
			noise := compare.MeasureNoise(rec.Base, cs[0].Runs, cs[1].Runs, th.Alpha)
			fa, err := compare.CountFalseAlarms(rec.Base, cs[0].Runs, cs[1].Runs, compare.Options{Thresholds: th})
			if err != nil {
				return err
			}
			noise.FalseAlarms = &fa
			if err := compare.WriteNoise(filepath.Join(out, "noise.json"), noise); err != nil {
				return err
			}
			rec.Noise = "noise.json"
			preface = aaMarkdown(noise) + preface
			fmt.Fprintf(st.stdout, "aa: %d pairs; single-run compare false alarms: %d of %d pairs with the within-run tests, %d of %d against the noise; %s\n",
				fa.Pairs, fa.Before, fa.Pairs, fa.After, fa.Pairs, filepath.Join(out, "noise.json"))
		}
		if err := report.WriteCompare(out, c, cs, report.CompareOptions{Command: command, Preface: preface}); err != nil {
			return err
		}
		report.CompareTable(st.stdout, c)
	}
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "ab.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(st.stdout, "\nab: %d pairs, verdict %s; directory %s\n", rec.Pairs, report.VerdictText(rec.Verdict), out)
	switch {
	case runErr != nil:
		return runErr
	case rec.Verdict == compare.Worse && !rec.AA:
		return errRegression
	}
	return nil
}
