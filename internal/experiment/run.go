package experiment

import (
	"context"
	"errors"
	"fmt"
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
	Env
	Collect
}

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
	return readPrometheus(ctx, dir, run, opts)
}

// readPrometheus is ReadPrometheus for the run whose record is run.
func readPrometheus(ctx context.Context, dir string, run results.Run, opts PrometheusOptions) ([]collect.PromStats, error) {
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

// Result is what a run produced.
type Result struct {
	Dir     string
	Run     results.Run
	Summary analysis.Summary
	// Drain is how the mempools emptied after the load (also run.json's
	// drain); nil when the run did not wait for them.
	Drain *results.Drain
}

// Run runs one experiment end to end: testnet up, load, drain, read-back,
// testnet down, analysis, report; on [host.*] hosts the testnet is
// deployed for the run and stopped after it (runOnHosts). Whatever happens, the testnet is stopped,
// run.json records the status and errors, and everything gathered so far
// stays in the run directory (and is analysed when the load had started).
func Run(ctx context.Context, opts Options) (Result, error) {
	m := opts.Manifest
	if err := opts.Collect.Check(); err != nil {
		return Result{}, err
	}
	s := beginRun(opts.Dir, opts.Hard, opts.Logger)
	if len(m.Hosts) > 0 {
		return runOnHosts(ctx, s, opts)
	}
	if err := checkLocal(m, netRun); err != nil {
		return Result{}, err
	}
	var err error
	if s.txs, err = txSource(m.Load); err != nil {
		return Result{}, err
	}
	out := NewPrinter(opts.Out)
	var auto *results.TimeScaleAuto
	if m.TimeScaleAuto { // a series' runs refused it (checkFixedScale)
		opts.Dir = s.dir // the probes run beside it
		if m, auto, err = chooseByProbe(ctx, opts, m, out); err != nil {
			return Result{}, err
		}
		opts.Manifest = m
	}
	// The binaries first: a release that cannot be built (or fetched) is
	// refused before a run directory exists.
	chainID := "cometlab-" + s.id.String()[:8]
	spec, err := testnetSpec(ctx, m, opts.Fetcher, chainID)
	if err != nil {
		return Result{}, err
	}
	rd, err := s.createOnTestnet(opts.Version, m)
	if err != nil {
		return Result{}, err
	}
	if m.App == cometbft.AppSDK { // the load: the chain's signed sends, signed for this chain
		path := rd.path(SDKTxsFile)
		if s.txs, err = presignSDK(ctx, spec, m, chainID, path, out); err != nil {
			return finish(ctx, rd, out, err, nil)
		}
		m.Load.TxsFile = path
		opts.Manifest = m
		signed := manifest.SDKOf(m.AppConfig).Describe()
		rd.set(func(r *results.Run) { r.Load.Txs, r.Load.Signed = path, signed })
	}
	if auto != nil {
		rd.set(func(r *results.Run) { r.TimeScaleAuto = auto })
	}
	recordCode(rd, spec)
	out.Phase("run %s → %s", s.id, s.dir)

	p, err := runTestnet(ctx, s, rd, out, opts, spec)
	return finish(ctx, rd, out, err, p)
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
		Load: workloadRecord(w, nil), Started: time.Now()}
}

// createOnTestnet creates the run directory of a run on a testnet of m:
// its first run.json and the resolved manifest.toml.
func (s runStart) createOnTestnet(version string, m manifest.Resolved) (*runDir, error) {
	text, err := manifest.Encode(m)
	if err != nil {
		return nil, err
	}
	r := s.record(version, m.Load)
	r.Load = workloadRecord(m.Load, manifest.AppLanes(m.AppConfig))
	r.CometBFTVersion, r.App, r.AppConfig, r.Target = m.CometBFTVersion, m.App, m.AppConfig, m.Load.Target
	r.Zones, r.Absent, r.Evidence, r.KeyType, r.LibP2P = zonesRecord(m), absentRecord(m), m.Evidence, m.KeyType, m.LibP2P
	if m.TimeScale != 1 {
		r.TimeScale = m.TimeScale // unscaled runs' run.json stays as it was
	}
	if m.Topology != manifest.TopologyMesh {
		r.Topology = m.Topology
	}
	rd, err := createRunDir(s.dir, r, s.logger)
	if err != nil {
		return nil, err
	}
	return rd, results.WriteFileAtomic(rd.path(results.ManifestFile), text)
}

// runTestnet brings the testnet of spec up under the run directory, runs
// the run's pipeline on it and brings it down; it returns the pipeline
// when the load could start (nil when it did not get that far).
func runTestnet(ctx context.Context, s runStart, rd *runDir, out *Printer, opts Options, spec cometbft.Spec) (*pipeline, error) {
	m := opts.Manifest
	events, err := newEventLog(rd.path(results.EventsFile), s.logger)
	if err != nil {
		return nil, err
	}
	defer events.close(rd)
	w := &runWatch{rd: rd, out: out, events: events}
	ln, err := launch(ctx, m, spec, netOptions{mode: netRun, dir: rd.dir, env: opts.Env, out: out, watch: w.watch()})
	if err != nil {
		return nil, err
	}
	defer func() {
		out.Phase("testnet: stopping")
		ln.stop()
		recordRoundTrips(rd, ln)
		recordUDPRelays(rd, ln)
	}()
	return onNet(ctx, s, rd, out, ln, m, opts.Collect, w)
}

// onNet runs the pipeline of a run of m on the local testnet ln (its own,
// or a shared one), watched by w.
func onNet(ctx context.Context, s runStart, rd *runDir, out *Printer, ln *localNet, m manifest.Resolved, c Collect, w *runWatch) (*pipeline, error) {
	t := ln.tn.Node(m.Load.Target)
	if t == nil {
		return nil, fmt.Errorf("load target %q is not a node of the testnet", m.Load.Target)
	}
	ep := rpc.WSAddr(t.RPCAddr())
	rd.set(func(r *results.Run) { r.Nodes, r.CometBFTVersion, r.Endpoint = ln.records(rd.dir), ln.version, ep })
	p := newNetPipeline(s, rd, out, c, ln, m, w)
	return p, p.execute(ctx, s.hard)
}

// runWatch observes a testnet's nodes for one run: their events go to the
// run's events.csv, and a node that dies on its own is a problem of the
// run, named.
type runWatch struct {
	rd        *runDir
	out       *Printer
	events    *eventLog
	loadStart atomic.Int64 // Unix ns, once the load has started
}

func (w *runWatch) watch() *netWatch {
	return &netWatch{events: w.events.write, died: func(n *testnet.Node, st testnet.State) {
		_, why := st.Down(time.Unix(0, w.loadStart.Load()))
		if w.loadStart.Load() == 0 {
			why = "exited: " + st.Status
		}
		w.out.Phase("testnet: %s %s on its own", n.Name, why)
		w.rd.fail(problemNodeDied, n.Name, fmt.Errorf("node %s %s on its own (not a perturbation)", n.Name, why))
	}}
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
	case m.CometBFTSource != nil && len(m.Nodes) > 0 && reported != "":
		return nodeVersion(m, m.Nodes[0]) + " (reports itself as " + reported + ")"
	case m.CometBFTSource != nil && len(m.Nodes) > 0:
		return nodeVersion(m, m.Nodes[0])
	case reported == "" || "v"+reported == m.CometBFTVersion:
		return m.CometBFTVersion
	}
	return fmt.Sprintf("%s (reports itself as %s)", m.CometBFTVersion, reported)
}

// workloadRecord is run.json's load of w, whose lanes have the
// priorities appLanes gives (lane id → priority).
func workloadRecord(w manifest.Workload, appLanes map[string]int64) results.Load {
	l := results.Load{Connections: w.Connections, Rate: w.Rate, Size: w.Size, DurationS: w.Duration.Seconds(),
		Pacing: w.Pacing, LateThreshold: w.LateThreshold.Seconds()}
	if !w.Shape.IsConstant() {
		l.Shape, l.ShapeDetail, l.Expected = w.ShapeName(), w.Spec().String(), w.ExpectedTxs()
	}
	l.Txs = w.TxsFile
	if w.Sync {
		l.Broadcast = "sync"
	}
	for i, c := range w.Clients {
		l.Clients = append(l.Clients, results.Client{Name: c.Name, Key: c.Key, Connections: c.Connections,
			Rate: c.Rate, FirstConn: w.FirstConn(i)})
	}
	if len(w.Clients) > 0 {
		l.Expected = w.ExpectedTxs()
	}
	for _, ln := range w.Lanes {
		l.Lanes = append(l.Lanes, results.Lane{ID: ln.ID, Weight: ln.Weight, Priority: appLanes[ln.ID]})
	}
	return l
}

// finish records the run's status, analyses and reports what was
// gathered; p is the run's pipeline (nil when its load never started).
func finish(ctx context.Context, rd *runDir, out *Printer, runErr error, p *pipeline) (Result, error) {
	if ctx.Err() != nil {
		rd.fail(problemInterrupted, "", errors.New("interrupted"))
	}
	if runErr != nil && !errors.Is(runErr, context.Canceled) {
		k := problemRun
		if ctx.Err() != nil {
			k = problemInterrupted // what was gathered until then stands
		}
		rd.fail(k, "", runErr)
	}
	status := rd.status()
	if runErr != nil && ctx.Err() == nil {
		status = results.StatusFailed // e.g. canceled by a hook
	}
	if err := rd.end(func(r *results.Run) { r.Status, r.Ended = status, time.Now() }); err != nil {
		runErr = errors.Join(runErr, err)
	}
	res := Result{Dir: rd.dir, Run: rd.snapshot()}
	if p == nil {
		return res, runErr
	}
	res.Drain = p.drained
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

// ErrUnsafe marks a run or series one of whose runs' safety check found a
// violation (exit code 5).
var ErrUnsafe = exitcode.With(errors.New("safety violation"), exitcode.Unsafe)

// ErrPartial marks a run that ended partial (exit code 3).
var ErrPartial = exitcode.With(errors.New("the run is partial"), exitcode.Partial)

// Verdict is the error a finished run's end maps to, for its exit code:
// ErrUnsafe (5) when its safety check found a violation, before
// ErrPartial (3) when it ended partial; nil when it is complete and safe.
func (r Result) Verdict() error {
	if line, bad := report.SafetyLine(r.Summary); bad {
		return fmt.Errorf("%w: %s (see %s)", ErrUnsafe, line, filepath.Join(r.Dir, results.ReportFile))
	}
	if r.Run.Status == results.StatusPartial {
		return fmt.Errorf("%w: %v (see %s)", ErrPartial, r.Run.Errors, filepath.Join(r.Dir, results.RunFile))
	}
	return nil
}
