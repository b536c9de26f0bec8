package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/history"
)

// gateFlags are gate's options.
type gateFlags struct {
	hf        historyFlags
	alpha     float64
	threshold float64
	minRuns   int
	last      int
	judge     []string
	summary   string
}

func newGateCmd(st *state) *cobra.Command {
	f := gateFlags{}
	def := history.DefaultGate()
	cmd := &cobra.Command{
		Use:   "gate [DIR]",
		Short: "Judge the newest run (or DIR) against the history of its series, for CI",
		Long: `Judge a new run against the earlier runs of its series in the history
index: the newest run in the index, or DIR (a run, an A/B experiment — each
candidate side's runs together —, a sweep or a search). A series is the runs
of one manifest (whatever its release), load, kind of host and app; its
history is its complete runs created before the new one (the --last newest).

A figure is a regression when the new value is worse than the history's mean
(the metric dictionary's direction) by more than --threshold % of it (or the
series' noise floor, if larger) and the difference is significant against
the history: one-sided t, p ≤ --p, with at least --min-runs earlier runs.
Judged by default: the headline figures (committed_tps, throughput_ratio,
tps_mean, block latency mean/p50/p90/p99, observed latency p50/p99,
adoption_p50_ms, rss_max_mib, cpu_mean_pct; a sweep's and a search's
saturation figures); --judge names others, or all.

--summary appends the verdict as Markdown to FILE: give it
$GITHUB_STEP_SUMMARY in GitHub Actions, or post it as a pull request's
comment. See docs/history.md for a CI workflow.

Exit codes: 0 no judged figure is worse; 4 a regression; 6 too few runs to
judge (fewer than --min-runs earlier runs for every judged figure); 1 the new
run failed (nothing to judge); 2 bad flags or DIR.`,
		Example: `  cometlab run && cometlab gate --summary "$GITHUB_STEP_SUMMARY"
  cometlab gate runs/2f1c… --threshold 10 --p 0.01
  cometlab gate ab/2026-11-20T10:00:00Z --judge committed_tps,block_latency_p99_ms`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := f.config(def)
			if err != nil {
				return err
			}
			x, err := f.hf.open(cmd.Context(), st)
			if err != nil {
				return err
			}
			defer x.Close()
			dir := ""
			if len(args) == 1 {
				dir = args[0]
			}
			groups, err := gateTargets(cmd.Context(), x, dir)
			if err != nil {
				return err
			}
			var out []history.GateResult
			for _, g := range groups {
				hist, err := gateHistory(cmd.Context(), x, g, f.last)
				if err != nil {
					return err
				}
				out = append(out, history.Judge(hist, g.runs, cfg))
			}
			return gateOutput(st, f, out)
		},
	}
	fs := cmd.Flags()
	f.hf.registerIndex(fs)
	fs.BoolVar(&f.hf.json, "json", false, "write the judgement as JSON instead of a table")
	fs.Float64Var(&f.alpha, "p", def.Alpha, "a change is significant at this p-value or below (one-sided)")
	fs.Float64Var(&f.threshold, "threshold", def.ThresholdPct, "a change smaller than this, in % of the history's mean, is no regression")
	fs.IntVar(&f.minRuns, "min-runs", def.MinRuns, "earlier runs of the series needed to judge a figure (fewer for every figure: exit 6)")
	fs.IntVar(&f.last, "last", 30, "judge against the newest N earlier runs of the series (0: all)")
	fs.StringSliceVar(&f.judge, "judge", nil, "the figures to judge: metric ids (comma-separated), or all (default: the headline figures)")
	fs.StringVar(&f.summary, "summary", "", "append the verdict as Markdown to FILE ($GITHUB_STEP_SUMMARY, a pull request's comment)")
	return cmd
}

// config is the gate's rule from the flags.
func (f *gateFlags) config(def history.GateConfig) (history.GateConfig, error) {
	usage := func(format string, a ...any) error { return exitcode.With(fmt.Errorf(format, a...), exitcode.Usage) }
	cfg := def
	cfg.Alpha, cfg.ThresholdPct, cfg.MinRuns = f.alpha, f.threshold, f.minRuns
	cfg.Detect, cfg.Floor = changeMethods()
	switch {
	case !(f.alpha > 0 && f.alpha < 1):
		return cfg, usage("--p %g: want a p-value between 0 and 1", f.alpha)
	case !(f.threshold >= 0):
		return cfg, usage("--threshold %g: want a percentage ≥ 0", f.threshold)
	case f.minRuns < 2:
		return cfg, usage("--min-runs %d: want at least 2 (a standard deviation needs two)", f.minRuns)
	case f.last < 0:
		return cfg, usage("--last %d: want 0 (all) or more", f.last)
	}
	switch {
	case len(f.judge) == 1 && f.judge[0] == "all":
		cfg.Figures = history.JudgedFigures()
	case len(f.judge) > 0:
		judged := history.JudgedFigures()
		for _, id := range f.judge {
			if !slices.Contains(judged, id) {
				return cfg, usage("--judge: %q is not a figure the gate can judge (a metric id that is not neutral)", id)
			}
		}
		cfg.Figures = f.judge
	}
	return cfg, nil
}

// gateGroup is a group of new runs judged together: a run, or an A/B
// side's runs.
type gateGroup struct {
	runs []history.Run
	// ab is the A/B experiment the runs are a side of: its other runs are
	// no history of them.
	ab string
}

// gateTargets are the new runs to judge: dir's (read from the directory),
// or the newest run of the index.
func gateTargets(ctx context.Context, x *history.Index, dir string) ([]gateGroup, error) {
	var top history.Run
	var found history.Found
	if dir == "" {
		runs, err := x.Runs(ctx, history.Filter{Kinds: []string{history.KindRun}, Limit: 1})
		if err != nil {
			return nil, err
		}
		if len(runs) == 0 {
			return nil, exitcode.With(errors.New("the history index holds no run: run one, or give its directory"), exitcode.Usage)
		}
		top, found = runs[0], history.Found{Runs: runs}
		// The newest run of an A/B experiment: the experiment is judged.
		if p, ok, err := x.Get(ctx, top.Parent); err == nil && ok && p.Kind == history.KindAB {
			dir = p.Dir
		}
	}
	if dir != "" {
		var err error
		if found, err = history.Read(dir); err != nil {
			return nil, exitcode.With(fmt.Errorf("gate %s: %w", dir, err), exitcode.Usage)
		}
		top = found.Runs[0]
	}
	var groups []gateGroup
	if top.Kind == history.KindAB {
		sides := top.Sides()
		for _, side := range sides[min(1, len(sides)):] {
			g := gateGroup{ab: top.Dir}
			for _, r := range found.Runs[1:] {
				if r.Label == side {
					g.runs = append(g.runs, r)
				}
			}
			if len(g.runs) > 0 {
				groups = append(groups, g)
			}
		}
		if len(groups) == 0 {
			return nil, exitcode.With(fmt.Errorf("gate %s: no candidate side has a run", top.Dir), exitcode.Usage)
		}
	} else {
		groups = []gateGroup{{runs: []history.Run{top}}}
	}
	for _, g := range groups {
		for _, r := range g.runs {
			if r.Status == history.StatusRunning || r.Status == "failed" || len(r.Figures) == 0 {
				return nil, fmt.Errorf("gate: %s is %s with no figures: nothing to judge", displayDir(r.Dir), r.Status)
			}
		}
	}
	return groups, nil
}

// gateHistory is the history of g's series: its complete runs of the same
// kind created before g's first, the last newest, oldest first; g's own
// runs and the other runs of its experiment left out.
func gateHistory(ctx context.Context, x *history.Index, g gateGroup, last int) ([]history.Run, error) {
	first := g.runs[0]
	for _, r := range g.runs {
		if r.Created.Before(first.Created) {
			first = r
		}
	}
	flt := history.Filter{Series: first.Series().ID(), Kinds: []string{first.Kind}, Status: []string{"complete"}, Until: first.Created}
	runs, err := x.Runs(ctx, flt)
	if err != nil {
		return nil, err
	}
	var out []history.Run
	for _, r := range runs {
		if (g.ab != "" && r.Parent == g.ab) || slices.ContainsFunc(g.runs, func(t history.Run) bool { return t.Dir == r.Dir }) {
			continue
		}
		out = append(out, r)
		if last > 0 && len(out) == last {
			break
		}
	}
	return history.SortRuns(out, history.ByTime), nil
}

// gateOutput prints the judgements, appends the summary and returns the
// exit: 4 for a regression, else 6 when a judgement had too few runs.
func gateOutput(st *state, f gateFlags, out []history.GateResult) error {
	if f.hf.json {
		if err := writeJSON(st.stdout, out); err != nil {
			return err
		}
	} else {
		for i, res := range out {
			if i > 0 {
				fmt.Fprintln(st.stdout)
			}
			if err := res.WriteText(st.stdout); err != nil {
				return err
			}
		}
	}
	if f.summary != "" {
		var b strings.Builder
		for _, res := range out {
			res.WriteMarkdown(&b)
			b.WriteString("\n")
		}
		file, err := os.OpenFile(f.summary, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return fmt.Errorf("--summary: %w", err)
		}
		_, werr := file.WriteString(b.String())
		if err := errors.Join(werr, file.Close()); err != nil {
			return fmt.Errorf("--summary %s: %w", f.summary, err)
		}
	}
	var regressions, insufficient []string
	for _, res := range out {
		switch res.Verdict {
		case history.GateRegression:
			regressions = append(regressions, res.Headline())
		case history.GateInsufficient:
			insufficient = append(insufficient, res.Headline())
		}
	}
	switch {
	case len(regressions) > 0:
		return exitcode.With(errors.New("gate: "+strings.Join(regressions, "; ")), exitcode.Regression)
	case len(insufficient) > 0:
		return exitcode.With(errors.New("gate: "+strings.Join(insufficient, "; ")), exitcode.Insufficient)
	}
	return nil
}
