package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/report"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/saturation"
	"github.com/cometlab/cometlab/internal/series"
	"github.com/cometlab/cometlab/internal/shape"
)

// criterionFlags set the saturation criterion.
type criterionFlags struct {
	c              saturation.Criterion
	maxDrain, rise time.Duration
}

func (f *criterionFlags) register(fs *pflag.FlagSet) {
	f.c = saturation.DefaultCriterion()
	fs.Float64Var(&f.c.MinThroughputRatio, "min-ratio", f.c.MinThroughputRatio, "criterion: a run must commit at least this share of c × r × duration")
	fs.Float64Var(&f.c.MaxLatencySlope, "max-latency-slope", f.c.MaxLatencySlope, "criterion: block latency may rise by at most this many s per s of load (slope test over the steady window)")
	fs.DurationVar(&f.rise, "min-latency-rise", results.Seconds(f.c.MinLatencyRiseS), "criterion: a latency rise over the steady window smaller than this is not a trend")
	fs.Float64Var(&f.c.SteadyFrom, "steady-from", f.c.SteadyFrom, "criterion: start of the steady window, as a fraction of the load duration")
	fs.Float64Var(&f.c.SteadyTo, "steady-to", f.c.SteadyTo, "criterion: end of the steady window, as a fraction of the load duration")
	fs.DurationVar(&f.maxDrain, "max-drain", results.Seconds(f.c.MaxDrainS), "criterion: every mempool must be empty this long after the load")
	fs.Float64Var(&f.c.MaxRoundShare, "max-round-share", f.c.MaxRoundShare, "criterion: largest share of heights committed after round 0")
}

func (f *criterionFlags) criterion() (saturation.Criterion, error) {
	f.c.MaxDrainS, f.c.MinLatencyRiseS = f.maxDrain.Seconds(), f.rise.Seconds()
	if err := f.c.Validate(); err != nil {
		return f.c, exitcode.With(fmt.Errorf("criterion: %w", err), exitcode.Usage)
	}
	return f.c, nil
}

// seriesFlags are what sweep and saturate share besides the testnet.
type seriesFlags struct {
	workFlags
	reuse    bool
	coolDown time.Duration
	out      string
	resume   string
}

func (f *seriesFlags) register(fs *pflag.FlagSet, what string) {
	f.workFlags.register(fs, what)
	fs.BoolVar(&f.reuse, "reuse-testnet", false, "run consecutive "+what+"s on one testnet, waiting for the mempools to drain and --cool-down between them (default: a fresh testnet per "+what+", so they are independent)")
	fs.DurationVar(&f.coolDown, "cool-down", 30*time.Second, "with --reuse-testnet, the pause after the mempools drain")
	fs.StringVar(&f.out, "out", "", "the directory to write (default "+map[string]string{"cell": "sweeps", "run": "saturations"}[what]+"/<id> under the current directory)")
	fs.StringVar(&f.resume, "resume", "", "continue the interrupted "+map[string]string{"cell": "sweep", "run": "search"}[what]+" in this directory (other flags but --verbose are taken from it)")
}

// baseManifest is the manifest of a sweep or search, and its resolved
// form: the manifest (or the default) with the testnet flags, size,
// duration and pacing and groups laid over it; its load must be loadtime
// payloads at a constant rate.
func baseManifest(tf *testnetFlags, sf *seriesFlags, fs *pflag.FlagSet, groups ...overrider) (manifest.Manifest, manifest.Resolved, error) {
	src, err := manifestSource(tf, fs, append([]overrider{sf}, groups...)...)
	if err != nil {
		return manifest.Manifest{}, manifest.Resolved{}, err
	}
	m, r, err := resolveSource(src)
	if err != nil {
		return m, r, err
	}
	if r.Load.TxsFile != "" {
		return m, r, exitcode.With(fmt.Errorf("the manifest's load sends the transactions of %s: sweeps and saturation searches send loadtime payloads only", r.Load.TxsFile), exitcode.Usage)
	}
	if sh := r.Load.ShapeName(); sh != shape.Constant {
		return m, r, exitcode.With(fmt.Errorf("the manifest's load has shape %q: sweeps and saturation searches step a constant rate "+
			"(the saturation criterion is defined for constant loads only); use 'cometlab run' for a shaped load", sh), exitcode.Usage)
	}
	return m, r, nil
}

// resumeConflicts rejects flags that a resumed sweep or search takes from
// its directory.
func resumeConflicts(fs *pflag.FlagSet) error {
	var set []string
	fs.Visit(func(f *pflag.Flag) {
		switch {
		case slices.Contains([]string{"resume", "verbose", "retry-failed", "start-timeout", "ssh-args"}, f.Name), slices.Contains(collectNames, f.Name):
		default:
			set = append(set, "--"+f.Name)
		}
	})
	if len(set) > 0 {
		return exitcode.With(fmt.Errorf("--resume takes the settings from the directory; drop %v", set), exitcode.Usage)
	}
	return nil
}

// cellEnv is the environment and collection options of the runs of a
// sweep, search or A/B.
func (st *state) cellEnv(tf *testnetFlags, cf *collectFlags) (series.Env, error) {
	c, err := cf.collect()
	if err != nil {
		return series.Env{}, err
	}
	env, err := st.env(tf)
	return series.Env{Env: env, Collect: c, MaxRemeasures: st.maxRemeasures}, err
}

func newSweepCmd(st *state) *cobra.Command {
	var (
		tf          testnetFlags
		col         collectFlags
		sf          seriesFlags
		cf          criterionFlags
		conns       []int
		rates       []string
		sets        []string
		repeat      int
		retryFailed bool
	)
	cmd := &cobra.Command{
		Use:   "sweep",
		Short: "Run a grid of load settings (c × r, and any manifest setting) and write the saturation table",
		Long: `Run a grid of experiments on one testnet manifest — every connection count
(-c) × rate per connection (-r), and every value of each --set KEY=V1,V2
(any manifest setting: validators, cometbft_version, load.size, or a
config.toml path such as mempool.size) — each --repeat times, and write a
sweep directory: sweep.json (the grid and every cell: id, params, repeat,
run directory, status, error, evidence and verdict), one ordinary run
directory per cell under cells/<id>-<repeat>/, and the sweep report
(sweep.md, sweep.html): the saturation table in the form of CometBFT's QA
reports (rows r, columns c, committed transactions, saturated cells marked,
the saturation diagonal in bold) beside the expected c·r·duration and the
ratio, the latency–throughput curve, per-cell figures and, with --repeat,
means with 95 % intervals.

Between cells the default is a fresh testnet per cell: cells are independent
(no leftover mempool, no grown chain or index from the previous cell),
which is what a table of equivalent cells needs, at the cost of a few
seconds of start-up each. --reuse-testnet keeps one testnet for consecutive
cells (a new one when the testnet settings change), waits for the mempools
to drain and --cool-down between cells, as CometBFT's QA runs its grid.

A cell is saturated when it fails the criterion (see --min-ratio and the
other criterion flags; the report prints it). sweep.json is rewritten after
every cell, so a sweep killed halfway continues with --resume DIR without
redoing finished cells; a failed cell is recorded and skipped (exit 3).`,
		Example: `  cometlab sweep -c 1,2,4 -r 200,400,800,1600 -T 90s
  cometlab sweep -r 400,800 --set mempool.size=1000,5000 --repeat 3
  cometlab sweep --resume sweeps/2f1c…`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fs := cmd.Flags()
			env, err := st.cellEnv(&tf, &col)
			if err != nil {
				return err
			}
			var rec saturation.SweepRecord
			if sf.resume != "" {
				if err := resumeConflicts(fs); err != nil {
					return err
				}
				rec, err = series.ResumeSweep(cmd.Context(), sf.resume, retryFailed, env)
				remember(st, sf.resume)
				return sweepResult(st, rec, sf.resume, err)
			}
			crit, err := cf.criterion()
			if err != nil {
				return err
			}
			m, _, err := baseManifest(&tf, &sf, fs)
			if err != nil {
				return err
			}
			printWarnings(st.stderr, manifest.Resolved{Warnings: m.Warnings()})
			rs, params, err := sweepGrid(conns, rates, sets, repeat)
			if err != nil {
				return exitcode.With(err, exitcode.Usage)
			}
			rec, err = series.Sweep(cmd.Context(), series.SweepOptions{Manifest: m, Connections: conns, Rates: rs,
				Params: params, Repeat: repeat, Reuse: sf.reuse, CoolDown: sf.coolDown, Criterion: crit, Dir: sf.out, Env: env})
			if errors.Is(err, series.ErrInvalid) {
				return err // nothing ran: the grid, a manifest or the criterion is wrong (exit 2)
			}
			dir := sf.out
			if dir == "" {
				dir = series.DefaultSweepDir(rec.ID)
			}
			remember(st, dir)
			return sweepResult(st, rec, dir, err)
		},
	}
	fs := cmd.Flags()
	tf.register(fs)
	col.register(fs)
	tf.registerPerturb(fs)
	tf.registerHosts(fs)
	sf.register(fs, "cell")
	cf.register(fs)
	fs.IntSliceVarP(&conns, "connections", "c", nil, "connection counts (c), e.g. 1,2,4 (default from the manifest: 1)")
	fs.StringSliceVarP(&rates, "rates", "r", nil, "rates per connection (r), e.g. 200,400,800,1600 (default from the manifest: 200)")
	fs.StringArrayVar(&sets, "set", nil, "sweep a manifest setting too: KEY=V1,V2,… (repeatable; e.g. mempool.size=1000,5000, validators=4,7)")
	fs.IntVar(&repeat, "repeat", 1, "run every cell this many times")
	fs.BoolVar(&retryFailed, "retry-failed", false, "with --resume, run failed cells again too")
	return cmd
}

// sweepResult prints the saturation table and returns the sweep's error,
// which carries its exit code (series.Sweep: 5 for a safety
// violation, 3 for a failed cell).
func sweepResult(st *state, rec saturation.SweepRecord, dir string, err error) error {
	if rec.ID != "" {
		fmt.Fprintln(st.stdout)
		report.SweepText(st.stdout, rec)
		fmt.Fprintf(st.stdout, "\nsweep directory: %s\nreport:          %s/%s\n", dir, dir, results.SweepReportFile)
	}
	return err
}

func newSaturateCmd(st *state) *cobra.Command {
	var (
		tf  testnetFlags
		col collectFlags
		sf  seriesFlags
		cf  criterionFlags
		sch = searchFlags{sc: saturation.DefaultSearch(200, 60)}
	)
	cmd := &cobra.Command{
		Use:   "saturate",
		Short: "Find the highest load the testnet sustains: an automatic, explicit saturation search",
		Long: `Search for the saturation point of a testnet: grow the rate per connection
geometrically from --start (×--growth, with shorter --probe-duration runs)
until a run fails the saturation criterion, then narrow the bracket with
full-length runs (-T) until the saturation point is known to ±--resolution,
reusing every finished run. Each run is an ordinary run directory under
steps/; saturate.json holds the search, the path it took (why each rate was
chosen, the evidence and the verdict of each run) and the outcome, and
saturate.md/saturate.html report the saturation point, the recommended QA
load (the highest passing rate, slightly under the saturation point), the
criterion, the path and the latency–throughput curve.

The criterion (printed in the report): throughput ratio ≥ --min-ratio;
block latency not trending upward through the steady part of the run (a
slope test); every mempool empty within --max-drain of the end of the load;
no round-skipping storm (--max-round-share). The connections (-c) stay
fixed; the search varies the rate per connection.

By default each run gets a fresh testnet; --reuse-testnet runs all of them
on one, drained and cooled down in between. A search killed halfway
continues with --resume DIR.`,
		Example: `  cometlab saturate
  cometlab saturate --validators 3 --start 400 -T 60s
  cometlab saturate --resolution 0.02 --max-runs 12`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fs := cmd.Flags()
			env, err := st.cellEnv(&tf, &col)
			if err != nil {
				return err
			}
			if sf.resume != "" {
				if err := resumeConflicts(fs); err != nil {
					return err
				}
				rec, err := series.ResumeSaturate(cmd.Context(), sf.resume, env)
				remember(st, sf.resume)
				return saturateResult(st, rec, sf.resume, err)
			}
			crit, err := cf.criterion()
			if err != nil {
				return err
			}
			_, r, err := baseManifest(&tf, &sf, fs, overrideFunc(func(fs *pflag.FlagSet, o *manifest.Overrides) error {
				if fs.Changed("connections") {
					o.Connections = &sch.conns
				}
				return nil
			}))
			if err != nil {
				return err
			}
			printWarnings(st.stderr, r)
			search, err := sch.search(fs, r)
			if err != nil {
				return err
			}
			rec, err := series.Saturate(cmd.Context(), series.SaturateOptions{Manifest: r, Search: search, Criterion: crit,
				Reuse: sf.reuse, CoolDown: sf.coolDown, Dir: sf.out, Env: env})
			if errors.Is(err, series.ErrInvalid) {
				return err // exit 2
			}
			dir := sf.out
			if dir == "" {
				dir = series.DefaultSaturateDir(rec.ID)
			}
			remember(st, dir)
			return saturateResult(st, rec, dir, err)
		},
	}
	fs := cmd.Flags()
	tf.register(fs)
	col.register(fs)
	tf.registerPerturb(fs)
	tf.registerHosts(fs)
	sf.register(fs, "run")
	cf.register(fs)
	sch.register(fs)
	return cmd
}

// searchFlags are saturate's flags of the search: the connections it
// keeps fixed and the search's parameters.
type searchFlags struct {
	conns int
	start string
	sc    saturation.SearchConfig
	probe time.Duration
}

func (f *searchFlags) register(fs *pflag.FlagSet) {
	sc := &f.sc
	fs.IntVarP(&f.conns, "connections", "c", 0, "websocket connections (c), fixed during the search (default from the manifest: 1)")
	fs.StringVar(&f.start, "start", "", "first rate per connection, e.g. 200, 400/s (default from the manifest: 200)")
	fs.Float64Var(&sc.Growth, "growth", sc.Growth, "factor between growth probes")
	fs.DurationVar(&f.probe, "probe-duration", 0, "duration of the growth probes; 0 makes every run full length (default a sixth of -T, at least 10s)")
	fs.Float64Var(&sc.Resolution, "resolution", sc.Resolution, "stop when the saturation point is known to ± this fraction: (H − L)/(H + L) ≤ resolution")
	fs.IntVar(&sc.MaxRuns, "max-runs", sc.MaxRuns, "the run budget: stop after this many runs")
	fs.Float64Var(&sc.MinRate, "min-rate", sc.MinRate, "lowest rate per connection to try")
	fs.Float64Var(&sc.MaxRate, "max-rate", sc.MaxRate, "highest rate per connection to try")
	fs.StringVar(&sc.Split, "split", sc.Split, `where the next run goes inside the bracket: "estimate" (from the failing run's committed rate and latency slope) or "midpoint" (plain bisection)`)
	fs.Float64Var(&sc.Margin, "margin", sc.Margin, "with --split estimate, how far below a failing run's estimate the next run goes (fraction)")
	fs.Float64Var(&sc.Quantum, "quantum", sc.Quantum, "rates are rounded to multiples of this, in tx/s")
}

// search is the search the flags ask for on the resolved manifest r (its
// defaults where a flag was not given: series.SearchFor).
func (f *searchFlags) search(fs *pflag.FlagSet, r manifest.Resolved) (saturation.SearchConfig, error) {
	search, given := f.sc, series.SearchGiven{Start: fs.Changed("start"), Probe: fs.Changed("probe-duration"), MinRate: fs.Changed("min-rate")}
	if given.Start {
		var err error
		if search.Start, err = manifest.ParseRate(f.start); err != nil {
			return search, exitcode.With(fmt.Errorf("--start: %w", err), exitcode.Usage)
		}
	}
	search.ProbeDurationS = f.probe.Seconds()
	return series.SearchFor(r, search, given)
}

// saturateResult prints the path and the outcome.
func saturateResult(st *state, rec saturation.SearchRecord, dir string, err error) error {
	if rec.ID != "" {
		fmt.Fprintln(st.stdout)
		report.SaturateText(st.stdout, rec)
		fmt.Fprintf(st.stdout, "\nsearch directory: %s\nreport:           %s/%s\n", dir, dir, results.SaturateReportFile)
	}
	return err
}

// parseSetFlag parses one --set value, KEY=V1,V2,….
func parseSetFlag(s string) (results.SweepParam, error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" || v == "" {
		return results.SweepParam{}, fmt.Errorf("--set %q: want KEY=VALUE[,VALUE…]", s)
	}
	key, err := manifest.SweepKey(strings.TrimSpace(k))
	if err != nil {
		return results.SweepParam{}, fmt.Errorf("--set %w", err)
	}
	p := results.SweepParam{Key: key}
	for _, x := range strings.Split(v, ",") {
		if x = strings.TrimSpace(x); x == "" {
			return results.SweepParam{}, fmt.Errorf("--set %q: empty value", s)
		}
		p.Values = append(p.Values, x)
	}
	return p, nil
}

// sweepGrid reads the sweep's grid flags: --rates as rates, --set as the
// settings swept; --connections and --repeat must be at least 1.
func sweepGrid(conns []int, rates, sets []string, repeat int) ([]float64, []results.SweepParam, error) {
	var rs []float64
	for _, s := range rates {
		r, err := manifest.ParseRate(s)
		if err != nil {
			return nil, nil, fmt.Errorf("--rates %q: %w", s, err)
		}
		rs = append(rs, r)
	}
	for _, c := range conns {
		if c < 1 {
			return nil, nil, fmt.Errorf("--connections: must be >= 1, got %d", c)
		}
	}
	var params []results.SweepParam
	for _, s := range sets {
		p, err := parseSetFlag(s)
		if err != nil {
			return nil, nil, err
		}
		params = append(params, p)
	}
	if repeat < 1 {
		return nil, nil, fmt.Errorf("--repeat: must be >= 1, got %d", repeat)
	}
	return rs, params, nil
}
