package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/compare"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/report"
	"github.com/cometlab/cometlab/internal/results"
)

// errRegression marks a comparison in which some metric is worse (exit 4).
var errRegression = exitcode.With(errors.New("a metric is worse than the baseline"), exitcode.Regression)

// compareFlags are the options of `cometlab compare`.
type compareFlags struct {
	out        string
	thresholds string
	threshold  float64
	seed       uint64
	resamples  int
	noise      string
	// allowScales compares runs made at different time scales.
	allowScales bool
}

func newCompareCmd(st *state) *cobra.Command {
	var f compareFlags
	cmd := &cobra.Command{
		Use:   "compare BASE CAND [CAND…]",
		Short: "Compare candidate runs (or sweeps) with a baseline: Δ, Δ %, confidence intervals, verdicts",
		Long: `Compare one or more candidates with a baseline, metric by metric: the
baseline value, then for each candidate its value, Δ, Δ %, a 95 % confidence
interval of Δ, a p-value and a verdict (better, worse, no significant
change). A metric is worse only when its change is at least the threshold
(default 10 %, CometBFT's QA rule) in its bad direction AND significant
(p < 0.05 or the interval excludes 0). The report starts with what differs
between the runs: versions, load, manifest and config.toml keys.

Single runs cannot see the noise between runs (a busier host slows a whole
run), so with one run a side a change that the within-run tests call
significant is judged against the between-run noise measured on this setup
by 'cometlab ab --aa' (--noise FILE, its noise.json); without it such a
metric is "noise unknown" and the comparison's verdict too (exit 0), never
worse. Lost and duplicate transactions are judged within the run.

BASE and each CAND are run directories. Repeats of one setup are given
joined with commas (runs/a1,runs/a2,runs/a3): the between-run spread then
decides significance. A side may be named with LABEL= in front
(v038=runs/a1,runs/a2); by default sides are named by their CometBFT
versions, or by their directory. When BASE is a sweep directory (it holds
sweep.json), every CAND must be one too and cells are compared one by one,
matched by id, the repeats of a cell together; a failed cell's runs are
skipped and flagged.

Writes compare.md, compare.html (self-contained) and compare.json, with
overlay plots, into --out. A thresholds file (--thresholds) sets the
default threshold, alpha and per-metric thresholds:

  threshold_pct = 10
  alpha = 0.05
  [metric.block_latency_p99_ms]
  threshold_pct = 5
  [metric.late_sends]
  min_delta = 100      # absolute floor, in the metric's unit
  [metric.tps_stddev]
  ignore = true

Exit codes: 0 no metric is worse (or noise unknown); 4 some metric of some candidate is worse
(a regression: CI pipelines can gate on it); 2 unusable input (a missing
or unreadable run, bad arguments or thresholds); 1 the report could not be
written.`,
		Example: `  cometlab compare runs/v038 runs/v040
  cometlab compare v038=runs/v038-1,runs/v038-2 v040=runs/v040-1,runs/v040-2 --out compare/v038-v040
  cometlab compare --thresholds thresholds.toml sweeps/base sweeps/candidate
  cometlab compare --noise ab/aa-default/noise.json runs/v040-a runs/v040-b`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCompare(st, cmd, f, args)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.out, "out", "compare", "directory for compare.md, compare.html, compare.json and plots/ (created)")
	fs.StringVar(&f.thresholds, "thresholds", "", "TOML file with threshold_pct, alpha and [metric.ID] overrides")
	fs.Float64Var(&f.threshold, "threshold", compare.DefaultThresholdPct, "default threshold in % of the baseline (overrides the thresholds file's)")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the bootstrap (the same seed gives the same intervals)")
	fs.IntVar(&f.resamples, "resamples", 2000, "bootstrap resamples")
	fs.BoolVar(&f.allowScales, "allow-time-scale-mismatch", false, "compare runs made at different time scales (manifest time_scale): refused without it, since their figures are in model time but their host's load is not the same")
	fs.StringVar(&f.noise, "noise", "", "noise.json of 'cometlab ab --aa' on this setup: single runs are judged against the between-run noise it measured (without it, a change of single runs is \"noise unknown\")")
	return cmd
}

// parseSideArg splits "LABEL=dir1,dir2" (the label is optional; an
// argument that is an existing path is taken whole).
func parseSideArg(arg string) (compare.SideDirs, error) {
	if _, err := os.Stat(arg); err == nil {
		return compare.SideDirs{Dirs: []string{arg}}, nil
	}
	var s compare.SideDirs
	rest := arg
	if l, r, ok := strings.Cut(arg, "="); ok && !strings.ContainsAny(l, `/\,`) {
		s.Label, rest = l, r
	}
	for _, d := range strings.Split(rest, ",") {
		if d = strings.TrimSpace(d); d != "" {
			s.Dirs = append(s.Dirs, d)
		}
	}
	if len(s.Dirs) == 0 {
		return s, fmt.Errorf("%q names no run directory", arg)
	}
	return s, nil
}

// readThresholds is the one reader of --thresholds (compare, ab): the
// file at path, or the defaults when path is "".
func readThresholds(path string) (compare.Thresholds, error) {
	if path == "" {
		return compare.DefaultThresholds(), nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return compare.Thresholds{}, exitcode.With(fmt.Errorf("--thresholds: %w", err), exitcode.Usage)
	}
	th, err := compare.ParseThresholds(path, b)
	if err != nil {
		return compare.Thresholds{}, exitcode.With(err, exitcode.Usage)
	}
	return th, nil
}

func runCompare(st *state, cmd *cobra.Command, f compareFlags, args []string) error {
	th, err := readThresholds(f.thresholds)
	if err != nil {
		return err
	}
	if cmd.Flags().Changed("threshold") {
		if f.threshold < 0 {
			return exitcode.With(fmt.Errorf("--threshold %v: want ≥ 0", f.threshold), exitcode.Usage)
		}
		th.DefaultPct = f.threshold
	}
	if f.resamples < 100 {
		return exitcode.With(fmt.Errorf("--resamples %d: want at least 100", f.resamples), exitcode.Usage)
	}
	var sides []compare.SideDirs
	for _, a := range args {
		s, err := parseSideArg(a)
		if err != nil {
			return exitcode.With(err, exitcode.Usage)
		}
		sides = append(sides, s)
	}
	opts := compare.Options{Thresholds: th, Seed: f.seed, Resamples: f.resamples, AllowTimeScaleMismatch: f.allowScales}
	if f.noise != "" {
		n, err := compare.ReadNoise(f.noise)
		if err != nil {
			return exitcode.With(fmt.Errorf("--noise: %w", err), exitcode.Usage)
		}
		opts.Noise = n
	}
	load := compare.LoadOptions{IgnoreConfig: cometbft.RunSpecificConfigKeys()}
	ropts := report.CompareOptions{Command: commandLine(args, cmd)}

	sweeps := 0
	for _, s := range sides {
		if len(s.Dirs) == 1 && results.IsSweepDir(s.Dirs[0]) {
			sweeps++
		}
	}
	switch {
	case sweeps == len(sides):
		return compareSweeps(st, sides, f.out, opts, load, ropts)
	case sweeps > 0:
		return exitcode.With(errors.New("compare either run directories or sweep directories (with sweep.json), not both"), exitcode.Usage)
	}

	c, cs, err := compare.Runs(sides, opts, load)
	if err != nil {
		return err // an InputError carries exit code 2
	}
	if err := report.WriteCompare(f.out, c, cs, ropts); err != nil {
		return err
	}
	report.CompareTable(st.stdout, c)
	fmt.Fprintf(st.stdout, "\nreport: %s\n", filepath.Join(f.out, results.CompareMD))
	if c.Verdict == compare.Worse {
		return errRegression
	}
	return nil
}

// compareSweeps compares sweep directories cell by cell, writing each
// cell's comparison as it is made, then the overview.
func compareSweeps(st *state, sides []compare.SideDirs, out string, opts compare.Options, load compare.LoadOptions, ropts report.CompareOptions) error {
	sr, err := compare.Sweeps(sides, opts, load, func(cell compare.CellResult, cs []compare.Side) error {
		return report.WriteCompare(filepath.Join(out, filepath.FromSlash(cell.Dir)), *cell.Result, cs, ropts)
	})
	if err != nil {
		return err // an InputError carries exit code 2
	}
	if err := report.WriteSweepCompare(out, sr, ropts.Command); err != nil {
		return err
	}
	for _, c := range sr.Cells {
		switch {
		case c.Result == nil && len(c.Missing) > 0:
			fmt.Fprintf(st.stdout, "cell %s: not compared (not in %s)\n", c.ID, strings.Join(c.Missing, ", "))
		case c.Result == nil:
			fmt.Fprintf(st.stdout, "cell %s: not compared (%s)\n", c.ID, strings.Join(c.Problems, "; "))
		default:
			fmt.Fprintf(st.stdout, "cell %s: %s\n", c.ID, report.VerdictText(c.Verdict))
		}
	}
	fmt.Fprintf(st.stdout, "\nreport: %s\n", filepath.Join(out, results.CompareMD))
	if sr.Verdict == compare.Worse {
		return errRegression
	}
	return nil
}

// commandLine rebuilds the command line for the report, quoting arguments
// with spaces.
func commandLine(args []string, cmd *cobra.Command) string {
	parts := []string{cmd.CommandPath()}
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				parts = append(parts, "--"+fl.Name+" "+quote(v))
			}
			return
		}
		parts = append(parts, "--"+fl.Name+" "+quote(fl.Value.String()))
	})
	for _, a := range args {
		parts = append(parts, quote(a))
	}
	return strings.Join(parts, " ")
}

func quote(s string) string {
	if s == "" || strings.ContainsAny(s, " \t'\"$") {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return s
}
