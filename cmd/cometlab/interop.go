package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/spf13/cobra"

	"github.com/cometlab/cometlab/internal/collect"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
)

func newPrometheusConfigCmd(st *state) *cobra.Command {
	var (
		testnets  []string
		manifests []string
		out       string
		interval  time.Duration
		format    string
		lenient   bool
	)
	cmd := &cobra.Command{
		Use:   "prometheus-config",
		Short: "Write a prometheus.yml that scrapes the nodes of a cometlab testnet",
		Long: `Write a prometheus.yml with one scrape job per testnet and one target per
node, labelled node="<node name>", scraped every second. The nodes come from a
running 'cometlab testnet up' (--testnet DIR reads DIR/testnet.json) or from a
manifest whose nodes pin their metrics address with the config override
"instrumentation.prometheus_listen_addr" (--manifest FILE).

Run Prometheus on loopback like the nodes:

  prometheus --config.file=prometheus.yml --web.listen-address=127.0.0.1:9090 \
    --storage.tsdb.path=./prometheus-data

and read a run's node series from it with 'cometlab report --prometheus
http://127.0.0.1:9090 RUN_DIR' (or 'cometlab run --prometheus URL').`,
		Example: `  cometlab testnet up --dir tn && cometlab prometheus-config --testnet tn -o prometheus.yml
  cometlab prometheus-config --manifest pinned.toml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(testnets)+len(manifests) == 0 {
				return exitcode.With(errors.New("name at least one --testnet DIR or --manifest FILE"), exitcode.Usage)
			}
			var jobs []collect.PromJob
			for _, dir := range testnets {
				j, err := testnetJob(dir)
				if err != nil {
					return err
				}
				jobs = append(jobs, j)
			}
			for _, path := range manifests {
				j, err := manifestJob(manifest.Source{Path: path, Read: manifest.ReadOptions{Format: format, Lenient: lenient}})
				if err != nil {
					return exitcode.With(err, exitcode.Usage)
				}
				jobs = append(jobs, j)
			}
			for i := range jobs {
				jobs[i].Interval = interval
			}
			b, err := collect.PrometheusConfig(jobs)
			if err != nil {
				return err
			}
			return writeOut(st.stdout, out, b)
		},
	}
	cmd.Flags().StringArrayVar(&testnets, "testnet", nil, "directory of a running 'cometlab testnet up' (repeatable)")
	cmd.Flags().StringArrayVar(&manifests, "manifest", nil, "manifest whose nodes set instrumentation.prometheus_listen_addr (repeatable)")
	registerFormat(cmd.Flags(), &format, &lenient)
	cmd.Flags().StringVarP(&out, "out", "o", "-", `file to write ("-" for stdout)`)
	cmd.Flags().DurationVar(&interval, "scrape-interval", time.Second, "scrape interval of every job")
	return cmd
}

// testnetJob is the scrape job of a testnet kept up by `cometlab testnet up`.
func testnetJob(dir string) (collect.PromJob, error) {
	var up experiment.UpState
	if err := results.ReadJSON(filepath.Join(dir, experiment.TestnetFile), &up); err != nil {
		return collect.PromJob{}, fmt.Errorf("no running testnet in %s: %w", dir, err)
	}
	return up.PromJob(), nil
}

// manifestJob is the scrape job of a manifest's nodes, each of which must
// pin its metrics address (cometlab otherwise picks a free port per run):
// the manifest read as every command reads one (src: its format and
// leniency).
func manifestJob(src manifest.Source) (collect.PromJob, error) {
	_, r, err := src.Resolve()
	if err != nil {
		return collect.PromJob{}, err
	}
	j := collect.PromJob{Name: "cometlab-" + r.Name}
	var missing []string
	for _, n := range r.Nodes {
		addr, ok := n.Config["instrumentation.prometheus_listen_addr"].(string)
		if !ok || addr == "" {
			missing = append(missing, n.Name)
			continue
		}
		u, err := collect.ListenAddrURL(addr)
		if err != nil {
			return j, fmt.Errorf("%s: node %s: %w", src.Path, n.Name, err)
		}
		j.Targets = append(j.Targets, collect.Target{Name: n.Name, URL: u})
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return j, fmt.Errorf(`%s: nodes %v do not pin a metrics address; set config = { "instrumentation.prometheus_listen_addr" = "127.0.0.1:PORT" } in their [node.NAME] tables`, src.Path, missing)
	}
	return j, nil
}

func newGrafanaDashboardCmd(st *state) *cobra.Command {
	var (
		opts collect.DashboardOptions
		out  string
	)
	cmd := &cobra.Command{
		Use:   "grafana-dashboard",
		Short: "Write a Grafana dashboard (JSON) with the report's panels over Prometheus",
		Long: `Write a Grafana dashboard JSON with one panel per figure of the report
(mempool, peers, rounds, height and blocks per minute, transactions per
minute, block interval and size, block processing time, consensus steps,
resident memory, CPU, goroutines) over the series a 'cometlab
prometheus-config' Prometheus stores. Import it in Grafana and pick the
Prometheus data source in its "Data source" variable.`,
		Example: `  cometlab grafana-dashboard -o cometlab-dashboard.json`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			b, err := collect.GrafanaDashboard(opts)
			if err != nil {
				return err
			}
			return writeOut(st.stdout, out, b)
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "-", `file to write ("-" for stdout)`)
	cmd.Flags().StringVar(&opts.Namespace, "namespace", collect.DefaultNamespace, "the nodes' instrumentation.namespace")
	cmd.Flags().StringVar(&opts.Title, "title", "cometlab: CometBFT testnet", "dashboard title")
	cmd.Flags().StringVar(&opts.UID, "uid", "cometlab", "dashboard uid (a re-import with the same uid replaces it)")
	return cmd
}

// writeOut writes b to path, or to stdout when path is "-".
func writeOut(stdout io.Writer, path string, b []byte) error {
	if path == "-" || path == "" {
		_, err := stdout.Write(b)
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
