package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/collect"
	"github.com/cometlab/cometlab/internal/cometbft"
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
	hard := opts.Hard
	if hard == nil {
		hard = context.Background()
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	out := newPrinter(opts.Out)
	id := uuid.New()
	dir := opts.Dir
	if dir == "" {
		dir = DefaultRunDir(id.String())
	}
	manifestText, err := manifest.Encode(m)
	if err != nil {
		return Result{}, err
	}
	rd, err := createRunDir(dir, results.Run{
		ID: id.String(), Status: results.StatusRunning, CometlabVersion: opts.Version,
		CometBFTVersion: m.CometBFTVersion, App: m.App, Host: hostInfo(), Target: m.Load.Target,
		Load: workloadRecord(m.Load), Started: time.Now(),
	})
	if err != nil {
		return Result{}, err
	}
	if err := results.WriteFileAtomic(rd.path(results.ManifestFile), manifestText); err != nil {
		return Result{}, err
	}
	out.Phase("run %s → %s", id, dir)

	loadStarted, err := runTestnet(ctx, hard, rd, out, logger, opts, id)
	return finish(ctx, rd, out, err, loadStarted)
}

// runTestnet brings the testnet up, runs the load phase and brings it down.
func runTestnet(ctx, hard context.Context, rd *runDir, out *printer, logger *slog.Logger, opts Options, id uuid.UUID) (loadStarted bool, err error) {
	m := opts.Manifest
	spec := cometbft.Spec{ChainID: "cometlab-" + id.String()[:8], App: m.App, LogLevel: m.LogLevel}
	binaries := map[string]string{}
	for _, n := range m.Nodes {
		bin := m.CometBFTBinary
		v := n.Version
		if v == "" {
			v = m.CometBFTVersion
		}
		if n.Version != "" || bin == "" {
			if binaries[v] == "" {
				if binaries[v], err = opts.Fetcher.Binary(ctx, v); err != nil {
					return false, err
				}
			}
			bin = binaries[v]
		} else if err := cometbft.CheckBinary(bin); err != nil {
			return false, err
		}
		spec.Nodes = append(spec.Nodes, cometbft.NodeSpec{Name: n.Name, Mode: n.Mode, Power: n.Power, Binary: bin, Config: n.Config})
	}
	homes, err := cometbft.Generate(ctx, rd.path(results.NodesDir), spec)
	if err != nil {
		return false, fmt.Errorf("generate node homes: %w", err)
	}
	tn := testnet.New(homes, logger)
	var nodes []results.Node
	var endpoints []collect.Endpoint
	for i, h := range homes {
		v := m.Nodes[i].Version
		if v == "" {
			v = m.CometBFTVersion
		}
		if v == "" {
			v = "binary " + m.CometBFTBinary
		}
		nodes = append(nodes, results.Node{Name: h.Name, Mode: h.Mode, Version: v, RPC: h.RPCAddr(), P2P: h.P2PAddr(),
			Metrics: h.MetricsAddr(), Home: results.NodesDir + "/" + h.Name})
		if h.Mode != cometbft.ModeSeed {
			endpoints = append(endpoints, collect.Endpoint{Name: h.Name, Addr: h.RPCAddr()})
		}
	}
	_ = rd.update(func(r *results.Run) { r.Nodes = nodes })

	out.Phase("testnet: starting %d nodes (logs in %s)", len(homes), rd.path(results.LogsDir))
	if err := tn.Start(testnet.Options{LogDir: rd.path(results.LogsDir)}); err != nil {
		return false, err
	}
	defer func() {
		out.Phase("testnet: stopping")
		tn.Stop(10 * time.Second)
	}()
	start := time.Now()
	timeout := opts.StartTimeout
	if timeout == 0 {
		timeout = 90 * time.Second
	}
	if err := tn.WaitHealthy(ctx, timeout); err != nil {
		return false, fmt.Errorf("testnet start: %w", err)
	}
	target := tn.Node(m.Load.Target)
	if target == nil {
		return false, fmt.Errorf("load target %q is not a node of the testnet", m.Load.Target)
	}
	if st, err := target.RPC.Status(ctx); err == nil {
		_ = rd.update(func(r *results.Run) { r.CometBFTVersion = reportedVersion(m, st.NodeInfo.Version) })
	}
	out.Phase("testnet: %d nodes up and advancing after %s", len(homes), since(start))
	ep := rpc.WSAddr(target.RPCAddr())
	_ = rd.update(func(r *results.Run) { r.Endpoint = ep })

	lp := &loadPhase{rd: rd, out: out, logger: logger, id: id, work: m.Load, endpoint: ep,
		target: target.RPC, nodes: endpoints, readback: true}
	return true, lp.run(ctx, hard)
}

// reportedVersion records the requested release and, when it differs, what
// the binary calls itself.
func reportedVersion(m manifest.Resolved, reported string) string {
	switch {
	case m.CometBFTVersion == "":
		return reported
	case reported == "" || "v"+reported == m.CometBFTVersion:
		return m.CometBFTVersion
	}
	return fmt.Sprintf("%s (reports itself as %s)", m.CometBFTVersion, reported)
}

func workloadRecord(w manifest.Workload) results.Load {
	return results.Load{Connections: w.Connections, Rate: w.Rate, Size: w.Size, DurationS: w.Duration.Seconds(),
		Pacing: w.Pacing, LateThreshold: w.LateThreshold.Seconds()}
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
	_ = rd.update(func(r *results.Run) {
		if status == results.StatusComplete && len(r.Errors) > 0 {
			status = results.StatusPartial // e.g. the mempools did not drain
		}
		r.Status, r.Ended = status, time.Now()
	})
	res := Result{Dir: rd.dir, Run: rd.run}
	if !loadStarted {
		return res, runErr
	}
	sum, err := analysis.Analyze(rd.dir)
	if err != nil {
		return res, errors.Join(runErr, fmt.Errorf("analyse: %w", err))
	}
	res.Summary = sum
	if err := report.Write(rd.dir, sum, report.Options{}); err != nil {
		return res, errors.Join(runErr, fmt.Errorf("report: %w", err))
	}
	out.Phase("report: %s", rd.path(results.ReportFile))
	return res, runErr
}
