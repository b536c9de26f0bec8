package experiment

import (
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/cometlab/cometlab/internal/collect"
	"github.com/cometlab/cometlab/internal/load"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/rpc"
)

// pipeline is one run from its load to its read-back, as named phases
// (execute): start → collect → send → drain → read back → end. What is
// optional (a sentinel, perturbations, rotation, the disk guard, the
// progress line, a Prometheus read-back) is a hook plugged into those
// phases. newPipeline derives it all from what the run is given; nothing
// else builds one.
type pipeline struct {
	rd     *runDir
	out    *printer
	logger *slog.Logger
	id     [16]byte
	chain  chainView
	send   sendPlan
	col    collectPlan
	read   readPlan
	hooks  []hook

	// State the phases hand on.
	heights   *collect.Heights
	first     int64 // the first height that can hold a tx of the run
	loadStart time.Time
	loadEnd   time.Time
	live      *liveRun // the live reader, when it runs
	drained   *results.Drain
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
	// noCommitSamples: no mempool.csv or commit_cpu.csv (Collect).
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

// runInput is what a run's pipeline is derived from. Exactly one of net
// (a local testnet cometlab runs) and chain (a chain it does not) is set.
type runInput struct {
	start   runStart
	rd      *runDir
	out     *printer
	work    manifest.Workload
	collect Collect

	// A local testnet: m is its manifest, events its event log.
	net    *localNet
	m      manifest.Resolved
	events *eventLog

	// A chain cometlab did not start (`cometlab load`): endpoint is the
	// URL the load goes to, targetName the name of the node behind it,
	// scrape its nodes' metrics endpoints.
	chain      *LoadOptions
	endpoint   string
	targetName string
	scrape     []collect.Target
}

// newPipeline derives a run's pipeline: the chain, the load, the
// collectors, the read-back and the hooks of the capabilities in use.
func newPipeline(in runInput) *pipeline {
	s := in.start
	p := &pipeline{rd: in.rd, out: in.out, logger: s.logger, id: s.id,
		send: sendPlan{work: in.work, source: s.txs}}
	if in.net != nil {
		p.fromNet(in)
	} else {
		p.fromChain(in)
	}
	p.col.noCommitSamples = in.collect.NoCommitSamples
	p.hooks = append(p.hooks, diskGuardHook(p, in.collect.MinFreeDisk), progressHook(p))
	return p
}

// fromNet sets p up for a run on the local testnet in.net.
func (p *pipeline) fromNet(in runInput) {
	ln, m := in.net, in.m
	t := ln.tn.Node(m.Load.Target) // checked by the caller
	p.chain = chainView{endpoint: rpc.WSAddr(t.RPCAddr()), target: t.RPC, targetName: t.Name,
		nodes: ln.endpoints, down: ln.down}
	p.read = readPlan{on: true, live: !in.collect.ReadAfterLoad, avoid: map[string]bool{}}
	for _, pt := range m.Perturbations {
		p.read.avoid[pt.Node] = true
	}
	for _, n := range m.Nodes {
		if n.Ephemeral {
			p.read.avoid[n.Name] = true
		}
	}
	c := in.collect
	ns := metricsNamespace(m)
	for _, n := range ln.tn.Nodes {
		if c.Metrics != MetricsNone {
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
	p.col.scrapeCfg = collect.ScrapeConfig{Interval: c.ScrapeInterval, Namespace: ns, All: c.Metrics == MetricsAll}
	p.col.resCfg = collect.ResourceConfig{Interval: c.ScrapeInterval}
	if m.Sentinel != nil {
		p.hooks = append(p.hooks, sentinelHook(p, m.Sentinel))
	}
	if len(m.Perturbations) > 0 || m.Partition != nil {
		x := &executor{steps: append(partitionSteps(m.Partition), schedule(m.Perturbations)...), tn: ln.tn, events: in.events.write, target: m.Load.Target,
			upgrades: ln.spec.Upgrades}
		if ln.links != nil {
			x.links = ln.links
		}
		p.hooks = append(p.hooks, perturbHook(p, x))
	}
	if m.Rotate != nil {
		p.hooks = append(p.hooks, rotateHook(p, &rotator{rot: *m.Rotate, tn: ln.tn, events: in.events.write}))
	}
	if m.Evidence > 0 {
		p.hooks = append(p.hooks, evidenceHook(p, newInjector(m, ln, t.RPC, in.events.write)))
	}
	if c.Prometheus != "" {
		p.col.scrape = nil // read from the server instead
		p.hooks = append(p.hooks, prometheusHook(p, PrometheusOptions{URL: c.Prometheus, Step: c.ScrapeInterval,
			All: c.Metrics == MetricsAll, Namespace: ns, Logger: p.logger}))
	}
}

// fromChain sets p up for a load of a chain cometlab did not start.
func (p *pipeline) fromChain(in runInput) {
	o := in.chain
	p.chain = chainView{endpoint: in.endpoint, target: rpc.New(o.Endpoint), targetName: in.targetName}
	p.send.connOffset, p.send.startAt, p.send.loadHosts = o.ConnOffset, o.StartAt, o.LoadHosts
	if o.ClientKey != "" {
		p.send.header = http.Header{ClientKeyHeader: {o.ClientKey}}
	}
	p.read = readPlan{on: o.Readback, live: true, liveFrom: o.ReadFrom}
	if o.Readback {
		for _, n := range o.Nodes {
			if n.Mode != manifest.ModeSeed && n.RPC != "" {
				p.chain.nodes = append(p.chain.nodes, collect.Endpoint{Name: n.Name, Addr: n.RPC})
			}
		}
		if len(p.chain.nodes) == 0 {
			p.chain.nodes = []collect.Endpoint{{Name: p.chain.targetName, Addr: o.Endpoint}}
		}
	}
	p.col.scrape = in.scrape
	p.col.scrapeCfg = collect.ScrapeConfig{Interval: o.ScrapeInterval, All: o.Metrics == MetricsAll}
}
