package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/experiment"
)

// collectFlags are what every command that loads a chain collects (run,
// sweep, saturate, ab, load): the same flags, bound into
// experiment.Collect.
type collectFlags struct {
	mf       metricsFlags
	minFree  string
	readLive bool
	// metricsAll is load's old --metrics-all, deprecated: --metrics all.
	metricsAll bool
}

func (f *collectFlags) register(fs *pflag.FlagSet) { f.registerWithout(fs) }

// registerLoad registers the flags of `load`: all but --no-resources (no
// process of a chain cometlab does not start is sampled), and
// --metrics-all, its old spelling of --metrics all, deprecated.
func (f *collectFlags) registerLoad(fs *pflag.FlagSet) {
	f.registerWithout(fs, "no-resources")
	fs.BoolVar(&f.metricsAll, "metrics-all", false, "keep every series (histogram buckets too): --metrics all")
	_ = fs.MarkDeprecated("metrics-all", "use --metrics all")
}

// registerWithout registers the flags but those named, which the command
// defines itself.
func (f *collectFlags) registerWithout(fs *pflag.FlagSet, skip ...string) {
	f.mf.metrics = experiment.MetricsDefault
	tmp := pflag.NewFlagSet("collect", pflag.ContinueOnError)
	f.mf.register(tmp, true)
	tmp.VisitAll(func(fl *pflag.Flag) {
		if !slices.Contains(skip, fl.Name) {
			fs.AddFlag(fl)
		}
	})
	fs.BoolVar(&f.readLive, "read-during-load", true, "read blocks as they commit, from a node other than the target, and print a live line every 5 s; false reads every block after the load (no RPC requests to the nodes during it)")
	fs.StringVar(&f.minFree, "min-free-disk", "1GiB", "disk guard: stop the load (the run is partial, its data kept) when the run directory's file system has less free space than this, checked every 5 s whatever the time scale, and cut the drain short at half of it (B, KiB, MiB, GiB, TiB; 0 turns the guard off)")
}

// collectNames are the flags of collectFlags: a resumed sweep or search
// takes them anew, as they are not part of what it measures.
var collectNames = []string{"scrape-interval", "metrics", "prometheus", "no-resources", "commit-samples", "read-during-load", "min-free-disk"}

// collect checks the flags and returns the collection options.
func (f *collectFlags) collect() (experiment.Collect, error) {
	if f.metricsAll {
		if f.mf.metrics == experiment.MetricsNone {
			return experiment.Collect{}, exitcode.With(errors.New("--metrics-all and --metrics none contradict each other"), exitcode.Usage)
		}
		f.mf.metrics = experiment.MetricsAll
	}
	if err := f.mf.check(true); err != nil {
		return experiment.Collect{}, err
	}
	free, err := parseBytes(f.minFree)
	if err != nil {
		return experiment.Collect{}, exitcode.With(fmt.Errorf("--min-free-disk: %w", err), exitcode.Usage)
	}
	if free == 0 {
		free = -1 // 0 turns the guard off
	}
	return experiment.Collect{ScrapeInterval: f.mf.interval, Metrics: f.mf.metrics, NoResources: f.mf.noResources,
		NoCommitSamples: !f.mf.commitSamples, Prometheus: f.mf.prometheus, MinFreeDisk: free, ReadAfterLoad: !f.readLive}, nil
}

// env is the environment of every command that starts nodes (run, sweep,
// saturate, ab, qa, testnet up, deploy), with --ssh-args for hosts.
func (st *state) env(tf *testnetFlags) (experiment.Env, error) {
	f, err := fetcher(st.stderr)
	if err != nil {
		return experiment.Env{}, err
	}
	env := st.chainEnv(tf.verbose)
	env.Fetcher, env.StartTimeout, env.SSHArgs = f, tf.startTimeout, tf.sshArgs
	return env, nil
}

// chainEnv is the environment of a command that watches a chain it does
// not start (load): no binaries to fetch, no nodes to wait for.
func (st *state) chainEnv(verbose bool) experiment.Env {
	return experiment.Env{Out: st.stderr, Logger: newLogger(st.stderr, verbose), Version: version, Hard: st.hard}
}

// metricsFlags select how node metrics are gathered.
type metricsFlags struct {
	interval      time.Duration
	metrics       string
	prometheus    string
	noResources   bool
	commitSamples bool
}

func (f *metricsFlags) register(fs *pflag.FlagSet, run bool) {
	if run {
		fs.DurationVar(&f.interval, "scrape-interval", time.Second, "how often every node's metrics and process resources are sampled")
		fs.StringVar(&f.metrics, "metrics", experiment.MetricsDefault, `node series kept in metrics.csv: "default" (the report's and a few more), "all" (every series, histogram buckets too) or "none"`)
		fs.StringVar(&f.prometheus, "prometheus", "", "read the node series from this Prometheus server (http://127.0.0.1:9090) after the run instead of scraping them")
		fs.BoolVar(&f.noResources, "no-resources", false, "do not sample node processes from /proc (for benchmarks)")
		_ = fs.MarkHidden("no-resources")
		fs.BoolVar(&f.commitSamples, "commit-samples", true, "ask every node's mempool and sample its CPU at each of its commits (mempool.csv, commitcpu.csv: "+
			"the block autopsy's per-height evidence); false saves one RPC request per node and height, and the autopsy's mempool_full reads the scrapes alone")
		return
	}
	fs.StringVar(&f.prometheus, "prometheus", "", "first rewrite metrics.csv from this Prometheus server (http://127.0.0.1:9090)")
	fs.DurationVar(&f.interval, "scrape-interval", time.Second, "with --prometheus: the resolution (query step) of the series read")
	fs.StringVar(&f.metrics, "metrics", experiment.MetricsDefault, `with --prometheus: "default" or "all" series`)
}

func (f *metricsFlags) check(run bool) error {
	c := experiment.Collect{ScrapeInterval: f.interval, Metrics: f.metrics, Prometheus: f.prometheus}
	if !run && f.metrics == experiment.MetricsNone { // report --prometheus reads series: none reads none
		return exitcode.With(fmt.Errorf("--metrics %q: want default or all", f.metrics), exitcode.Usage)
	}
	if f.interval <= 0 { // the flag's 0 is not the option's "the default"
		return exitcode.With(fmt.Errorf("--scrape-interval %s: want a positive duration", f.interval), exitcode.Usage)
	}
	return collectFlagErr(c.Check())
}

// collectFlagErr names each setting of a collection error by its flag
// (--metrics, --scrape-interval, --prometheus).
func collectFlagErr(err error) error {
	if err == nil {
		return nil
	}
	flags := map[string]string{experiment.SettingMetrics: "--metrics", experiment.SettingScrapeInterval: "--scrape-interval",
		experiment.SettingPrometheus: "--prometheus"}
	var msgs []string
	for _, e := range unjoin(err) {
		var ce *experiment.CollectError
		if errors.As(e, &ce) {
			msgs = append(msgs, ce.Named(flags[ce.Setting], flags[ce.With]))
			continue
		}
		msgs = append(msgs, e.Error())
	}
	return exitcode.With(errors.New(strings.Join(msgs, "\n")), exitcode.Usage)
}

// unjoin is err's errors when it joins several (errors.Join), else err.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
