package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/history"
)

func newHistoryTrendCmd(st *state, hf *historyFlags) *cobra.Command {
	var by string
	cmd := &cobra.Command{
		Use:   "trend FIGURE",
		Short: "Follow one figure along a series of comparable runs",
		Long: `Print one figure (a summary.json id, or a sweep's or search's) of one
series in order: by creation time (--by time), by CometBFT release in
semantic-versioning order (--by release), or by the commit time of the
source tree the runs ran (--by commit: a branch's commits in the order
they were made, each run of a cometbft_source tree; a run of a release
takes its creation time's place). A series is the runs of one
manifest (whatever its release), load, kind of host (cores, CPU model,
memory) and app, so a run on another machine or with another load is never
read as a change. When the filters select runs of several series, the
series of the newest is shown and the others are named; --series chooses.
Without --status only complete runs count.`,
		Example: `  cometlab history trend committed_tps
  cometlab history trend block_latency_p99_ms --by release --since 90d
  cometlab history trend committed_tps --by commit --label my-branch
  cometlab history trend saturation_tps --kind saturate --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			figure := args[0]
			if _, ok := history.Lookup(figure); !ok {
				return exitcode.With(fmt.Errorf("%q is not a figure of the metric dictionary (see summary.json's metrics)", figure), exitcode.Usage)
			}
			order := history.Order(by)
			if !slices.Contains(history.Orders(), order) {
				return exitcode.With(fmt.Errorf("--by %q: want time, release or commit", by), exitcode.Usage)
			}
			flt, err := hf.filter(time.Now())
			if err != nil {
				return err
			}
			if len(flt.Status) == 0 {
				flt.Status = []string{"complete"}
			}
			flt.Figures = []string{figure}
			x, err := hf.open(cmd.Context(), st)
			if err != nil {
				return err
			}
			defer x.Close()
			runs, err := x.Runs(cmd.Context(), flt)
			if err != nil {
				return err
			}
			detect, _ := changeMethods()
			t, others, ok := history.TrendOf(runs, figure, order, detect)
			if !ok {
				return fmt.Errorf("no run the filters select has %s", figure)
			}
			if len(others) > 0 {
				var names []string
				for _, g := range others {
					names = append(names, fmt.Sprintf("%s (%d runs)", g.ID, len(g.Runs)))
				}
				fmt.Fprintf(st.stderr, "history: %d other series have %s: %s; choose one with --series\n", len(names), figure, strings.Join(names, ", "))
			}
			if hf.json {
				return writeJSON(st.stdout, t)
			}
			return writeTrend(st.stdout, t)
		},
	}
	hf.registerFilters(cmd.Flags())
	cmd.Flags().StringVar(&by, "by", "time", "order of the points: time (creation), release (semantic versioning, then time) or commit (the source tree's commit time, then time)")
	return cmd
}

func writeTrend(w io.Writer, t history.Trend) error {
	fmt.Fprintf(w, "series %s: %s\n%s — %s, %s, %s is better; %d runs by %s\n\n", t.SeriesID, t.Series, t.Figure, t.Title, t.Unit, t.Better, len(t.Points), t.Order)
	change := map[int]history.ChangePoint{}
	for _, cp := range t.ChangePoints {
		change[cp.Index] = cp
	}
	commits := slices.ContainsFunc(t.Points, func(p history.Point) bool { return p.Commit != "" })
	head := []string{"time (UTC)", "release", "label", t.Unit, "", "dir"}
	if commits {
		head = slices.Insert(head, 2, "commit")
	}
	rows := [][]string{head}
	for i, p := range t.Points {
		v := history.Num(p.Value)
		if p.Interval != nil {
			v += fmt.Sprintf(" [%s, %s]", history.Num(p.Interval.Lo), history.Num(p.Interval.Hi))
		}
		mark := ""
		if cp, ok := change[i]; ok {
			mark = fmt.Sprintf("← change: %s → %s, p %.2g", history.Num(cp.Before), history.Num(cp.After), cp.P)
		}
		label := p.Label
		if label == p.Release {
			label = ""
		}
		row := []string{p.Created.UTC().Format("2006-01-02 15:04"), p.Release, label, v, mark, displayDir(p.Dir)}
		if commits {
			row = slices.Insert(row, 2, shortCommit(p.Commit))
		}
		rows = append(rows, row)
	}
	valueCol := 3
	if commits {
		valueCol = 4
	}
	if err := history.WriteTable(w, rows, valueCol); err != nil {
		return err
	}
	switch {
	case !t.Detected:
		_, err := fmt.Fprintln(w, "\nchange points: not sought (no detector)")
		return err
	case len(t.ChangePoints) == 0:
		_, err := fmt.Fprintln(w, "\nchange points: none")
		return err
	}
	cp := t.ChangePoints[0]
	_, err := fmt.Fprintf(w, "\nchange points: %d (E-divisive means with t tests: window %d, p < %g, ≥ %d runs a side)\n",
		len(t.ChangePoints), cp.Window, cp.MaxP, cp.MinPoints)
	return err
}

// shortCommit is a commit as a trend shows it: its first 12 hex digits,
// then "+dirty.HASH" if it has one.
func shortCommit(c string) string {
	hash, dirty, _ := strings.Cut(c, "+")
	if len(hash) > 12 {
		hash = hash[:12]
	}
	if dirty != "" {
		return hash + "+" + dirty
	}
	return hash
}
