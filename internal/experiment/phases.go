package experiment

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/cometlab/cometlab/internal/collect"
	"github.com/cometlab/cometlab/internal/deploy"
	"github.com/cometlab/cometlab/internal/load"
	"github.com/cometlab/cometlab/internal/results"
)

// errStoppedOnPurpose is the cause of a load stopped by a hook (the disk
// guard): the run is partial, not failed.
var errStoppedOnPurpose = errors.New("load stopped on purpose")

// execute runs the phases of the run in order:
//
//  1. plan: the hooks that change the run's plan (a sentinel: what the
//     load goes to, what is scraped); after it the plan is fixed;
//  2. collect: heights on every node, metrics, resources, flushed every second;
//  3. send: the load, with the hooks that act while it runs, its send
//     logs flushed every second;
//  4. drain: until every mempool is empty (recorded in run.json);
//  5. read back: the chain from the run's first height to its last;
//  6. end: the hooks that act after the read-back, then every hook's stop.
//
// ctx ending stops the load; the drain and read-back then still run under
// hard (a second interrupt) so that what was sent is accounted for.
func (p *pipeline) execute(ctx, hard context.Context) error {
	logs, err := openSendLogs(p.rd)
	if err != nil {
		return err
	}
	defer func() { p.rd.failIf(problemCollector, logs.close()) }()
	defer p.stopHooks()
	defer func() { p.live.stop() }() // nil-safe; a no-op after the read-back finished it
	if err := p.planHooks(ctx); err != nil {
		return err
	}
	col, err := p.startCollectors(hard)
	if err != nil {
		return err
	}
	defer col.stop(p)
	loadErr := p.sendLoad(ctx, hard, logs)
	if !p.read.on {
		return loadErr
	}
	if ctx.Err() != nil {
		p.out.Phase("interrupted: reading back what was sent (interrupt again to stop at once)")
	}
	p.drainPhase(hard)
	if err := p.readBack(hard); err != nil {
		return errors.Join(loadErr, err)
	}
	for _, h := range p.hooks {
		if h.end != nil {
			h.end(hard)
		}
	}
	return loadErr
}

// sendLogs are sent.csv and replies.csv.
type sendLogs struct{ sent, replies *results.Writer }

func openSendLogs(rd *runDir) (sendLogs, error) {
	sent, err := results.Create(rd.path(results.SentFile), results.SentHeader)
	if err != nil {
		return sendLogs{}, err
	}
	replies, err := results.Create(rd.path(results.RepliesFile), results.RepliesHeader)
	if err != nil {
		sent.Close()
		return sendLogs{}, err
	}
	return sendLogs{sent: sent, replies: replies}, nil
}

func (l sendLogs) flush() error { return errors.Join(l.sent.Flush(), l.replies.Flush()) }
func (l sendLogs) close() error { return errors.Join(l.sent.Close(), l.replies.Close()) }

// planHooks is the phase plan: each hook's plan, in order, may change the
// run's plan before anything is collected or sent.
func (p *pipeline) planHooks(ctx context.Context) error {
	for _, h := range p.hooks {
		if h.plan != nil {
			if err := h.plan(ctx, &p.runPlan); err != nil {
				return err
			}
		}
	}
	return nil
}

// stopHooks stops the hooks in reverse order (the last phase, deferred).
func (p *pipeline) stopHooks() {
	for i := len(p.hooks) - 1; i >= 0; i-- {
		if h := p.hooks[i]; h.stop != nil {
			h.stop()
		}
	}
}

// runningCollectors are the collectors of a run, joined by one group.
type runningCollectors struct {
	files   []*results.Writer
	scraper *collect.Scraper
	res     *collect.Resources
	cancel  context.CancelFunc
	group   errgroup.Group
}

// startCollectors is the phase collect: it follows heights on every node
// (adoption.csv) with the hashes each committed (hashes.csv), asks each
// node's mempool and samples its CPU at each of its commits (mempool.csv,
// commitcpu.csv; unless Collect.NoCommitSamples), scrapes metrics and
// samples resources when the plan has targets for them, and flushes every file every second, so that a crash
// loses at most a second. They run until stop, after the read-back.
func (p *pipeline) startCollectors(hard context.Context) (*runningCollectors, error) {
	c := &runningCollectors{}
	create := func(name, header string) (*results.Writer, error) {
		w, err := results.Create(p.rd.path(name), header)
		if err != nil {
			c.closeFiles()
			return nil, err
		}
		c.files = append(c.files, w)
		return w, nil
	}
	adoption, err := create(results.AdoptionFile, results.AdoptionHeader)
	if err != nil {
		return nil, err
	}
	p.heights = collect.NewHeights(p.chain.nodes, adoption, p.logger)
	if !p.col.noCommitSamples {
		mempool, err := create(results.MempoolFile, results.MempoolHeader)
		if err != nil {
			return nil, err
		}
		p.heights.SampleMempools(mempool, 0)
	}
	hashes, err := create(results.HashesFile, results.HashesHeader)
	if err != nil {
		return nil, err
	}
	p.heights.RecordHashes(hashes)
	if len(p.col.procs) > 0 && !p.col.noCommitSamples {
		cpu, err := create(results.CommitCPUFile, results.CommitCPUHeader)
		if err != nil {
			return nil, err
		}
		p.heights.SampleCPUAtCommits(cpu, p.col.procs, "")
	}
	runners := []interface{ Run(context.Context) error }{p.heights}
	if len(p.col.scrape) > 0 {
		w, err := create(results.MetricsFile, results.MetricsHeader)
		if err != nil {
			return nil, err
		}
		c.scraper = collect.NewScraper(p.col.scrape, p.col.scrapeCfg, w, p.logger)
		runners = append(runners, c.scraper)
	}
	if len(p.col.procs) > 0 {
		w, err := create(results.ResourceFile, results.ResourcesHeader)
		if err != nil {
			return nil, err
		}
		cfg := p.col.resCfg
		if cfg.Host, err = create(results.HostFile, results.HostHeader); err != nil {
			return nil, err
		}
		c.res = collect.NewResources(p.col.procs, cfg, w, p.logger)
		runners = append(runners, c.res)
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(hard))
	c.cancel = cancel
	for _, r := range runners {
		c.group.Go(func() error { return r.Run(ctx) })
	}
	c.group.Go(func() error {
		every(ctx, p.harnessEvery(time.Second), func() {
			for _, w := range c.files {
				w.Flush() // a failure sticks: close returns it
			}
		})
		return nil
	})
	return c, nil
}

// stop ends the collectors, waits for them, says what they gathered and
// closes their files; a file that could not be written fails the run,
// naming it.
func (c *runningCollectors) stop(p *pipeline) {
	c.cancel()
	err := c.group.Wait()
	c.print(p.out)
	p.rd.failIf(problemCollector, errors.Join(err, c.closeFiles()))
}

func (c *runningCollectors) closeFiles() error {
	var errs []error
	for _, w := range c.files {
		errs = append(errs, w.Close())
	}
	return errors.Join(errs...)
}

// print says what the collectors gathered, naming nodes with gaps.
func (c *runningCollectors) print(out *Printer) {
	if c.scraper != nil {
		var rows, ok, failed int64
		gaps := ""
		for _, s := range c.scraper.Stats() {
			rows, ok, failed = rows+s.Rows, ok+s.Successes, failed+s.Failures
			if s.Failures > 0 {
				gaps += fmt.Sprintf("; %s: %d of %d scrapes failed (%s)", s.Node, s.Failures, s.Failures+s.Successes, s.LastError)
			}
		}
		out.Phase("metrics: %d rows from %d scrapes of %d nodes%s", rows, ok, len(c.scraper.Stats()), gaps)
	}
	if c.res != nil {
		var n int64
		gaps, procs := "", 0
		for _, s := range c.res.Stats() {
			if s.Node == "cometlab" {
				continue // the harness, sampled for host.csv
			}
			procs++
			n += s.Samples
			if s.Failures > 0 {
				gaps += fmt.Sprintf("; %s: %d samples failed (%s)", s.Node, s.Failures, s.LastError)
			}
		}
		out.Phase("resources: %d samples of %d node processes%s", n, procs, gaps)
	}
}

// loadRunner is the load: one generator, or a group of them (one per
// [[load.client]]), or the load hosts' loads.
type loadRunner interface {
	Run(ctx context.Context) error
	Stats() load.Stats
}

// sendLoad is the phase send: it drives the load into the endpoint, runs
// the hooks that act while it runs, and returns the load's error.
func (p *pipeline) sendLoad(ctx, hard context.Context, logs sendLogs) error {
	// The first height that can hold a transaction of this run (only a
	// CometBFT node has one; a sink or gateway without read-back need not).
	if p.read.on {
		h, err := p.chain.target.Height(ctx)
		if err != nil {
			return fmt.Errorf("target %s: %w", p.chain.target.Addr(), err)
		}
		p.first = h + 1
	}
	gen, remote, err := p.generator(ctx, logs)
	if remote != nil {
		remote.hard = hard
	}
	if err != nil {
		return err
	}
	p.announce(remote)
	if err := p.waitStart(ctx); err != nil {
		return err
	}
	loadStart := time.Now()
	if remote != nil {
		loadStart = remote.startAt
	}
	p.loadStart = loadStart
	p.rd.set(func(r *results.Run) { r.LoadStart = loadStart; r.FirstHeight = p.first })
	var tasks sync.WaitGroup
	for _, h := range p.hooks {
		if h.loadStart != nil {
			h.loadStart(ctx, loadStart)
		}
		if h.task != nil {
			tasks.Go(func() { h.task(ctx) })
		}
	}
	defer tasks.Wait() // an early return; after the load they are waited for below
	live, err := p.startLive(hard, gen, loadStart)
	if err != nil {
		return err
	}
	p.live = live
	lctx, stopLoad := context.WithCancelCause(ctx)
	var during errgroup.Group
	// The send logs are flushed every second as the collectors' files
	// are: a crash loses at most a second of them, and a load host's log
	// can be read while its load runs. A failed flush sticks: the flush
	// after the load returns it.
	during.Go(func() error { every(lctx, p.harnessEvery(time.Second), func() { _ = logs.flush() }); return nil })
	for _, h := range p.hooks {
		if h.whileLoad != nil {
			during.Go(func() error { h.whileLoad(lctx, loadStart, gen, stopLoad); return nil })
		}
	}
	loadErr := gen.Run(lctx)
	stopLoad(nil)
	during.Wait()
	if errors.Is(context.Cause(lctx), errStoppedOnPurpose) {
		loadErr = nil // the run is partial (the hook recorded why), not failed
	}
	p.loadEnd = time.Now()
	p.rd.set(func(r *results.Run) { r.LoadEnd = p.loadEnd })
	st := gen.Stats()
	p.out.Phase("load: done in %s: sent %d, not sent %d, replies %d (%d errors), late %d",
		p.loadEnd.Sub(loadStart).Round(time.Millisecond), st.Sent, st.Unsent, st.Replies, st.Errors, st.Late)
	tasks.Wait()
	if err := logs.flush(); err != nil {
		return err
	}
	for _, h := range p.hooks {
		if h.loadEnd != nil {
			h.loadEnd(hard)
		}
	}
	if loadErr != nil && !errors.Is(loadErr, context.Canceled) {
		p.rd.fail(problemLoad, "", fmt.Errorf("load: %w", loadErr))
	}
	return loadErr
}

// generator makes the load's generator: the load hosts' (remote, with
// their clocks measured), the clients', or one.
func (p *pipeline) generator(ctx context.Context, logs sendLogs) (loadRunner, *remoteLoad, error) {
	w := p.send.work
	cfg := load.Config{
		Endpoint: p.chain.endpoint, Connections: w.Connections, Rate: w.Rate, Size: w.Size,
		Duration: w.Duration, Pacing: w.Pacing, LateThreshold: w.LateThreshold, RunID: p.id,
		Shape: w.Shape, Source: p.send.source, Header: p.send.header, ConnOffset: p.send.connOffset, Lanes: w.Lanes, Sync: w.Sync,
	}
	switch {
	case p.send.loadHosts != nil:
		remote, clocks, err := newRemoteLoad(ctx, *p.send.loadHosts, p.rd, uuidString(p.id), p.chain.endpoint, w, logs.sent, logs.replies)
		if err != nil {
			return nil, nil, err
		}
		p.rd.set(func(r *results.Run) { r.Clocks = clocks })
		p.out.Phase("clocks: %s", clockLine(clocks))
		return remote, remote, nil
	case len(w.Clients) > 0:
		gen, err := clientGenerators(cfg, w, logs.sent, logs.replies, p.logger)
		return gen, nil, err
	}
	gen, err := load.New(cfg, logs.sent, logs.replies, p.logger)
	return gen, nil, err
}

// announce prints what the load will be.
func (p *pipeline) announce(remote *remoteLoad) {
	w := p.send.work
	expected := w.ExpectedTxs()
	what := fmt.Sprintf("%d-byte txs", w.Size)
	if p.send.source != nil {
		what = "the transactions of " + w.TxsFile + " (matched on the chain by hash)"
	}
	rate := fmt.Sprintf("%g tx/s", w.Rate)
	if !w.Shape.IsConstant() {
		rate = w.Spec().String()
	}
	if len(w.Clients) > 0 {
		var cs []string
		for _, c := range w.Clients {
			cs = append(cs, fmt.Sprintf("%s %d conn × %g tx/s", c.Name, c.Connections, c.Rate))
		}
		p.out.Phase("load: %d clients (%s) × %s, %s → %s (%d txs expected)",
			len(cs), strings.Join(cs, ", "), w.Duration, what, p.chain.endpoint, expected)
	} else {
		p.out.Phase("load: %d conn × %s × %s, %s → %s (%d txs expected)",
			w.Connections, rate, w.Duration, what, p.chain.endpoint, expected)
	}
	if remote != nil {
		p.out.Phase("load: from the load host(s) %s through ansible-playbook %s, starting at %s",
			strings.Join(p.send.loadHosts.Hosts, ", "), deploy.LoadBook, remote.startAt.Format("15:04:05.000"))
	}
}

// every calls fn every d, the first time after d, until ctx ends.
func every(ctx context.Context, d time.Duration, fn func()) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			fn()
		}
	}
}
