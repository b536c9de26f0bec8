package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/manifest"
)

// version is cometlab's version, set at build time with -ldflags.
var version = "dev"

// Exit codes, documented in the README and in `cometlab --help`.
const (
	exitOK          = 0   // the run completed
	exitFailed      = 1   // the run (or command) failed; see the error and run.json
	exitUsage       = 2   // bad flags, manifest or arguments: nothing was run
	exitPartial     = 3   // the run finished but is partial (e.g. the mempools never drained)
	exitRegression  = 4   // compare: some metric of some candidate is worse than the baseline
	exitInterrupted = 130 // interrupted (Ctrl-C or SIGTERM); what was gathered is on disk
)

// state is the process state a command sees, injectable for in-process
// tests of whole commands.
type state struct {
	stdout, stderr io.Writer
	args           []string
	hard           context.Context // a second interrupt
}

// usageError marks errors in what the user asked for (exit 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// partialError marks a run that ended partial (exit 3).
var errPartial = errors.New("the run is partial")

func execute(ctx context.Context, st *state) int {
	root := newRoot(st)
	root.SetArgs(st.args)
	root.SetOut(st.stdout)
	root.SetErr(st.stderr)
	err := root.ExecuteContext(ctx)
	switch {
	case err == nil:
		return exitOK
	case ctx.Err() != nil:
		fmt.Fprintln(st.stderr, "cometlab: interrupted:", err)
		return exitInterrupted
	case errors.Is(err, errPartial):
		fmt.Fprintln(st.stderr, "cometlab:", err)
		return exitPartial
	case errors.Is(err, errRegression):
		fmt.Fprintln(st.stderr, "cometlab:", err)
		return exitRegression
	case errors.Is(err, cometbft.ErrNotBuildable):
		// A release that cannot be built is bad input: nothing was run.
		fmt.Fprintln(st.stderr, "cometlab:", err)
		return exitUsage
	}
	fmt.Fprintln(st.stderr, "cometlab:", err)
	var ue usageError
	if errors.As(err, &ue) || isCobraUsage(err) {
		return exitUsage
	}
	return exitFailed
}

// isCobraUsage recognises cobra's own usage errors that do not pass through
// the flag-error hook: argument counts, required flags, unknown commands.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "accepts ", "requires ", "required flag(s)"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

func newRoot(st *state) *cobra.Command {
	root := &cobra.Command{
		Use:   "cometlab",
		Short: "Performance QA for CometBFT chains, on real nodes",
		Long: `cometlab runs testnets of real CometBFT nodes, drives open-loop transaction
load into them, reads back what the chain committed, accounts for every
transaction and writes a QA report.

Start with 'cometlab run': it builds (once) and starts a 4-validator testnet,
sends 200 tx/s for 60 s, and writes a run directory with the report.

Exit codes: 0 complete; 1 failed; 2 bad flags, manifest or arguments;
3 the run is partial (e.g. the mempools never drained); 4 compare found a
metric worse than the baseline; 130 interrupted.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(newRunCmd(st), newLoadCmd(st), newAnalyzeCmd(st), newReportCmd(st), newReadbackCmd(st), newTestnetCmd(st))
	root.AddCommand(newPrometheusConfigCmd(st), newGrafanaDashboardCmd(st))
	root.AddCommand(newSweepCmd(st), newSaturateCmd(st))
	root.AddCommand(newCompareCmd(st))
	root.AddCommand(newVersionsCmd(st))
	return root
}

// loadFlags are the load knobs, named as CometBFT's loadtime names them.
type loadFlags struct {
	connections int
	rate        string
	size        int
	duration    time.Duration
	pacing      string
}

func (f *loadFlags) register(fs *pflag.FlagSet) {
	fs.IntVarP(&f.connections, "connections", "c", 0, "websocket connections (c) (default from the manifest: 1)")
	fs.StringVarP(&f.rate, "rate", "r", "", "transactions per second per connection (r), e.g. 200, 400/s, 24000/m (default from the manifest: 200)")
	fs.IntVarP(&f.size, "size", "s", 0, "bytes per transaction (s), even (default from the manifest: 1024)")
	fs.DurationVarP(&f.duration, "duration", "T", 0, "how long to send load (T), e.g. 90s, 2m (default from the manifest: 60s)")
	fs.StringVar(&f.pacing, "pacing", "", `"even" spaces sends evenly; "burst" sends each second's r at once, like loadtime (default from the manifest: even)`)
}

// overrides turns the flags the user set into manifest overrides.
func (f *loadFlags) overrides(fs *pflag.FlagSet, o *manifest.Overrides) error {
	if fs.Changed("connections") {
		o.Connections = &f.connections
	}
	if fs.Changed("rate") {
		r, err := manifest.ParseRate(f.rate)
		if err != nil {
			return usageError{fmt.Errorf("--rate: %w", err)}
		}
		o.Rate = &r
	}
	if fs.Changed("size") {
		o.Size = &f.size
	}
	if fs.Changed("duration") {
		o.Duration = &f.duration
	}
	if fs.Changed("pacing") {
		o.Pacing = &f.pacing
	}
	return nil
}

// testnetFlags select the testnet.
type testnetFlags struct {
	manifest     string
	validators   int
	version      string
	binary       string
	startTimeout time.Duration
	verbose      bool
}

func (f *testnetFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.manifest, "manifest", "", "TOML manifest describing the testnet and the load (default: the built-in 4-validator kvstore testnet)")
	fs.IntVar(&f.validators, "validators", 0, "number of validators (default from the manifest: 4)")
	fs.StringVar(&f.version, "cometbft-version", "", "CometBFT release to run, built once and cached (see 'cometlab versions'; default "+cometbft.DefaultVersion+")")
	fs.StringVar(&f.binary, "cometbft-binary", "", "use this cometbft binary instead of fetching a release")
	fs.DurationVar(&f.startTimeout, "start-timeout", 90*time.Second, "how long every node has to advance two heights after start")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "debug logs on stderr")
}

// load reads --manifest, or returns the built-in default.
func (f *testnetFlags) load() (manifest.Manifest, error) {
	if f.manifest == "" {
		return manifest.Default(), nil
	}
	m, err := manifest.Load(f.manifest)
	if err != nil {
		return m, usageError{err}
	}
	return m, nil
}

// overrides adds the testnet flags the user set to o.
func (f *testnetFlags) overrides(fs *pflag.FlagSet, o *manifest.Overrides) {
	if fs.Changed("validators") {
		o.Validators = &f.validators
	}
	if fs.Changed("cometbft-version") {
		o.CometBFTVersion = &f.version
	}
	if fs.Changed("cometbft-binary") {
		o.CometBFTBinary = &f.binary
	}
}

// resolve loads the manifest (or the default), applies flag overrides and
// resolves it.
func resolve(tf *testnetFlags, lf *loadFlags, fs *pflag.FlagSet, extra func(*manifest.Overrides)) (manifest.Resolved, error) {
	m, err := tf.load()
	if err != nil {
		return manifest.Resolved{}, err
	}
	var o manifest.Overrides
	if err := lf.overrides(fs, &o); err != nil {
		return manifest.Resolved{}, err
	}
	tf.overrides(fs, &o)
	if extra != nil {
		extra(&o)
	}
	if err := m.Apply(o); err != nil {
		return manifest.Resolved{}, usageError{err}
	}
	r, err := m.Resolve()
	if err != nil {
		return manifest.Resolved{}, usageError{err}
	}
	return r, nil
}

func newLogger(w io.Writer, verbose bool) *slog.Logger {
	if !verbose {
		return nil
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func fetcher(w io.Writer) (*cometbft.Fetcher, error) {
	dir, err := cometbft.DefaultCacheDir()
	if err != nil {
		return nil, err
	}
	return &cometbft.Fetcher{CacheDir: dir, Progress: w}, nil
}
