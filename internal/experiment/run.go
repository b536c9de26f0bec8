package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/collect"
	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/load"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/report"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/rpc"
	"github.com/cometlab/cometlab/internal/testnet"
)

// Options configure one run.
type Options struct {
	Manifest manifest.Resolved
	// Dir is the run directory; "" means runs/<run-id>.
	Dir string
	// Fetcher obtains node binaries.
	Fetcher *cometbft.Fetcher
	// Out receives progress (a terminal gets a live status line).
	Out io.Writer
	// Logger receives debug logs; nil discards them.
	Logger *slog.Logger
	// Version is cometlab's own version, recorded in run.json.
	Version string
	// StartTimeout bounds the wait for every node to advance two heights.
	StartTimeout time.Duration
	// Hard ends the read-back and clean-up too (a second interrupt); nil
	// means they always run to the end.
	Hard context.Context
	// ScrapeInterval is how often node metrics and process resources are
	// sampled; 0 means 1 s.
	ScrapeInterval time.Duration
	// Metrics selects the node series kept in metrics.csv: "default" (or
	// ""), "all", or "none" (no scrape).
	Metrics string
	// NoResources turns /proc sampling (resources.csv) off.
	NoResources bool
	// Prometheus, when set, is the URL of a Prometheus server that scrapes
	// the nodes: metrics.csv is read from it after the read-back instead of
	// scraped.
	Prometheus string
	// MinFreeDisk is the disk guard's minimum free space (bytes) on the
	// run directory's file system: below it the load stops and the run is
	// partial. 0 means DefaultMinFreeDisk; below 0 turns the guard off.
	MinFreeDisk int64
	// ReadAfterLoad reads every block after the load instead of while it
	// runs (no live reader, no live line): to measure what the live
	// read-back costs, or to keep every RPC request off the nodes during
	// the load.
	ReadAfterLoad bool
}

// Metrics modes (Options.Metrics, --metrics).
const (
	MetricsDefault = "default" // the series the report plots, and a few more
	MetricsAll     = "all"     // every series, histogram buckets included
	MetricsNone    = "none"    // no scrape
)

// PrometheusOptions say how metrics.csv is read from a Prometheus server.
type PrometheusOptions struct {
	URL  string        // http://host:9090
	Step time.Duration // query resolution; 0 means 1 s
	All  bool          // every series instead of the default set
	// Namespace is the nodes' instrumentation.namespace; "" means the one
	// in the run's manifest.toml (or CometBFT's default).
	Namespace string
	Logger    *slog.Logger
}

// ReadPrometheus (re)writes dir/metrics.csv from a Prometheus server that
// scraped the run's nodes, over the run's window (10 s before the load
// until the run ended), in the embedded scraper's format; the file is
// replaced only when the read succeeds.
func ReadPrometheus(ctx context.Context, dir string, opts PrometheusOptions) ([]collect.PromStats, error) {
	run, err := results.ReadRun(dir)
	if err != nil {
		return nil, err
	}
	if run.LoadStart.IsZero() {
		return nil, fmt.Errorf("%s: the run's load never started: no window to read", dir)
	}
	ns := opts.Namespace
	if ns == "" {
		if m, err := manifest.Load(filepath.Join(dir, results.ManifestFile)); err == nil {
			if r, err := m.Resolve(); err == nil {
				ns = metricsNamespace(r)
			}
		}
	}
	q := collect.RunQuery(run, opts.Step, ns, opts.All)
	if len(q.Nodes) == 0 {
		return nil, fmt.Errorf("%s: run.json lists no node with a metrics endpoint", dir)
	}
	path := filepath.Join(dir, results.MetricsFile)
	w, err := results.Create(path+".tmp", results.MetricsHeader)
	if err != nil {
		return nil, err
	}
	defer os.Remove(path + ".tmp")
	defer w.Close()
	st, err := collect.NewPromAPI(opts.URL, opts.Logger).ReadRange(ctx, q, w)
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		return st, fmt.Errorf("metrics from prometheus %s: %w", opts.URL, err)
	}
	return st, os.Rename(path+".tmp", path)
}

// readPrometheus fills metrics.csv from the Prometheus server after the
// read-back; a failure is recorded, not fatal.
func (lp *loadPhase) readPrometheus(ctx context.Context) {
	// Let the server scrape once more after the last block.
	select {
	case <-ctx.Done():
	case <-time.After(2 * max(lp.prom.Step, time.Second)):
	}
	st, err := ReadPrometheus(ctx, lp.rd.dir, *lp.prom)
	if err != nil {
		lp.out.Phase("metrics: %v", err)
		lp.rd.fail(err)
		return
	}
	msg := ""
	for _, s := range st {
		msg += fmt.Sprintf("; %s: %d series (by %s)", s.Node, s.Series, s.MatchBy)
	}
	lp.out.Phase("metrics: read from prometheus %s%s", lp.prom.URL, msg)
}

// metricsNamespace is the testnet's instrumentation.namespace (the first
// node's, as cometlab generates one config for all), or the default of its
// CometBFT line.
func metricsNamespace(m manifest.Resolved) string {
	if len(m.Nodes) > 0 {
		if ns, ok := m.Nodes[0].Config["instrumentation.namespace"].(string); ok && ns != "" {
			return ns
		}
	}
	if l, err := cometbft.LineOf(m.CometBFTVersion); err == nil {
		return l.MetricsNamespace
	}
	return collect.DefaultNamespace
}

// setCollectors sets up the load phase's metrics and resource collectors for
// a local testnet.
func (lp *loadPhase) setCollectors(opts Options, tn *testnet.Testnet) {
	for _, n := range tn.Nodes {
		if opts.Metrics != MetricsNone {
			lp.scrape = append(lp.scrape, collect.Target{Name: n.Name, URL: n.MetricsAddr()})
		}
		if !opts.NoResources {
			lp.procs = append(lp.procs, collect.Proc{Name: n.Name, PID: n.PID, DataDir: filepath.Join(n.Dir, "data")})
			if len(n.AppCommand) > 0 { // the external app, beside its node
				lp.procs = append(lp.procs, collect.Proc{Name: n.Name + "/app", PID: n.AppPID})
			}
		}
	}
	ns := metricsNamespace(opts.Manifest)
	lp.scrapeCfg = collect.ScrapeConfig{Interval: opts.ScrapeInterval, Namespace: ns, All: opts.Metrics == MetricsAll}
	lp.resCfg = collect.ResourceConfig{Interval: opts.ScrapeInterval}
	if opts.Prometheus != "" {
		lp.prom = &PrometheusOptions{URL: opts.Prometheus, Step: opts.ScrapeInterval, All: opts.Metrics == MetricsAll,
			Namespace: ns, Logger: lp.logger}
	}
}

// Result is what a run produced.
type Result struct {
	Dir     string
	Run     results.Run
	Summary analysis.Summary
}

// Run runs one experiment end to end: testnet up, load, drain, read-back,
// testnet down, analysis, report. Whatever happens, the testnet is stopped,
// run.json records the status and errors, and everything gathered so far
// stays in the run directory (and is analysed when the load had started).
func Run(ctx context.Context, opts Options) (Result, error) {
	m := opts.Manifest
	switch opts.Metrics {
	case "", MetricsDefault, MetricsAll, MetricsNone:
	default:
		return Result{}, fmt.Errorf("metrics %q: want %s, %s or %s", opts.Metrics, MetricsDefault, MetricsAll, MetricsNone)
	}
	if err := localOnly(m); err != nil {
		return Result{}, err
	}
	s := beginRun(opts.Dir, opts.Hard, opts.Logger)
	var err error
	if s.txs, err = txSource(m.Load); err != nil {
		return Result{}, err
	}
	out := newPrinter(opts.Out)
	// The binaries first: a release that cannot be built (or fetched) is
	// refused before a run directory exists.
	spec, err := testnetSpec(ctx, m, opts.Fetcher, "cometlab-"+s.id.String()[:8])
	if err != nil {
		return Result{}, err
	}
	rd, err := s.createOnTestnet(opts.Version, m)
	if err != nil {
		return Result{}, err
	}
	out.Phase("run %s → %s", s.id, s.dir)

	loadStarted, err := runTestnet(ctx, s, rd, out, opts, spec)
	return finish(ctx, rd, out, err, loadStarted)
}

// runStart is what every run (Run, Load, a run on a shared testnet) begins
// with: its id and the options every run shares, defaults applied.
type runStart struct {
	id     uuid.UUID
	dir    string          // the run directory
	hard   context.Context // never nil
	logger *slog.Logger    // never nil
	txs    load.TxSource   // the user's own transactions; nil for loadtime payloads
}

// txSource reads the workload's file of the user's own transactions (nil
// without one), refusing a bad file or one with fewer transactions than
// the load schedules as bad input, before anything runs.
func txSource(w manifest.Workload) (load.TxSource, error) {
	if w.TxsFile == "" {
		return nil, nil
	}
	txs, err := load.ReadTxFile(w.TxsFile)
	if err != nil {
		return nil, exitcode.With(err, exitcode.Usage)
	}
	if n := w.ExpectedTxs(); int64(len(txs)) < n {
		return nil, exitcode.With(fmt.Errorf("%s holds %d transactions, and the load schedules %d: give more, or a lower rate or shorter duration",
			w.TxsFile, len(txs), n), exitcode.Usage)
	}
	return load.Lines(w.TxsFile, txs), nil
}

// beginRun draws a run's id and applies, in one place, the defaults of the
// options every run shares: dir "" means runs/<run-id>, a nil hard context
// never ends, a nil logger discards.
func beginRun(dir string, hard context.Context, logger *slog.Logger) runStart {
	s := runStart{id: uuid.New(), dir: dir, hard: hard, logger: logger}
	if s.dir == "" {
		s.dir = DefaultRunDir(s.id.String())
	}
	if s.hard == nil {
		s.hard = context.Background()
	}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	return s
}

// record is the run's first run.json: running since now on this host,
// with the load w.
func (s runStart) record(version string, w manifest.Workload) results.Run {
	return results.Run{ID: s.id.String(), Status: results.StatusRunning, CometlabVersion: version, Host: hostInfo(),
		Load: workloadRecord(w), Started: time.Now()}
}

// createOnTestnet creates the run directory of a run on a testnet of m:
// its first run.json and the resolved manifest.toml.
func (s runStart) createOnTestnet(version string, m manifest.Resolved) (*runDir, error) {
	text, err := manifest.Encode(m)
	if err != nil {
		return nil, err
	}
	r := s.record(version, m.Load)
	r.CometBFTVersion, r.App, r.AppConfig, r.Target = m.CometBFTVersion, m.App, m.AppConfig, m.Load.Target
	r.Zones = zonesRecord(m)
	rd, err := createRunDir(s.dir, r, s.logger)
	if err != nil {
		return nil, err
	}
	return rd, results.WriteFileAtomic(rd.path(results.ManifestFile), text)
}

// runTestnet brings the testnet of spec up, runs the load phase and brings it down.
func runTestnet(ctx context.Context, s runStart, rd *runDir, out *printer, opts Options, spec cometbft.Spec) (loadStarted bool, err error) {
	m := opts.Manifest
	lk := relays(m, &spec, s.logger)
	if lk != nil {
		defer func() { // after the nodes stopped (deferred below)
			recordRoundTrips(rd, lk)
			lk.Close()
		}()
	}
	homes, err := cometbft.Generate(ctx, rd.path(results.NodesDir), spec)
	if err != nil {
		return false, fmt.Errorf("generate node homes: %w", err)
	}
	tn := testnet.New(homes, s.logger)
	nodes, endpoints := nodeRecords(m, homes)
	for i := range nodes {
		nodes[i].Home = relDir(rd.dir, nodes[i].Home)
	}
	rd.set(func(r *results.Run) { r.Nodes = nodes })

	events, err := newEventLog(rd.path(results.EventsFile), s.logger)
	if err != nil {
		return false, err
	}
	defer events.close(rd)
	var loadStart atomic.Int64 // Unix ns, once the load has started
	died := func(n *testnet.Node, st testnet.State) {
		_, why := st.Down(time.Unix(0, loadStart.Load()))
		if loadStart.Load() == 0 {
			why = "exited: " + st.Status
		}
		out.Phase("testnet: %s %s on its own", n.Name, why)
		rd.fail(fmt.Errorf("node %s %s on its own (not a perturbation)", n.Name, why))
	}
	out.Phase("testnet: starting %d nodes (logs in %s)", len(homes), rd.path(results.LogsDir))
	if err := tn.Start(testnet.Options{LogDir: rd.path(results.LogsDir), Events: events.write, Died: died}); err != nil {
		return false, err
	}
	defer func() {
		out.Phase("testnet: stopping")
		tn.Stop(10 * time.Second)
	}()
	start := time.Now()
	if err := waitStarted(ctx, tn, opts.StartTimeout); err != nil {
		return false, fmt.Errorf("testnet start: %w", err)
	}
	target := tn.Node(m.Load.Target)
	if target == nil {
		return false, fmt.Errorf("load target %q is not a node of the testnet", m.Load.Target)
	}
	if st, err := target.RPC.Status(ctx); err == nil {
		rd.set(func(r *results.Run) { r.CometBFTVersion = reportedVersion(m, st.NodeInfo.Version) })
	}
	out.Phase("testnet: %d nodes up and advancing after %s", len(homes), since(start))
	ep := rpc.WSAddr(target.RPCAddr())
	rd.set(func(r *results.Run) { r.Endpoint = ep })

	lp := &loadPhase{rd: rd, out: out, logger: s.logger, id: s.id, work: m.Load, endpoint: ep,
		target: target.RPC, nodes: endpoints, readback: true, live: !opts.ReadAfterLoad, minFree: opts.MinFreeDisk, source: s.txs,
		sentinelCfg: m.Sentinel}
	lp.setCollectors(opts, tn)
	lp.down = func(name string, t0 time.Time) (bool, string) {
		n := tn.Node(name)
		if n == nil {
			return false, ""
		}
		down, why := n.State().Down(t0)
		if down && n.Ephemeral {
			why = "" // a rotating node is down between its lives: nothing to say
		}
		return down, why
	}
	lp.avoid = map[string]bool{}
	for _, p := range m.Perturbations {
		lp.avoid[p.Node] = true
	}
	for _, n := range m.Nodes {
		if n.Ephemeral {
			lp.avoid[n.Name] = true
		}
	}
	if len(m.Perturbations) > 0 {
		lp.perturb = &executor{steps: schedule(m.Perturbations), tn: tn, events: events.write, target: m.Load.Target}
		if lk != nil {
			lp.perturb.links = lk
		}
	}
	if m.Rotate != nil {
		lp.rotate = &rotator{rot: *m.Rotate, tn: tn, events: events.write}
	}
	lp.onLoadStart = func(t time.Time) { loadStart.Store(t.UnixNano()) }
	return true, lp.run(ctx, s.hard)
}

// reportedVersion records the requested release and, when it differs, what
// the binary calls itself.
func reportedVersion(m manifest.Resolved, reported string) string {
	versions := map[string]int{}
	for _, n := range m.Nodes {
		versions[nodeVersion(m, n)]++
	}
	if len(versions) > 1 {
		var parts []string
		for v, k := range versions {
			parts = append(parts, fmt.Sprintf("%s ×%d", v, k))
		}
		sort.Strings(parts)
		return "mixed: " + strings.Join(parts, ", ")
	}
	switch {
	case m.CometBFTVersion == "":
		return reported
	case reported == "" || "v"+reported == m.CometBFTVersion:
		return m.CometBFTVersion
	}
	return fmt.Sprintf("%s (reports itself as %s)", m.CometBFTVersion, reported)
}

func workloadRecord(w manifest.Workload) results.Load {
	l := results.Load{Connections: w.Connections, Rate: w.Rate, Size: w.Size, DurationS: w.Duration.Seconds(),
		Pacing: w.Pacing, LateThreshold: w.LateThreshold.Seconds()}
	if !w.Shape.IsConstant() {
		l.Shape, l.ShapeDetail, l.Expected = w.ShapeName(), w.Spec().String(), w.ExpectedTxs()
	}
	l.Txs = w.TxsFile
	for i, c := range w.Clients {
		l.Clients = append(l.Clients, results.Client{Name: c.Name, Key: c.Key, Connections: c.Connections,
			Rate: c.Rate, FirstConn: w.FirstConn(i)})
	}
	if len(w.Clients) > 0 {
		l.Expected = w.ExpectedTxs()
	}
	return l
}

// finish records the run's status, analyses and reports what was gathered.
func finish(ctx context.Context, rd *runDir, out *printer, runErr error, loadStarted bool) (Result, error) {
	status := results.StatusComplete
	switch {
	case ctx.Err() != nil:
		status = results.StatusPartial
		rd.fail(errors.New("interrupted"))
	case runErr != nil:
		status = results.StatusFailed
	}
	if runErr != nil && !errors.Is(runErr, context.Canceled) {
		rd.fail(runErr)
	}
	if err := rd.end(func(r *results.Run) {
		if status == results.StatusComplete && len(r.Errors) > 0 {
			status = results.StatusPartial // e.g. the mempools did not drain
		}
		r.Status, r.Ended = status, time.Now()
	}); err != nil {
		runErr = errors.Join(runErr, err)
	}
	res := Result{Dir: rd.dir, Run: rd.run}
	if !loadStarted {
		return res, runErr
	}
	sum, in, err := analysis.AnalyzeInput(rd.dir)
	if err != nil {
		return res, errors.Join(runErr, fmt.Errorf("analyse: %w", err))
	}
	res.Summary = sum
	if err := report.Write(rd.dir, sum, report.Options{Input: &in}); err != nil {
		return res, errors.Join(runErr, fmt.Errorf("report: %w", err))
	}
	out.Phase("report: %s", rd.path(results.ReportFile))
	return res, runErr
}
