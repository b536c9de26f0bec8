package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/qa"
	"github.com/cometlab/cometlab/internal/report"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/saturation"
)

func newRunCmd(st *state) *cobra.Command {
	var (
		tf     testnetFlags
		lf     loadFlags
		cf     collectFlags
		out    string
		target string
	)
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run one QA experiment end to end on a local testnet of real CometBFT nodes",
		Long: `Run one QA experiment: build (once, cached) and start a testnet of real
CometBFT nodes on loopback, send open-loop load to one node, wait for the
mempools to drain, read every block of the run back over RPC, account for
every transaction (committed, rejected with the reason, or missing), stop
the testnet, and write summary.json and report.md in the run directory.

With no flags it runs the built-in default: 4 validators of CometBFT
` + "v0.40.0" + ` with the kvstore app, 1 connection × 200 tx/s of 1024-byte
transactions for 60 s. Flags override the manifest.

Ctrl-C stops the load and still reads back what was sent (the run is marked
partial); a second Ctrl-C stops at once. Nodes are always stopped.`,
		Example: `  cometlab run
  cometlab run -c 2 -r 400 -T 90s
  cometlab run -T 2m --perturb validator03:kill@20s,down=5s,every=60s,count=2
  cometlab run -T 60s --partition 50/50@20s,duration=15s
  cometlab run --manifest testnet.toml --out runs/baseline`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m, err := resolve(&tf, cmd.Flags(), &lf, overrideFunc(func(fs *pflag.FlagSet, o *manifest.Overrides) error {
				if fs.Changed("target") {
					o.Target = &target
				}
				return nil
			}))
			if err != nil {
				return err
			}
			printWarnings(st.stderr, m)
			c, err := cf.collect()
			if err != nil {
				return err
			}
			env, err := st.env(&tf)
			if err != nil {
				return err
			}
			res, err := experiment.Run(cmd.Context(), experiment.Options{Manifest: m, Dir: out, Env: env, Collect: c})
			remember(st, res.Dir)
			return printResult(st, res, err)
		},
	}
	tf.register(cmd.Flags())
	tf.registerPerturb(cmd.Flags())
	tf.registerHosts(cmd.Flags())
	lf.register(cmd.Flags())
	cf.register(cmd.Flags())
	cmd.Flags().StringVar(&out, "out", "", "run directory (default runs/<run-id> under the current directory)")
	cmd.Flags().StringVar(&target, "target", "", "node that receives the load (default: the first validator)")
	return cmd
}

// parseBytes parses a size as people write it: "512MiB", "1GiB", "1.5 GiB",
// "100 KiB", or a plain number of bytes.
func parseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   float64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}}
	mult := 1.0
	for _, u := range units {
		if num, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(num), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) {
		return 0, fmt.Errorf("invalid size %q (want e.g. 1GiB, 512MiB or a number of bytes)", s)
	}
	return int64(v * mult), nil
}

// printResult prints the key figures and where the report is, and returns
// the run's error, else its verdict (experiment.Result.Verdict: a safety
// violation, exit 5, before a partial run, 3).
func printResult(st *state, res experiment.Result, err error) error {
	if res.Summary.Metrics != nil {
		fmt.Fprintln(st.stdout)
		report.Table(st.stdout, res.Summary)
		fmt.Fprintf(st.stdout, "\nrun directory: %s\nreport:        %s/%s\n", res.Dir, res.Dir, results.ReportFile)
	} else if res.Dir != "" {
		fmt.Fprintf(st.stdout, "run directory: %s\n", res.Dir)
	}
	if err != nil {
		return err
	}
	return res.Verdict()
}

func newLoadCmd(st *state) *cobra.Command {
	var (
		lf       loadFlags
		cf       collectFlags
		endpoint string
		manPath  string
		out      string
		readback bool
		drain    time.Duration
		verbose  bool
		murls    []string
		mnames   []string
		key      string
		tnDir    string
		runID    string
		offset   int
		startAt  string
		lead     time.Duration
		fromHere bool
	)
	cmd := &cobra.Command{
		Use:   "load",
		Short: "Send open-loop load to an existing chain (any CometBFT RPC endpoint)",
		Long: `Send open-loop load to a node cometlab did not start, then (by default)
read the chain back and report like 'run' does. Transactions carry
loadtime-compatible payloads, so CometBFT's own loadtime report can read them
too. With --readback=false only the send log is written (for sinks and
gateways that are not CometBFT nodes).`,
		Example: `  cometlab load --endpoint ws://127.0.0.1:26657/websocket -r 400 -T 30s`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var tl experiment.TestnetLoad
			if tnDir != "" {
				if endpoint != "" || len(murls) > 0 {
					return exitcode.With(fmt.Errorf("--testnet: give it or --endpoint and --metrics-url, not both"), exitcode.Usage)
				}
				var err error
				if tl, err = experiment.ReadTestnetLoad(tnDir); err != nil {
					return err
				}
				if manPath == "" {
					manPath = tl.Manifest
				}
			} else if endpoint == "" {
				return exitcode.With(fmt.Errorf("--endpoint or --testnet: one is required"), exitcode.Usage)
			}
			drainTimeout := overrideFunc(func(fs *pflag.FlagSet, o *manifest.Overrides) error {
				if fs.Changed("drain-timeout") {
					o.DrainTimeout = &drain
				}
				return nil
			})
			r, err := resolve(&testnetFlags{manifest: manPath}, cmd.Flags(), &lf, drainTimeout)
			if err != nil {
				return err
			}
			c, err := cf.collect()
			if err != nil {
				return err
			}
			opts := experiment.LoadOptions{
				Endpoint: endpoint, Manifest: r, Dir: out, Readback: readback, ClientKey: key,
				Env: st.chainEnv(verbose), Collect: c,
				MetricsURLs: murls, NodeNames: mnames, RunID: runID, ConnOffset: offset,
			}
			if tnDir != "" {
				tl.Apply(&opts)
				if fromHere {
					opts.LoadHosts = nil
				} else if opts.LoadHosts != nil {
					opts.LoadHosts.StartLead = lead
				}
			}
			if startAt != "" {
				if opts.StartAt, err = time.Parse(time.RFC3339Nano, startAt); err != nil {
					return exitcode.With(fmt.Errorf("--start-at %q: want an RFC 3339 time (2026-11-23T10:00:00.5Z): %w", startAt, err), exitcode.Usage)
				}
			}
			res, err := experiment.Load(cmd.Context(), opts)
			remember(st, res.Dir)
			return printResult(st, res, err)
		},
	}
	lf.register(cmd.Flags())
	cf.registerLoad(cmd.Flags())
	cmd.Flags().SetOutput(st.stderr) // the deprecation of --metrics-all on stderr, as ab's (cobra would print it on stdout)
	cmd.Flags().StringVar(&endpoint, "endpoint", "", "the node's RPC endpoint: ws://host:port/websocket or http://host:port (this or --testnet is required)")
	cmd.Flags().StringVar(&tnDir, "testnet", "", "load the testnet running from DIR ('cometlab deploy --out DIR' or 'testnet up --dir DIR'): its load target's endpoint, every node's metrics scraped by name, the [load] of a deployment's DIR/manifest.toml (unless --manifest), and its [load] hosts, from which the load is sent (unless --from-here)")
	cmd.Flags().StringVar(&manPath, "manifest", "", "take the [load] settings from this manifest (its testnet part is ignored; default: the built-in one, or a deployment's with --testnet)")
	cmd.Flags().StringVar(&out, "out", "", "run directory (default runs/<run-id> under the current directory)")
	cmd.Flags().BoolVar(&readback, "readback", true, "after the load, wait for the mempool to drain and read the chain back")
	cmd.Flags().DurationVar(&drain, "drain-timeout", 0, "how long to wait for the mempool to empty after the load (default from the manifest: 60s)")
	cmd.Flags().StringVar(&key, "client-key", "", "send this key as the X-Client-Key header on every websocket handshake, so that a gateway (cometlab sentinel) tells this client apart from others on the same host")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "debug logs on stderr")
	cmd.Flags().StringSliceVar(&murls, "metrics-url", nil, "scrape this node's Prometheus endpoint (http://host:26660/metrics) into metrics.csv during the run; repeat or comma-separate for several nodes")
	cmd.Flags().StringSliceVar(&mnames, "node-name", nil, "the names of the --metrics-url nodes in the report, in the same order (default: each URL's host:port)")
	cmd.Flags().BoolVar(&fromHere, "from-here", false, "with --testnet of a deployment with [load] hosts: send the load from this host instead")
	cmd.Flags().DurationVar(&lead, "start-lead", experiment.DefaultStartLead, "with [load] hosts: how far ahead the hosts' common start time is set (time for ansible-playbook to start the load on every host)")
	cmd.Flags().StringVar(&runID, "run-id", "", "use this run id (a UUID) instead of a new one; load hosts get their run's, so that the chain walk finds every host's transactions")
	cmd.Flags().IntVar(&offset, "conn-offset", 0, "number the connections from this one (a load host's share of a load from several hosts)")
	cmd.Flags().StringVar(&startAt, "start-at", "", "start the load at this time by this host's clock (RFC 3339, e.g. 2026-11-23T10:00:00.5Z) rather than at once; more than 1 s late fails (load hosts)")
	return cmd
}

func newAnalyzeCmd(st *state) *cobra.Command {
	return &cobra.Command{
		Use:   "analyze RUN_DIR",
		Short: "Recompute summary.json of a run directory from its files alone",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sum, err := analysis.Analyze(args[0])
			if err != nil {
				return err
			}
			report.Table(st.stdout, sum)
			return nil
		},
	}
}

func newReportCmd(st *state) *cobra.Command {
	var mf metricsFlags
	cmd := &cobra.Command{
		Use:   "report RUN_DIR|SWEEP_DIR|QA_DIR",
		Short: "Recompute summary.json and rewrite report.md of a run directory (or sweep.md of a sweep, qa.md of a QA) from its files alone",
		Long: `Recompute summary.json and rewrite report.md of a run directory from its
files alone. With --prometheus, metrics.csv is first rewritten from a
Prometheus server that scraped the run's nodes (see 'cometlab
prometheus-config'), over the run's window. Given a sweep directory (one
with sweep.json), rewrite its sweep.md and sweep.html from sweep.json and
the cells' run directories (each cell's own report is left as it is).
Given a QA directory (one with qa.json), analyse every run of its steps
again, compare its compared tests again, derive every verdict again with
this cometlab (recorded in qa.json as analyzed_by) and rewrite qa.json,
qa.md and qa.html: a report never carries a verdict its code no longer
gives.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := mf.check(false); err != nil {
				return err
			}
			if _, err := os.Stat(filepath.Join(args[0], results.QAFile)); err == nil {
				if mf.prometheus != "" {
					return exitcode.With(fmt.Errorf("--prometheus applies to a run directory, not a QA"), exitcode.Usage)
				}
				if _, err := qa.Report(args[0], builtFrom(), func(format string, a ...any) { fmt.Fprintf(st.stderr, format+"\n", a...) }); err != nil {
					return err
				}
				fmt.Fprintf(st.stdout, "report: %s/%s\n", args[0], results.QAReportFile)
				return nil
			}
			if results.IsSweepDir(args[0]) {
				if mf.prometheus != "" {
					return exitcode.With(fmt.Errorf("--prometheus applies to a run directory, not a sweep"), exitcode.Usage)
				}
				rec, err := saturation.ReadSweep(args[0])
				if err != nil {
					return err
				}
				if err := report.WriteSweep(args[0], rec, report.Options{}); err != nil {
					return err
				}
				fmt.Fprintf(st.stdout, "report: %s/%s\n", args[0], results.SweepReportFile)
				return nil
			}
			if mf.prometheus != "" {
				stats, err := experiment.ReadPrometheus(cmd.Context(), args[0], experiment.PrometheusOptions{
					URL: mf.prometheus, Step: mf.interval, All: mf.metrics == experiment.MetricsAll})
				if err != nil {
					return err
				}
				for _, s := range stats {
					fmt.Fprintf(st.stderr, "metrics: %s: %d series, %d rows from prometheus\n", s.Node, s.Series, s.Rows)
				}
			}
			sum, in, err := analysis.AnalyzeInput(args[0])
			if err != nil {
				return err
			}
			if err := report.Write(args[0], sum, report.Options{Input: &in}); err != nil {
				return err
			}
			fmt.Fprintf(st.stdout, "report: %s/%s\n", args[0], results.ReportFile)
			return nil
		},
	}
	mf.register(cmd.Flags(), false)
	return cmd
}

func newTestnetCmd(st *state) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "testnet",
		Short: "Keep a local testnet running for manual use",
	}
	var (
		tf  testnetFlags
		dir string
	)
	up := &cobra.Command{
		Use:   "up",
		Short: "Start a testnet in the background and print its endpoints",
		Long: `Start a testnet (the manifest's nodes, loopback only) that keeps running after
cometlab exits. Its homes and logs go to --dir; 'cometlab testnet down DIR'
stops it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m, err := resolve(&tf, cmd.Flags())
			if err != nil {
				return err
			}
			printWarnings(st.stderr, m)
			env, err := st.env(&tf)
			if err != nil {
				return err
			}
			s, err := experiment.Up(cmd.Context(), experiment.UpOptions{Manifest: m, Dir: dir, Env: env})
			if err != nil {
				return err
			}
			for _, n := range s.Nodes {
				fmt.Fprintf(st.stdout, "%-12s %-9s rpc %s  metrics %s  pid %d\n", n.Name, n.Mode, n.RPC, n.Metrics, n.PID)
			}
			return nil
		},
	}
	tf.register(up.Flags())
	up.Flags().StringVar(&dir, "dir", "testnet", "directory for the node homes, logs and testnet.json")
	var hosts string
	down := &cobra.Command{
		Use:   "down [DIR] | down --hosts DIR",
		Short: "Stop a testnet started with 'testnet up' (default DIR: testnet) or 'deploy' (--hosts)",
		Long: `Stop a testnet started with 'cometlab testnet up' (default DIR: testnet),
or with --hosts DIR one started on hosts with 'cometlab deploy --out DIR':
ansible-playbook runs DIR/down.yml, which stops each node (SIGTERM, SIGKILL
after 10 s), packs its host's logs and homes, fetches them back into
DIR/collected/HOST and (unless deploy had --keep) removes the host's workdir.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if hosts != "" {
				if len(args) > 0 {
					return exitcode.With(fmt.Errorf("--hosts %s: give the directory once", hosts), exitcode.Usage)
				}
				return experiment.DownHosts(cmd.Context(), hosts, st.stderr)
			}
			d := "testnet"
			if len(args) == 1 {
				d = args[0]
			}
			return experiment.Down(d, 10*time.Second, st.stderr)
		},
	}
	down.Flags().StringVar(&hosts, "hosts", "", "stop the testnet 'cometlab deploy --out DIR' started on its hosts and fetch their logs and homes into DIR/collected")
	cmd.AddCommand(up, down)
	return cmd
}
