package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/manifest"
)

// version is cometlab's version, set at build time with -ldflags.
var version = "dev"

// builtFrom is version with the commit this binary was built from, as
// the go command stamps it (vcs.revision; "+dirty" for uncommitted
// changes): what a QA report re-analysed by this binary names. version
// alone when the build has no VCS stamp (go run, go test).
func builtFrom() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return version
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision":
			rev = s.Value
		case s.Key == "vcs.modified" && s.Value == "true":
			dirty = "+dirty"
		}
	}
	if rev == "" {
		return version
	}
	return fmt.Sprintf("%s (commit %.12s%s)", version, rev, dirty)
}

// state is the process state a command sees, injectable for in-process
// tests of whole commands.
type state struct {
	stdout, stderr io.Writer
	args           []string
	hard           context.Context // a second interrupt
	// maxRemeasures is the series' series.Env.MaxRemeasures: 0
	// (the process's) the disturbance policy's budget; in-process tests
	// whose runs share the host with other tests, and check nothing of
	// the policy, set it negative (each disturbed run kept, recorded so).
	maxRemeasures int
}

// execute runs the command line in st and returns the exit code:
// Interrupted once ctx is done, else the one the error carries (see package
// exitcode), Usage for a command line cobra rejected where no hook sees it
// (rejectedUnhooked), Failed for any other error.
func execute(ctx context.Context, st *state) int {
	root := newRoot(st)
	err := root.ExecuteContext(ctx)
	switch {
	case err == nil:
		return exitcode.OK
	case ctx.Err() != nil:
		fmt.Fprintln(st.stderr, "cometlab: interrupted:", err)
		return exitcode.Interrupted
	}
	fmt.Fprintln(st.stderr, "cometlab:", err)
	if code, ok := exitcode.Of(err); ok {
		return code
	}
	if rejectedUnhooked(root, st.args) {
		return exitcode.Usage
	}
	return exitcode.Failed
}

// codeUsage makes cobra's own complaints about the command line carry exit
// code 2 where cobra makes them, in every command under root: the Args
// validators (argument counts, and NoArgs's "unknown command"), and the
// required flags and flag groups, which cobra checks after PreRunE and
// which a PreRunE in front now checks first, with cobra's own functions and
// messages. (Flag parsing errors get the code from the root's flag error
// function.) The help and completion commands, which cobra would add only
// once it executes, are added first so that theirs are covered too; as the
// completion commands keep the writer they are made with, codeUsage comes
// after SetOut.
func codeUsage(root *cobra.Command) {
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if args := c.Args; args != nil {
			c.Args = func(cmd *cobra.Command, a []string) error {
				return exitcode.With(args(cmd, a), exitcode.Usage)
			}
		}
		pre, preE := c.PreRun, c.PreRunE
		c.PreRun = nil
		c.PreRunE = func(cmd *cobra.Command, a []string) error {
			if err := cmd.ValidateRequiredFlags(); err != nil {
				return exitcode.With(err, exitcode.Usage)
			}
			if err := cmd.ValidateFlagGroups(); err != nil {
				return exitcode.With(err, exitcode.Usage)
			}
			if preE != nil {
				return preE(cmd, a)
			}
			if pre != nil {
				pre(cmd, a)
			}
			return nil
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// rejectedUnhooked reports whether cobra rejected the command line where
// no hook of codeUsage runs, by asking cobra again (its answers depend on
// the command tree and the command line alone): an unknown command at the
// root, which Find reports itself while the root has no Args (an Args of
// the root's own would never be called, as the root runs nothing), and the
// arguments of a command that cobra adds only while it executes (the
// hidden __complete of shell completion).
func rejectedUnhooked(root *cobra.Command, args []string) bool {
	c, rest, err := root.Find(args)
	if err != nil {
		return true
	}
	if !c.DisableFlagParsing {
		rest = c.Flags().Args()
	}
	return c.ValidateArgs(rest) != nil
}

// newRoot builds the command tree, reading st's command line and writing to
// st's stdout and stderr.
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
metric worse than the baseline (gate: than the history); 5 a safety
violation (nodes disagreed, a transaction committed twice or lost once
accepted); 6 gate: too few runs to judge; 130 interrupted.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return exitcode.With(err, exitcode.Usage) })
	root.AddCommand(newRunCmd(st), newLoadCmd(st), newAnalyzeCmd(st), newReportCmd(st), newReadbackCmd(st), newTestnetCmd(st))
	root.AddCommand(newPrometheusConfigCmd(st), newGrafanaDashboardCmd(st))
	root.AddCommand(newSweepCmd(st), newSaturateCmd(st))
	root.AddCommand(newCompareCmd(st), newABCmd(st), newQACmd(st), newVersionsCmd(st), newSentinelCmd(st))
	root.AddCommand(newDeployCmd(st), newManifestCmd(st))
	root.AddCommand(newHistoryCmd(st), newGateCmd(st), newServeCmd(st))
	root.SetArgs(st.args)
	root.SetOut(st.stdout)
	root.SetErr(st.stderr)
	codeUsage(root)
	return root
}

// loadFlags are the load knobs, named as CometBFT's loadtime names them.
type loadFlags struct {
	connections int
	rate        string
	workFlags

	shape             string
	rateTo, amplitude string
	steps             string
	step, on, off     time.Duration
	period            time.Duration
	trace             string
	txs               string
}

func (f *loadFlags) register(fs *pflag.FlagSet) {
	fs.IntVarP(&f.connections, "connections", "c", 0, "websocket connections (c) (default from the manifest: 1)")
	fs.StringVarP(&f.rate, "rate", "r", "", "transactions per second per connection (r), e.g. 200, 400/s, 24000/m (default from the manifest: 200)")
	f.workFlags.register(fs, "")
	fs.StringVar(&f.shape, "shape", "", `how the rate changes: constant, ramp, square, sine or trace; replaces the manifest's shape (default from the manifest: constant)`)
	fs.StringVar(&f.rateTo, "rate-to", "", "ramp: the rate per connection at the end, reached linearly from --rate (e.g. --shape ramp --rate 400 --rate-to 2400)")
	fs.StringVar(&f.steps, "steps", "", "ramp in steps: rates per connection, each held for --step, the last until the end (e.g. --steps 200,400,800 --step 30s)")
	fs.DurationVar(&f.step, "step", 0, "ramp in steps: how long each of --steps lasts")
	fs.DurationVar(&f.on, "on", 0, "square: how long each burst at --rate lasts (e.g. --shape square --on 20s --off 10s)")
	fs.DurationVar(&f.off, "off", 0, "square: how long each pause between bursts lasts")
	fs.StringVar(&f.amplitude, "amplitude", "", "sine: the swing around --rate, at most --rate (e.g. --shape sine --rate 800 --amplitude 400 --period 60s)")
	fs.DurationVar(&f.period, "period", 0, "sine: the period of the swing")
	fs.StringVar(&f.txs, "txs", "", "send your own transactions from FILE, one a line in hex or base64, in order at the load's pace (instead of loadtime payloads; found on the chain by SHA-256)")
	fs.StringVar(&f.trace, "trace", "", "trace: a CSV file of offset_s,rate lines (rate per connection from offset_s on) replayed over --duration")
}

// overrides turns the flags the user set into manifest overrides.
func (f *loadFlags) overrides(fs *pflag.FlagSet, o *manifest.Overrides) error {
	if fs.Changed("connections") {
		o.Connections = &f.connections
	}
	if fs.Changed("rate") {
		r, err := manifest.ParseRate(f.rate)
		if err != nil {
			return exitcode.With(fmt.Errorf("--rate: %w", err), exitcode.Usage)
		}
		o.Rate = &r
	}
	if err := f.workFlags.overrides(fs, o); err != nil {
		return err
	}
	return f.shapeOverrides(fs, o)
}

// workFlags are the load's size, duration and pacing: the load flags a
// series (sweep, saturate) takes too, registered and applied here only.
type workFlags struct {
	size     int
	duration time.Duration
	pacing   string
}

// register adds --size, --duration and --pacing; what is a series' run
// ("cell", "run"), "" for one run.
func (f *workFlags) register(fs *pflag.FlagSet, what string) {
	sends := "how long to send load (T), e.g. 90s, 2m"
	if what != "" {
		sends = "how long each " + what + " sends load (T), e.g. 60s, 90s"
	}
	fs.IntVarP(&f.size, "size", "s", 0, "bytes per transaction (s), even (default from the manifest: 1024)")
	fs.DurationVarP(&f.duration, "duration", "T", 0, sends+" (default from the manifest: 60s)")
	fs.StringVar(&f.pacing, "pacing", "", `"even" spaces sends evenly; "burst" sends each second's r at once, like loadtime (default from the manifest: even)`)
}

// overrides adds the size, duration and pacing the user set to o.
func (f *workFlags) overrides(fs *pflag.FlagSet, o *manifest.Overrides) error {
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

// shapeOverrides turns the shape flags the user set into overrides.
func (f *loadFlags) shapeOverrides(fs *pflag.FlagSet, o *manifest.Overrides) error {
	rate := func(flag, v string) (*float64, error) {
		if !fs.Changed(flag) {
			return nil, nil
		}
		r, err := manifest.ParseRate(v)
		if err != nil {
			return nil, exitcode.With(fmt.Errorf("--%s: %w", flag, err), exitcode.Usage)
		}
		return &r, nil
	}
	var err error
	if o.RateTo, err = rate("rate-to", f.rateTo); err != nil {
		return err
	}
	if o.Amplitude, err = rate("amplitude", f.amplitude); err != nil {
		return err
	}
	if fs.Changed("steps") {
		o.Steps = []float64{}
		for _, v := range strings.Split(f.steps, ",") {
			r, err := manifest.ParseRate(v)
			if err != nil {
				return exitcode.With(fmt.Errorf("--steps: %w", err), exitcode.Usage)
			}
			o.Steps = append(o.Steps, r)
		}
	}
	for _, d := range []struct {
		flag string
		v    *time.Duration
		dst  **time.Duration
	}{{"step", &f.step, &o.Step}, {"on", &f.on, &o.On}, {"off", &f.off, &o.Off}, {"period", &f.period, &o.Period}} {
		if fs.Changed(d.flag) {
			*d.dst = d.v
		}
	}
	if fs.Changed("shape") {
		o.Shape = &f.shape
	}
	if fs.Changed("trace") {
		o.Trace = &f.trace
	}
	if fs.Changed("txs") {
		o.Txs = &f.txs
	}
	return nil
}

// testnetFlags select the testnet.
type testnetFlags struct {
	manifest     string
	format       string
	lenient      bool
	validators   int
	version      string
	binary       string
	app          string
	startTimeout time.Duration
	verbose      bool
	timeScale    string
	perturb      perturbFlags
	sshArgs      string
}

// perturbFlags are --perturb and --partition, laid over the manifest.
type perturbFlags struct {
	perturb   []string
	partition string
}

func (f *testnetFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.manifest, "manifest", "", "TOML manifest describing the testnet and the load, cometlab's own or a CometBFT e2e manifest (default: the built-in 4-validator kvstore testnet)")
	registerFormat(fs, &f.format, &f.lenient)
	fs.IntVar(&f.validators, "validators", 0, "number of validators (default from the manifest: 4)")
	fs.StringVar(&f.version, "cometbft-version", "", "CometBFT release to run, built once and cached (see 'cometlab versions'; default "+cometbft.DefaultVersion+")")
	fs.StringVar(&f.binary, "cometbft-binary", "", "use this cometbft binary instead of fetching a release")
	fs.StringVar(&f.app, "app", "", `ABCI app: "kvstore" (built into cometbft), "e2e" (CometBFT's e2e QA app of the same release) or "sdk" (cometlab's own Cosmos SDK chain, signed bank sends; docs/sdk.md); their settings with --set app.KEY=V in a sweep or an [app] table in the manifest (default from the manifest: kvstore)`)
	fs.DurationVar(&f.startTimeout, "start-timeout", 90*time.Second, "how long every node has to advance two heights after start (× the time scale)")
	fs.StringVar(&f.timeScale, "time-scale", "", "run the testnet k times slower than real time, k ≥ 1: every time constant of the nodes, the zones and the load ×k, every rate ÷k; "+
		"figures are reported in model time (docs/timescale.md); \"auto\" (run only) chooses k from a short probe of the testnet on this host (default from the manifest: 1)")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "debug logs on stderr")
}

// registerHosts adds --ssh-args (for the commands that can run a testnet
// on [host.*] hosts: run, sweep, saturate, ab, qa and deploy).
func (f *testnetFlags) registerHosts(fs *pflag.FlagSet) {
	fs.StringVar(&f.sshArgs, "ssh-args", "", `extra ssh options for every host of a testnet on hosts (ansible_ssh_common_args), e.g. "-o UserKnownHostsFile=known_hosts"; not recorded: a series resumed with --resume takes it again`)
}

// registerPerturb adds --perturb (for the commands that run a testnet
// under load).
func (f *testnetFlags) registerPerturb(fs *pflag.FlagSet) {
	fs.StringArrayVar(&f.perturb.perturb, "perturb", nil, "perturb a node during the load, NODE:ACTION[@WHEN][,down=D][,every=D][,count=N][,to=RELEASE]: "+
		"ACTION is kill, restart, pause, disconnect, wipe or upgrade (restart on the same home with release to=, a later one the release facts allow), "+
		"WHEN a time after the load starts (20s) or a height (h50); "+
		"repeatable, one per node; replaces the manifest's [perturb.NODE] (e.g. validator03:kill@20s,down=5s; validator02:upgrade@10s,to=v1.0.1)")
	fs.StringVar(&f.perturb.partition, "partition", "", "cut the network in groups during the load, SPLIT[@AT][,duration=D]: SPLIT is stake shares (50/50, 75/25) "+
		"or node names joined by + in groups separated by / (validator01+validator02/validator03+validator04), AT a time after the load starts; "+
		"replaces the manifest's [partition] (e.g. 50/50@20s,duration=30s)")
}

// registerFormat adds --format and --lenient, how a manifest file is read.
func registerFormat(fs *pflag.FlagSet, format *string, lenient *bool) {
	fs.StringVar(format, "format", manifest.FormatAuto, `manifest format: "cometlab", "e2e" (CometBFT's test/e2e and qa-infra manifests) or "auto" (e2e when the file has a key only that format has, e.g. a [validators] table of powers); a format given wins over the detection`)
	fs.BoolVar(lenient, "lenient", false, "e2e manifests: take the file without the keys that do not change what is measured (ipv6, prometheus = false, constant_flip, initial_state, …), each printed as a warning; every other key cometlab does not take still stops it (exit 2)")
}

// printWarnings prints what reading the manifest took leniently, before
// anything starts.
func printWarnings(w io.Writer, r manifest.Resolved) {
	for _, s := range r.Warnings {
		fmt.Fprintln(w, "cometlab: warning:", s)
	}
}

// overrider is a group of flags that adds the ones the user set to a
// manifest's overrides.
type overrider interface {
	overrides(fs *pflag.FlagSet, o *manifest.Overrides) error
}

// overrideFunc is an overrider of a command's own flags.
type overrideFunc func(fs *pflag.FlagSet, o *manifest.Overrides) error

func (f overrideFunc) overrides(fs *pflag.FlagSet, o *manifest.Overrides) error { return f(fs, o) }

// manifestSource is the one way a command turns its flags into a
// manifest: the file the testnet flags name (or the built-in default),
// read as --format and --lenient say, with every flag the user set, the
// testnet flags' and each group's, as overrides. A command resolves it
// (resolveSource, or manifest.Source's methods); an A/B experiment gives
// it to every side.
func manifestSource(tf *testnetFlags, fs *pflag.FlagSet, groups ...overrider) (manifest.Source, error) {
	src := manifest.Source{Path: tf.manifest, Read: manifest.ReadOptions{Format: tf.format, Lenient: tf.lenient}}
	for _, g := range append([]overrider{tf}, groups...) {
		if err := g.overrides(fs, &src.Overrides); err != nil {
			return src, err
		}
	}
	return src, nil
}

// resolveSource builds and resolves src's manifest; every error is bad
// input (exit 2).
func resolveSource(src manifest.Source) (manifest.Manifest, manifest.Resolved, error) {
	m, r, err := src.Resolve()
	if err != nil {
		return m, r, exitcode.With(err, exitcode.Usage)
	}
	return m, r, nil
}

// resolve is manifestSource then resolveSource: the resolved manifest of
// a command's flags.
func resolve(tf *testnetFlags, fs *pflag.FlagSet, groups ...overrider) (manifest.Resolved, error) {
	src, err := manifestSource(tf, fs, groups...)
	if err != nil {
		return manifest.Resolved{}, err
	}
	_, r, err := resolveSource(src)
	return r, err
}

// overrides adds the testnet flags the user set to o, --perturb and
// --partition included.
func (f *testnetFlags) overrides(fs *pflag.FlagSet, o *manifest.Overrides) error {
	if fs.Changed("validators") {
		o.Validators = &f.validators
	}
	if fs.Changed("cometbft-version") {
		o.CometBFTVersion = &f.version
	}
	if fs.Changed("cometbft-binary") {
		o.CometBFTBinary = &f.binary
	}
	if fs.Changed("app") {
		o.App = &f.app
	}
	if fs.Changed("perturb") {
		o.Perturb = f.perturb.perturb
	}
	if fs.Changed("partition") {
		o.Partition = &f.perturb.partition
	}
	if fs.Changed("time-scale") {
		o.TimeScale = &f.timeScale
	}
	return nil
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
