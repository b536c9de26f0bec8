package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/history"
)

// changeMethods are the change-point detector and the noise floor the
// history's trends and the gate use; nil for none (a trend then shows no
// change points, the gate's magnitude is its --threshold alone).
func changeMethods() (history.Detector, history.NoiseFloor) {
	return history.DefaultDetector(), history.AbsoluteFloor
}

// historyFlags are the flags every history command shares: the index and
// the filters that select runs.
type historyFlags struct {
	index                                  string
	release, label, manifest, host, series string
	since, until                           string
	kinds, status                          []string
	json                                   bool
}

func (f *historyFlags) registerIndex(fs *pflag.FlagSet) {
	fs.StringVar(&f.index, "index", "", "the history index file (default $"+history.Env+", else $XDG_DATA_HOME/cometlab/history.db or ~/.local/share/cometlab/history.db)")
}

func (f *historyFlags) registerFilters(fs *pflag.FlagSet) {
	fs.StringVar(&f.release, "release", "", "only runs of this CometBFT release, or release line (v0.38 selects every v0.38.x)")
	fs.StringVar(&f.label, "label", "", "only runs with this label (run.json's label, an A/B side, else the release)")
	fs.StringVar(&f.manifest, "manifest", "", "only runs whose manifest hash starts with this")
	fs.StringVar(&f.host, "host", "", "only runs on a host whose name or fingerprint (cores, CPU, memory) contains this")
	fs.StringVar(&f.series, "series", "", "only runs of the series whose id starts with this")
	fs.StringSliceVar(&f.status, "status", nil, "only runs of these statuses: complete, partial, failed, running, interrupted (comma-separated)")
	fs.StringSliceVar(&f.kinds, "kind", nil, "only these kinds: run, sweep, saturate, ab, qa (comma-separated)")
	fs.StringVar(&f.since, "since", "", "only runs created at or after this: a date (2026-11-01), a date and time (UTC unless RFC 3339) or an age (7d, 36h, 2w)")
	fs.StringVar(&f.until, "until", "", "only runs created before this (as --since)")
	fs.BoolVar(&f.json, "json", false, "write JSON instead of a table")
}

// filter is the Filter the flags select, times read at now
// (history.Query, as cometlab serve's pages read theirs).
func (f *historyFlags) filter(now time.Time) (history.Filter, error) {
	q := history.Query{Release: f.release, Label: f.label, Manifest: f.manifest, Host: f.host, Series: f.series,
		Since: f.since, Until: f.until, Kinds: f.kinds, Status: f.status}
	flt, err := q.Filter(now)
	var fe history.FieldError
	if errors.As(err, &fe) {
		return flt, exitcode.With(fmt.Errorf("--%s: %w", fe.Field, fe.Err), exitcode.Usage)
	}
	return flt, err
}

// open opens the index the flags name.
func (f *historyFlags) open(ctx context.Context, st *state) (*history.Index, error) {
	path, err := history.Locate(f.index, os.Getenv)
	if err != nil {
		return nil, exitcode.With(fmt.Errorf("%w; give --index FILE", err), exitcode.Usage)
	}
	x, err := history.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	if m := x.Migrated; m != nil {
		fmt.Fprintf(st.stderr, "history: %s was of an older cometlab (schema %d): rebuilt from its %d directories\n", path, m.From, len(m.Found.Runs))
		printSkipped(st.stderr, m.Found.Skipped)
	}
	return x, nil
}

func newHistoryCmd(st *state) *cobra.Command {
	var (
		hf    historyFlags
		limit int
	)
	cmd := &cobra.Command{
		Use:   "history",
		Short: "List every run, sweep, search and A/B experiment from the history index",
		Long: `List the runs of the history index, newest first: when, what kind, how it
ended, the release (and label), the testnet's validators (+ full nodes), the
load, committed tx/s, the median block latency and the directory. A sweep's
cells, a search's steps and an A/B experiment's runs are listed as runs too.

Every run, load, sweep, saturate and ab adds its directory to the index when
it ends (` + history.Env + `=off turns that off; a run is never failed by it).
The run directories stay the source of truth: 'cometlab history rebuild'
makes the index again from them. 'cometlab history trend FIGURE' follows one
figure along a series of comparable runs; 'cometlab gate' judges a new run
against its series. See docs/history.md.`,
		Example: `  cometlab history
  cometlab history --release v0.38 --since 30d --status complete
  cometlab history --kind sweep,saturate --json
  cometlab history rebuild --root runs --root /data/qa/runs
  cometlab history trend block_latency_p50_ms --by release`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			flt, err := hf.filter(time.Now())
			if err != nil {
				return err
			}
			if limit < 0 {
				return exitcode.With(fmt.Errorf("--limit %d: want 0 (all) or more", limit), exitcode.Usage)
			}
			flt.Limit = limit
			if !hf.json {
				flt.Figures = tableFigures
			}
			x, err := hf.open(cmd.Context(), st)
			if err != nil {
				return err
			}
			defer x.Close()
			runs, err := x.Runs(cmd.Context(), flt)
			if err != nil {
				return err
			}
			if hf.json {
				return writeJSON(st.stdout, map[string]any{"index": x.Path(), "runs": nonNil(runs)})
			}
			return writeHistoryTable(st.stdout, runs)
		},
	}
	hf.registerIndex(cmd.PersistentFlags())
	hf.registerFilters(cmd.Flags())
	cmd.Flags().IntVar(&limit, "limit", 50, "list at most this many runs, the newest (0: all)")
	cmd.AddCommand(newHistoryRebuildCmd(st, &hf), newHistoryAddCmd(st, &hf), newHistoryTrendCmd(st, &hf))
	return cmd
}

// tableFigures are the figures the history table shows.
var tableFigures = []string{"committed_tps", "block_latency_p50_ms"}

func writeHistoryTable(w io.Writer, runs []history.Run) error {
	if len(runs) == 0 {
		_, err := fmt.Fprintln(w, "no runs (cometlab history rebuild reads them from their directories)")
		return err
	}
	rows := [][]string{{"time (UTC)", "kind", "status", "release", "nodes", "load", "tx/s", "p50 ms", "dir"}}
	for _, r := range runs {
		rel := r.Release
		if r.Label != "" && r.Label != r.Release {
			rel += " (" + r.Label + ")"
		}
		nodes := fmt.Sprint(r.Validators)
		if r.FullNodes > 0 {
			nodes += fmt.Sprintf("+%d", r.FullNodes)
		}
		fig := func(id string) string {
			if v, ok := r.Value(id); ok {
				return history.Num(v)
			}
			return "–"
		}
		rows = append(rows, []string{r.Created.UTC().Format("2006-01-02 15:04"), r.Kind, r.Status, rel, nodes, r.Load.String(),
			fig("committed_tps"), fig("block_latency_p50_ms"), displayDir(r.Dir)})
	}
	return history.WriteTable(w, rows, 4, 6, 7)
}

// displayDir is dir relative to the current directory when it is under it.
func displayDir(dir string) string {
	wd, err := os.Getwd()
	if err != nil {
		return dir
	}
	if rel, err := filepath.Rel(wd, dir); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return dir
}

func newHistoryRebuildCmd(st *state, hf *historyFlags) *cobra.Command {
	var roots []string
	cmd := &cobra.Command{
		Use:   "rebuild",
		Short: "Make the history index again from the run directories under the roots",
		Long: `Empty the history index and read every run, sweep, search and A/B
experiment directory under the roots into it (one level down: runs/<id>,
sweeps/<id>, …; a root that is itself such a directory is read). A
directory that cannot be read — half-written, unknown, a run.json without a
status — is skipped and named with the reason; a run without summary.json
is indexed with its status and no figures. Readers see the old index until
the new one is complete.

Default roots: ` + strings.Join(history.DefaultRoots(), ", ") + ` under the current directory.`,
		Example: `  cometlab history rebuild
  cometlab history rebuild --root runs --root /data/qa/sweeps`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			given := roots
			if len(given) == 0 {
				given = history.DefaultRoots()
			}
			// The roots that are there: without any, an empty index would
			// replace the one there is (a rebuild in the wrong directory).
			var there []string
			for _, r := range given {
				if _, err := os.Stat(r); err == nil {
					there = append(there, r)
				} else if len(roots) > 0 {
					fmt.Fprintf(st.stderr, "history: skipped %s: no such directory\n", r)
				}
			}
			if len(there) == 0 {
				return exitcode.With(fmt.Errorf("none of %s is here: give --root DIR (the index is left as it is)", strings.Join(given, ", ")), exitcode.Usage)
			}
			x, err := hf.open(cmd.Context(), st)
			if err != nil {
				return err
			}
			defer x.Close()
			start := time.Now()
			f, err := x.Rebuild(cmd.Context(), there)
			if err != nil {
				return err
			}
			printSkipped(st.stderr, f.Skipped)
			fmt.Fprintf(st.stdout, "history: %d runs indexed, %d skipped, in %s; index %s\n", len(f.Runs), len(f.Skipped), time.Since(start).Round(time.Millisecond), x.Path())
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&roots, "root", nil, "a directory of run, sweep, search or A/B directories (repeatable; default "+strings.Join(history.DefaultRoots(), ", ")+")")
	return cmd
}

func newHistoryAddCmd(st *state, hf *historyFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "add DIR...",
		Short: "Add run, sweep, search or A/B directories to the history index",
		Long: `Read each directory (a run, sweep, search or A/B experiment, with its runs)
into the history index, replacing what it held of it. Runs add themselves
when they end; this adds runs made elsewhere, or with ` + history.Env + `=off.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			x, err := hf.open(cmd.Context(), st)
			if err != nil {
				return err
			}
			defer x.Close()
			var errs []error
			for _, dir := range args {
				f, err := x.Add(cmd.Context(), dir)
				if err != nil {
					errs = append(errs, fmt.Errorf("%s: %w", dir, err))
					continue
				}
				printSkipped(st.stderr, f.Skipped)
				fmt.Fprintf(st.stdout, "history: %s: %d runs indexed\n", dir, len(f.Runs))
			}
			return exitcode.With(errors.Join(errs...), exitcode.Usage)
		},
	}
}

func printSkipped(w io.Writer, skipped []history.Skip) {
	for _, s := range skipped {
		fmt.Fprintf(w, "history: skipped %s: %s\n", displayDir(s.Dir), s.Reason)
	}
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
