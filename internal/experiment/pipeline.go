package experiment

import (
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/cometlab/cometlab/internal/collect"
	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/load"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/rpc"
)

// pipeline is one run from its load to its read-back, as named phases
// (execute): plan → collect → send → drain → read back → end. What is
// optional (a sentinel, perturbations, rotation, the disk guard, the
// progress line, a Prometheus read-back) is a hook plugged into those
// phases. Two constructors derive it from what the run is given:
// newNetPipeline for a local testnet cometlab runs, newChainPipeline for a
// chain it does not; nothing else builds one.
type pipeline struct {
	rd     *runDir
	out    *Printer
	logger *slog.Logger
	id     [16]byte
	// runPlan is what the run does. The constructor sets it, hooks may
	// change it in the phase plan only; from the phase collect on it is
	// fixed.
	runPlan
	hooks []hook
	// scale is the testnet's time scale k (0 or 1: real time): the
	// harness's own waits on the chain are k times longer.
	scale float64

	// State the phases hand on.
	heights   *collect.Heights
	first     int64 // the first height that can hold a tx of the run
	loadStart time.Time
	loadEnd   time.Time
	live      *liveRun // the live reader, when it runs
	drained   *results.Drain
}

// runPlan is what a run does: the chain it loads and follows, the load,
// what is collected beside the heights, and how the chain is read back.
type runPlan struct {
	chain chainView
	send  sendPlan
	col   collectPlan
	read  readPlan
}

// chainView is the chain as the run sees it.
type chainView struct {
	// endpoint is the ws:// URL the load goes to (a sentinel's, when the
	// run has one); target the node behind it, targetName its name.
	endpoint   string
	target     *rpc.Client
	targetName string
	// nodes are the nodes followed for adoption and drained.
	nodes []collect.Endpoint
	// down says whether a node cannot answer now and why (times since
	// t0); nil means every node is taken to be up (a chain cometlab does
	// not run).
	down func(name string, t0 time.Time) (bool, string)
	// appMempool names the nodes whose transactions wait in the app
	// (mempool = "app"), which num_unconfirmed_txs does not see, and
	// validators counts the validators (see appDrain).
	appMempool map[string]bool
	validators int
}

// sendPlan is the load.
type sendPlan struct {
	work       manifest.Workload
	source     load.TxSource // nil: loadtime payloads
	header     http.Header   // sent on the load's websocket handshakes
	connOffset int           // the first connection's number (a load host's share)
	startAt    time.Time     // when the load starts; zero: at once
	loadHosts  *LoadHosts    // send from a deployment's load hosts (remoteLoad)
}

// collectPlan is what the collectors gather beside the heights: node
// metrics into metrics.csv (scrape), processes into resources.csv (procs).
type collectPlan struct {
	// noCommitSamples: no mempool.csv or commitcpu.csv (Collect).
	noCommitSamples bool
	scrape          []collect.Target
	scrapeCfg       collect.ScrapeConfig
	procs           []collect.Proc
	resCfg          collect.ResourceConfig
}

// readPlan is how the chain is read back.
type readPlan struct {
	on bool // false: send only (e.g. a benchmark sink)
	// live reads the chain while the load runs (liveReader); liveFrom,
	// when set, is the RPC address read from (default: a node other than
	// the target, not in avoid: the perturbed and rotating ones).
	live     bool
	liveFrom string
	avoid    map[string]bool
}

// newPipeline is the core both constructors share: the run's identity,
// its load, and what of Collect applies to any chain (commit samples, the
// scrape's interval and series). The constructor then sets the chain, the
// read-back and the rest of the collection, appends the hooks of the
// capabilities in use, and ends with commonHooks.
func newPipeline(s runStart, rd *runDir, out *Printer, work manifest.Workload, c Collect) *pipeline {
	return &pipeline{rd: rd, out: out, logger: s.logger, id: s.id, runPlan: runPlan{
		send: sendPlan{work: work, source: s.txs},
		col: collectPlan{noCommitSamples: c.NoCommitSamples,
			scrapeCfg: collect.ScrapeConfig{Interval: c.ScrapeInterval, All: c.Metrics == MetricsAll}},
	}}
}

// commonHooks appends the hooks of every run, after the constructor's own:
// the disk guard (Collect.MinFreeDisk) and the progress line.
func (p *pipeline) commonHooks(c Collect) {
	p.hooks = append(p.hooks, diskGuardHook(p, c.MinFreeDisk), progressHook(p))
}

// newNetPipeline derives the pipeline of a run of m on the local testnet
// ln (its own, or a shared one), collecting what c says, its nodes watched
// by w: the death watch, then the hooks of m's capabilities (sentinel,
// perturbations, partition, rotation, evidence) and of c's (Prometheus),
// then commonHooks. The caller has checked that m's load target is a node
// of ln.
//
// m is the model: at its time scale k the pipeline runs m.HostTime() (the
// load, perturbations, partition and rotation k times slower) and samples
// the nodes' metrics and processes k times less often.
func newNetPipeline(s runStart, rd *runDir, out *Printer, c Collect, ln *localNet, m manifest.Resolved, w *runWatch) *pipeline {
	m = m.HostTime()
	c.ScrapeInterval = scaledTimeout(c.ScrapeInterval, defaultScrapeInterval, m.TimeScale)
	p := newPipeline(s, rd, out, m.Load, c)
	p.scale = m.TimeScale
	t := ln.tn.Node(m.Load.Target)
	p.chain = chainView{endpoint: rpc.WSAddr(t.RPCAddr()), target: t.RPC, targetName: t.Name,
		nodes: ln.endpoints, down: ln.down, appMempool: map[string]bool{}}
	for _, n := range m.Nodes {
		if n.Mempool == cometbft.MempoolApp {
			p.chain.appMempool[n.Name] = true
		}
		if n.Mode == manifest.ModeValidator && !n.Absent {
			p.chain.validators++
		}
	}
	p.read = readPlan{on: true, live: !c.ReadAfterLoad, avoid: map[string]bool{}}
	for _, pt := range m.Perturbations {
		p.read.avoid[pt.Node] = true
	}
	for _, n := range m.Nodes {
		if n.Ephemeral {
			p.read.avoid[n.Name] = true
		}
	}
	ns := metricsNamespace(m)
	p.col.scrapeCfg.Namespace = ns
	if m.App == cometbft.AppSDK {
		p.col.scrapeCfg.Prefixes = []string{SDKMetricsPrefix} // the chain's telemetry, on the node's endpoint
	}
	p.col.resCfg = collect.ResourceConfig{Interval: c.ScrapeInterval, DataInterval: c.DataWalkInterval}
	for _, n := range ln.tn.Nodes {
		if c.Metrics != MetricsNone && c.Prometheus == "" { // else read from the server
			p.col.scrape = append(p.col.scrape, collect.Target{Name: n.Name, URL: n.MetricsAddr()})
		}
		if !c.NoResources {
			p.col.procs = append(p.col.procs, collect.Proc{Name: n.Name, PID: n.PID, DataDir: filepath.Join(n.Dir, "data")})
			if len(n.AppCommand) > 0 { // the external app, beside its node
				p.col.procs = append(p.col.procs, collect.Proc{Name: n.Name + "/app", PID: n.AppPID})
			}
		}
	}
	if !c.NoResources { // cometlab itself, for host.csv's disturbance
		p.col.procs = append(p.col.procs, collect.Proc{Name: results.HarnessProcess, PID: os.Getpid, Harness: true})
	}
	p.hooks = append(p.hooks, deathWatchHook(w))
	if m.Sentinel != nil {
		p.hooks = append(p.hooks, sentinelHook(p, m.Sentinel))
	}
	if len(m.Perturbations) > 0 || m.Partition != nil {
		x := &executor{steps: append(partitionSteps(m.Partition), schedule(m.Perturbations)...), tn: ln.tn, events: w.events.write, target: m.Load.Target,
			upgrades: ln.spec.Upgrades}
		if ln.links != nil {
			x.links = ln.links
		}
		p.hooks = append(p.hooks, perturbHook(p, x))
	}
	if m.Rotate != nil {
		p.hooks = append(p.hooks, rotateHook(p, &rotator{rot: *m.Rotate, tn: ln.tn, events: w.events.write}))
	}
	if m.Evidence > 0 {
		p.hooks = append(p.hooks, evidenceHook(p, newInjector(m, ln, t.RPC, w.events.write)))
	}
	if c.Prometheus != "" {
		p.hooks = append(p.hooks, prometheusHook(p, PrometheusOptions{URL: c.Prometheus, Step: c.ScrapeInterval,
			All: c.Metrics == MetricsAll, Namespace: ns, Logger: p.logger}, nil))
	}
	p.commonHooks(c)
	return p
}

// newChainPipeline derives the pipeline of a load of a chain cometlab did
// not start (Load), as o says (o.Collect already checked by checkChain):
// the load goes to endpoint, the node behind it is targetName, and
// scrape are its nodes' metrics endpoints. Its hooks: Prometheus (when
// o.Prometheus is set), then commonHooks.
func newChainPipeline(s runStart, rd *runDir, out *Printer, o LoadOptions, endpoint, targetName string, scrape []collect.Target) *pipeline {
	c := o.Collect
	p := newPipeline(s, rd, out, o.Manifest.Load, c)
	p.chain = chainView{endpoint: endpoint, target: rpc.New(o.Endpoint), targetName: targetName}
	p.send.connOffset, p.send.startAt, p.send.loadHosts = o.ConnOffset, o.StartAt, o.LoadHosts
	if o.ClientKey != "" {
		p.send.header = http.Header{ClientKeyHeader: {o.ClientKey}}
	}
	p.read = readPlan{on: o.Readback, live: !c.ReadAfterLoad, liveFrom: o.ReadFrom}
	if o.Readback {
		for _, n := range o.Nodes {
			if n.Mode != manifest.ModeSeed && n.RPC != "" {
				p.chain.nodes = append(p.chain.nodes, collect.Endpoint{Name: n.Name, Addr: n.RPC})
			}
		}
		if len(p.chain.nodes) == 0 {
			p.chain.nodes = []collect.Endpoint{{Name: targetName, Addr: o.Endpoint}}
		}
	}
	switch {
	case c.Prometheus != "":
		// The server is asked for the nodes the run would have scraped.
		var nodes []results.Node
		for _, t := range scrape {
			nodes = append(nodes, results.Node{Name: t.Name, Metrics: t.URL})
		}
		p.hooks = append(p.hooks, prometheusHook(p, PrometheusOptions{URL: c.Prometheus, Step: c.ScrapeInterval,
			All: c.Metrics == MetricsAll, Logger: p.logger}, nodes))
	case c.Metrics != MetricsNone:
		p.col.scrape = scrape
	}
	p.commonHooks(c)
	return p
}
