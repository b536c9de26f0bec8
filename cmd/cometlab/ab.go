package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/report"
	"github.com/cometlab/cometlab/internal/series"
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
	judge      []string
	metrics    []string // --metrics: the series kept, or the old name of --judge
	familyWise bool
	resume     string
	// allowScales runs and compares sides at different time scales.
	allowScales bool
}

func newABCmd(st *state) *cobra.Command {
	var (
		tf testnetFlags
		lf loadFlags
		cf collectFlags
		f  abFlags
	)
	cmd := &cobra.Command{
		Use:   "ab",
		Short: "Run an A/B experiment: interleaved runs of a baseline and candidates, compared, with a verdict",
		Long: `Run an A/B experiment: the baseline and each candidate run on fresh
testnets in rounds (base, cand, then cand, base, … or a seeded random order
per round), so that drift of the host falls on every side; then compare the
runs as 'cometlab compare' does and write everything to one directory.

A SPEC is a CometBFT version (v0.38.26), the path of a cometbft binary, the
directory of a CometBFT checkout (built as cometbft_source is: --base
v0.40.0 --cand ../cometbft), a manifest file (*.toml), or key=value
overrides on the manifest, separated by spaces
('consensus.timeout_commit=2s'; keys as 'sweep --set' takes them). --base
defaults to the manifest as given.

--repeat N runs N rounds. --repeat auto adds rounds until every judged
metric of every candidate is decided (worse, better, or within the
threshold) or --max-pairs / --max-time is spent, by a group-sequential
paired t-test with O'Brien–Fleming-type alpha spending (Lan & DeMets 1983)
and two one-sided tests for equivalence: the chance of calling a metric
changed when it is not stays ≤ alpha (per metric) over all the looks.

--stop worse ends an auto experiment as soon as a metric is decided worse
(what a CI gate needs; stopping early never raises the false-alarm bound);
--judge limits the judged metrics to those named (the others are still
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
130 on Ctrl-C: the finished runs are kept and a partial verdict written.
ab.json is rewritten after every round: an experiment stopped (or killed)
part way continues with --resume DIR, which keeps the rounds done, sets
aside the runs of an unfinished round (DIR.interrupted) and goes on.`,
		Example: `  cometlab ab --base v0.38.26 --cand v0.40.0 --repeat 3 -T 60s
  cometlab ab --cand 'consensus.timeout_commit=2s' --repeat auto --max-pairs 6
  cometlab ab --base base.toml --cand cand.toml --order random --seed 7
  cometlab ab --aa -T 30s --out ab/aa-default          # then: compare --noise ab/aa-default/noise.json …
  cometlab ab --base v0.38.26 --cand v0.40.0 --repeat auto --stop worse --judge block_latency_p50_ms,committed_tps
  cometlab ab --base v0.38.26 --cand v0.40.0 --partition 50/50@10s,duration=10s -T 40s   # both under the same partition
  cometlab ab --resume ab/20250101-120000                # after a crash or Ctrl-C`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runAB(st, cmd, &tf, &lf, &cf, f) },
	}
	tf.register(cmd.Flags())
	tf.registerPerturb(cmd.Flags())
	tf.registerHosts(cmd.Flags())
	lf.register(cmd.Flags())
	fs := cmd.Flags()
	cf.registerWithout(fs, "metrics") // ab's --metrics is also the old name of --judge: see abMetricsFlag
	fs.StringVar(&f.base, "base", "", "baseline SPEC (default: the manifest as given)")
	fs.StringArrayVar(&f.cands, "cand", nil, "candidate SPEC (repeatable; at least one)")
	fs.StringVar(&f.repeat, "repeat", series.ABDefaultRepeat(false), `rounds to run, or "auto" to stop when every metric is decided`)
	fs.IntVar(&f.maxPairs, "max-pairs", 10, "--repeat auto: most rounds (the planned horizon of the alpha spending)")
	fs.DurationVar(&f.maxTime, "max-time", 0, "--repeat auto: start no round after this much time (0: no limit)")
	fs.StringVar(&f.order, "order", series.OrderCounterbalanced, `order of the sides in a round: "counterbalanced" (rotated round by round: AB, BA, …), "interleaved" (base first) or "random"`)
	fs.Uint64Var(&f.seed, "seed", 1, "--order random: seed of the order (recorded in ab.json)")
	fs.StringVar(&f.out, "out", "", "experiment directory (default ab/<UTC time>)")
	fs.StringVar(&f.thresholds, "thresholds", "", "thresholds file, as 'compare --thresholds'")
	fs.BoolVar(&f.aa, "aa", false, "A/A calibration: run --base on both sides and write noise.json (between-run noise, noise floors, false alarms of single-run compare); --repeat defaults to 10")
	fs.StringVar(&f.stop, "stop", "all", `--repeat auto: stop when "all" judged metrics are decided, or at the first metric decided "worse"`)
	fs.StringSliceVar(&f.judge, "judge", nil, "--repeat auto: judge only these metric ids (comma-separated; default every judged metric of the dictionary)")
	fs.StringSliceVar(&f.metrics, "metrics", nil, `node series kept in metrics.csv, as on 'run': "default", "all" or "none"; `+
		"a list of metric ids is taken, deprecated, as --judge")
	fs.StringVar(&f.resume, "resume", "", "continue the interrupted experiment in this directory (other flags but --verbose are taken from it)")
	fs.BoolVar(&f.allowScales, "allow-time-scale-mismatch", false, "let the sides run at different time scales (manifest time_scale) and compare them: refused without it, since their figures are in model time but their host's load is not the same")
	fs.BoolVar(&f.familyWise, "family-wise", false, "--repeat auto: split alpha among the judged metrics (Bonferroni), bounding the chance that any metric is called changed")
	return cmd
}

// abMetricsFlag sorts ab's --metrics: one of the series modes of 'run'
// ("default", "all", "none") sets the series kept; anything else is the
// old name of --judge (deprecated, with a warning).
func abMetricsFlag(st *state, cmd *cobra.Command, cf *collectFlags, f *abFlags) {
	if !cmd.Flags().Changed("metrics") {
		return
	}
	if len(f.metrics) == 1 && slices.Contains([]string{experiment.MetricsDefault, experiment.MetricsAll, experiment.MetricsNone}, f.metrics[0]) {
		cf.mf.metrics = f.metrics[0]
		return
	}
	fmt.Fprintln(st.stderr, "Flag --metrics with metric ids has been deprecated, use --judge (--metrics default|all|none chooses the series kept, as on 'run')")
	if !cmd.Flags().Changed("judge") {
		f.judge = f.metrics
	}
}

func runAB(st *state, cmd *cobra.Command, tf *testnetFlags, lf *loadFlags, cf *collectFlags, f abFlags) error {
	usage := func(err error) error { return exitcode.With(err, exitcode.Usage) }
	abMetricsFlag(st, cmd, cf, &f)
	if f.resume != "" {
		if err := resumeConflicts(cmd.Flags()); err != nil {
			return err
		}
		env, err := st.cellEnv(tf, cf)
		if err != nil {
			return err
		}
		res, err := series.ResumeAB(cmd.Context(), f.resume, env)
		remember(st, res.Dir)
		return abResult(st, res, err)
	}
	if f.aa {
		if len(f.cands) > 0 {
			return usage(errors.New("--aa runs --base on both sides: give no --cand"))
		}
	}
	if !cmd.Flags().Changed("repeat") {
		f.repeat = series.ABDefaultRepeat(f.aa)
	}
	f.cands = series.ABCandidates(f.base, f.cands, f.aa)
	if f.stop != "all" && f.stop != "worse" {
		return usage(fmt.Errorf("--stop %q: want all or worse", f.stop))
	}
	judgeFlag := "--judge"
	if cmd.Flags().Changed("metrics") && !cmd.Flags().Changed("judge") {
		judgeFlag = "--metrics"
	}
	for _, id := range f.judge {
		if _, ok := analysis.Lookup(id); !ok {
			return usage(fmt.Errorf("%s: %q is not a metric id (see 'cometlab analyze --help' or summary.json)", judgeFlag, id))
		}
	}
	auto := f.repeat == "auto"
	if !auto {
		n, err := strconv.Atoi(f.repeat)
		if err != nil || n < 1 {
			return usage(fmt.Errorf("--repeat %q: want a number ≥ 1 or auto", f.repeat))
		}
	}
	if len(f.cands) == 0 {
		return usage(errors.New("--cand: at least one candidate SPEC"))
	}
	if !slices.Contains(series.Orders(), f.order) {
		return usage(fmt.Errorf("--order %q: want one of %s", f.order, strings.Join(series.Orders(), ", ")))
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
	if len(sides) > 0 {
		printWarnings(st.stderr, sides[0])
	}
	env, err := st.cellEnv(tf, cf)
	if err != nil {
		return err
	}
	res, err := series.AB(cmd.Context(), series.ABOptions{Sides: sides, Labels: labels, Base: f.base, Candidates: f.cands,
		Repeat: f.repeat, MaxPairs: f.maxPairs, MaxTime: f.maxTime, Order: f.order, Seed: f.seed, Thresholds: th, AA: f.aa,
		Stop: f.stop, Judged: f.judge, FamilyWise: f.familyWise, AllowTimeScaleMismatch: f.allowScales, Dir: f.out, Command: commandLine(nil, cmd), Env: env})
	remember(st, res.Dir)
	return abResult(st, res, err)
}

// abSides resolves the manifests of the sides and their labels: the
// manifest and the testnet and load flags, then each spec on top.
func abSides(cmd *cobra.Command, tf *testnetFlags, lf *loadFlags, f abFlags) ([]manifest.Resolved, []string, error) {
	src, err := manifestSource(tf, cmd.Flags(), lf)
	if err != nil {
		return nil, nil, err
	}
	sides, labels, err := series.ABSides(src, f.base, f.cands, f.aa, nil)
	return sides, labels, sideFlags(err, "--base", "--cand")
}

// sideFlags names the side of an experiment a *series.SideError is about
// by the command's flag for it (base for the baseline, cand for a
// candidate), as the user wrote it: --cand "v9.9.9": ….
func sideFlags(err error, base, cand string) error {
	var se *series.SideError
	if !errors.As(err, &se) {
		return err
	}
	flag := cand
	if se.Side == 0 {
		flag = base
	}
	return exitcode.With(fmt.Errorf("%s %q: %w", flag, se.Spec, se.Err), exitcode.Usage)
}

// abResult prints what a finished experiment found (the A/A false alarms,
// the comparison table, the verdict) and returns the experiment's error,
// which carries its exit code (series.AB: 130, 1, 5 for a safety
// violation, 4 for a worse candidate).
func abResult(st *state, res series.ABResult, err error) error {
	if !res.Finished {
		return err
	}
	rec := res.Record
	if fa := res.FalseAlarms; fa != nil {
		fmt.Fprintf(st.stdout, "aa: %d pairs; single-run compare false alarms: %d of %d pairs with the within-run tests, %d of %d against the noise; %s\n",
			fa.Pairs, fa.Before, fa.Pairs, fa.After, fa.Pairs, filepath.Join(res.Dir, series.NoiseFile))
	}
	if res.Compare != nil {
		report.CompareTable(st.stdout, *res.Compare)
	}
	fmt.Fprintf(st.stdout, "\nab: %d pairs, verdict %s; directory %s\n", rec.Pairs, report.VerdictText(rec.Verdict), res.Dir)
	return err
}
