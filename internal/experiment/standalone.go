package experiment

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/cometlab/cometlab/internal/collect"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/rpc"
)

// LoadOptions configure load against an existing chain.
type LoadOptions struct {
	Endpoint string // ws://host:port/websocket (or http://host:port)
	// Manifest is the load's manifest, resolved: its Load is the workload
	// sent; its time scale must be real time (a chain cometlab did not
	// start was not configured to another: checkChain refuses it).
	Manifest manifest.Resolved
	Dir      string // "" means runs/<run-id>
	// Readback walks the chain after the load (needs a CometBFT node);
	// false only sends (e.g. against a benchmark sink).
	Readback bool
	// ReadFrom is the RPC address of another node of the chain from which
	// the blocks are read while the load runs ("" means the endpoint).
	ReadFrom string
	// Env is the environment; a load starts no node, so its Fetcher and
	// StartTimeout are not used.
	Env
	// Collect is what the load gathers besides the chain, as for a run:
	// every field is honoured or, where a chain cometlab does not run
	// cannot honour it, refused by Load before anything starts (see
	// checkChain). NoResources has nothing to turn off: no process of the
	// chain is cometlab's.
	Collect
	// MetricsURLs are the Prometheus endpoints of the chain's nodes
	// (http://host:port/metrics), scraped into metrics.csv for the whole
	// load, drain and read-back (none when empty), so that a chain
	// cometlab did not start gets the report's node sections. NodeNames
	// name them in the same order; without names a node is its URL's
	// host:port.
	MetricsURLs, NodeNames []string
	// ClientKey, when set, is sent as the X-Client-Key header on the
	// load's websocket handshakes, so that a gateway in front of the node
	// (cometlab sentinel) can tell load clients on one host apart.
	ClientKey string
	// RunID, when set (a UUID), is the run's id instead of a new one: a
	// load host's share of a load from several hosts carries the run's.
	RunID string
	// ConnOffset numbers the connections from it, and StartAt, when set,
	// is when the load starts by this host's clock: a load host's share.
	ConnOffset int
	StartAt    time.Time
	// LoadHosts, when set, sends the load from a deployed testnet's load
	// hosts instead of from this host (`cometlab load --testnet` of a
	// manifest with [load] hosts).
	LoadHosts *LoadHosts
	// Nodes, when known (`load --testnet`), are the chain's nodes, with
	// Target the name of the one at Endpoint: every node but the seeds is
	// followed for adoption and drained, and run.json records them. Without
	// them the endpoint is the one node, named "target".
	Nodes  []results.Node
	Target string
	// Zones, when set, are the zones that label Nodes (a deployment's).
	Zones *results.Zones
	// App and AppConfig, when known (`load --testnet` of a deployment),
	// are the app the chain's nodes run and its settings, recorded in
	// run.json; "" when unknown.
	App       string
	AppConfig map[string]any
}

// ClientKeyHeader is the header LoadOptions.ClientKey is sent in (the
// sentinel's default --client-header).
const ClientKeyHeader = "X-Client-Key"

// Load drives load into an endpoint cometlab did not start, and (with
// Readback) reads the chain back and reports, like a run without a testnet.
func Load(ctx context.Context, opts LoadOptions) (Result, error) {
	s := beginRun(opts.Dir, opts.Hard, opts.Logger)
	var err error
	if opts.RunID != "" {
		if s.id, err = uuid.Parse(opts.RunID); err != nil {
			return Result{}, exitcode.With(fmt.Errorf("run id %q: want a UUID: %w", opts.RunID, err), exitcode.Usage)
		}
		if opts.Dir == "" {
			s.dir = DefaultRunDir(s.id.String())
		}
	}
	if s.txs, err = txSource(opts.Manifest.Load); err != nil {
		return Result{}, err
	}
	targets, err := metricsTargets(opts.MetricsURLs, opts.NodeNames)
	if err != nil {
		return Result{}, err
	}
	if err := checkChain(opts, targets); err != nil {
		return Result{}, err
	}
	out := NewPrinter(opts.Out)
	ep := rpc.WSAddr(opts.Endpoint)
	if strings.HasPrefix(opts.Endpoint, "ws") && !strings.HasSuffix(opts.Endpoint, "/websocket") {
		ep = opts.Endpoint // a non-standard path, e.g. a gateway
	}
	r := s.record(opts.Version, opts.Manifest.Load)
	r.Target, r.Endpoint = cmp.Or(opts.Target, "target"), ep
	r.Nodes, r.Zones = opts.Nodes, opts.Zones
	r.App, r.AppConfig = opts.App, opts.AppConfig
	r.Load = workloadRecord(opts.Manifest.Load, manifest.AppLanes(opts.AppConfig))
	rd, err := createRunDir(s.dir, r, s.logger)
	if err != nil {
		return Result{}, err
	}
	out.Phase("load run %s → %s", s.id, s.dir)
	if opts.Readback {
		st, err := rpc.New(opts.Endpoint).Status(ctx)
		if err != nil {
			err = fmt.Errorf("endpoint %s does not answer /status (use --readback=false for a non-CometBFT endpoint): %w", opts.Endpoint, err)
			return finish(ctx, rd, out, err, nil)
		}
		rd.set(func(r *results.Run) { r.CometBFTVersion = st.NodeInfo.Version })
	}
	p := newChainPipeline(s, rd, out, opts, ep, r.Target, targets)
	err = p.execute(ctx, s.hard)
	if !opts.Readback {
		return finishSendOnly(ctx, rd, out, err)
	}
	return finish(ctx, rd, out, err, p)
}

// checkChain refuses, in one place and before anything starts, what of
// o.Collect (and o.ReadFrom) a load of a chain cometlab does not run
// cannot honour, as bad input (exit 2); targets are the nodes' metrics
// endpoints. Errors name the flags of `load`.
func checkChain(o LoadOptions, targets []collect.Target) error {
	if err := o.Collect.Check(); err != nil {
		return err
	}
	var errs []error
	if len(targets) == 0 {
		if o.Metrics == MetricsAll {
			errs = append(errs, errors.New("--metrics all: the load knows no node's metrics endpoint to scrape: give --metrics-url (or --testnet)"))
		}
		if o.Prometheus != "" {
			errs = append(errs, errors.New("--prometheus: the load knows no node's metrics endpoint to read the series of: give --metrics-url (or --testnet)"))
		}
	}
	if o.Prometheus != "" && !o.Readback {
		errs = append(errs, errors.New("--prometheus: with --readback=false the run ends with the load, before the series are read from the server"))
	}
	if o.Manifest.TimeScaleAuto {
		errs = append(errs, errors.New(`time_scale "auto": the chain's nodes were not started by this run, so no k can be chosen for them: time-scale a testnet cometlab starts (run)`))
	}
	if k := o.Manifest.TimeScale; k != 0 && k != 1 {
		errs = append(errs, fmt.Errorf("time_scale %v: the chain's nodes were not started by this run, so their timeouts and rates were not scaled with the load: time-scale a testnet cometlab starts (run, sweep, saturate, ab)", k))
	}
	if o.ReadFrom != "" && o.ReadAfterLoad {
		errs = append(errs, fmt.Errorf("read from %s: it names where blocks are read while the load runs, and --read-during-load=false reads them from the endpoint after it", o.ReadFrom))
	}
	if len(errs) == 0 {
		return nil
	}
	return exitcode.With(errors.Join(errs...), exitcode.Usage)
}

// finishSendOnly records the status of a load without read-back; there is
// nothing to analyse but the send log.
func finishSendOnly(ctx context.Context, rd *runDir, out *Printer, runErr error) (Result, error) {
	status := results.StatusComplete
	if ctx.Err() != nil {
		status = results.StatusPartial
	} else if runErr != nil {
		status = results.StatusFailed
		rd.fail(problemRun, "", runErr)
	}
	if err := rd.end(func(r *results.Run) { r.Status, r.Ended = status, time.Now() }); err != nil {
		runErr = errors.Join(runErr, err)
	}
	out.Phase("send log: %s", rd.path(results.SentFile))
	return Result{Dir: rd.dir, Run: rd.snapshot()}, runErr
}

// metricsTargets pairs the metrics URLs with the node names (a URL's
// host:port when no names are given); errors name the flags of `load`.
func metricsTargets(urls, names []string) ([]collect.Target, error) {
	if len(names) > 0 && len(names) != len(urls) {
		return nil, exitcode.With(fmt.Errorf("--node-name: %d names for %d --metrics-url endpoints", len(names), len(urls)), exitcode.Usage)
	}
	var out []collect.Target
	seen := map[string]bool{}
	for i, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, exitcode.With(fmt.Errorf("--metrics-url %q: want http://host:port/metrics", raw), exitcode.Usage)
		}
		name := u.Host
		if len(names) > 0 {
			name = names[i]
		}
		if name == "" || seen[name] {
			return nil, exitcode.With(fmt.Errorf("--node-name %q: want a distinct, non-empty name per endpoint", name), exitcode.Usage)
		}
		seen[name] = true
		out = append(out, collect.Target{Name: name, URL: raw})
	}
	return out, nil
}
