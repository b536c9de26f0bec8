package experiment

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/cometlab/cometlab/internal/collect"
	"github.com/cometlab/cometlab/internal/deploy"
	"github.com/cometlab/cometlab/internal/load"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/rpc"
)

// loadPhase is the part of a run shared by `run` and `load`: drive the load
// into one endpoint while following heights on every node, then wait for
// the mempools to drain and read the chain back.
type loadPhase struct {
	rd       *runDir
	out      *printer
	logger   *slog.Logger
	id       [16]byte
	work     manifest.Workload
	endpoint string             // ws:// URL the load goes to
	target   *rpc.Client        // the node that receives the load
	nodes    []collect.Endpoint // every node (for adoption and drain)
	readback bool
	source   load.TxSource // nil: loadtime payloads
	header   http.Header   // sent on the load's websocket handshakes
	// minFree is the disk guard's minimum free space in bytes: 0 means
	// DefaultMinFreeDisk, below 0 no guard.
	minFree int64
	// Collectors alongside heights for the whole load, drain and read-back
	// (none when empty): node metrics → metrics.csv, local processes →
	// resources.csv; or, with prom, metrics.csv read from a Prometheus
	// server after the read-back.
	scrape    []collect.Target
	scrapeCfg collect.ScrapeConfig
	procs     []collect.Proc
	resCfg    collect.ResourceConfig
	prom      *PrometheusOptions
	// down says whether a node cannot answer now and why ("exited at
	// 25.0 s, killed by signal 9", times since t0; "" when there is nothing
	// to report, e.g. a rotating node between lives); nil means every node
	// is taken to be up (a testnet cometlab does not run).
	down func(name string, t0 time.Time) (bool, string)
	// perturb, when set, runs the perturbations from the load start; the
	// drain waits for it to end, so that every node is back first.
	perturb *executor
	// rotate, when set, rotates ephemeral nodes for the load's duration.
	rotate *rotator
	// loadStart is when the load began; onLoadStart, when set, is told.
	loadStart   time.Time
	onLoadStart func(time.Time)
	// live reads the chain while the load runs (liveReader) and prints
	// the live line; liveFrom, when set, is the RPC address of the node
	// read from (default: a node other than the target).
	live     bool
	liveFrom string
	// avoid names the nodes the live reader should not read from: the
	// perturbed and the rotating ones.
	avoid map[string]bool
	// sentinelCfg, when set, puts a sentinel in front of the target for
	// the load ([sentinel]); sentinel is it once started.
	sentinelCfg *manifest.ManifestSentinel
	sentinel    *labSentinel
	// loadHosts, when set, sends the load from a deployed testnet's load
	// hosts instead of from here (remoteLoad).
	loadHosts *LoadHosts
	// connOffset numbers the load's connections from it, and startAt,
	// when set, is when the load starts: a load host's share of a load
	// from several hosts.
	connOffset int
	startAt    time.Time
}

// loadRunner is the load: one generator, or a group of them (one per
// [[load.client]]).
type loadRunner interface {
	Run(ctx context.Context) error
	Stats() load.Stats
}

// run drives the load. ctx ending stops the load; the read-back then still
// runs under hard (a second interrupt) so that what was sent is accounted
// for.
func (lp *loadPhase) run(ctx, hard context.Context) error {
	sent, err := results.Create(lp.rd.path(results.SentFile), results.SentHeader)
	if err != nil {
		return err
	}
	defer sent.Close()
	replies, err := results.Create(lp.rd.path(results.RepliesFile), results.RepliesHeader)
	if err != nil {
		return err
	}
	defer replies.Close()
	adoption, err := results.Create(lp.rd.path(results.AdoptionFile), results.AdoptionHeader)
	if err != nil {
		return err
	}
	defer adoption.Close()

	if lp.sentinelCfg != nil {
		stop, err := lp.startSentinel()
		if err != nil {
			return err
		}
		defer stop()
	}

	// Follow heights (and scrape metrics and resources) on every node for
	// the whole load and read-back.
	hctx, hstop := context.WithCancel(context.WithoutCancel(hard))
	heights := collect.NewHeights(lp.nodes, adoption, lp.logger)
	col, err := lp.collectors(heights)
	defer col.close()
	if err != nil {
		hstop()
		return err
	}
	hdone := make(chan struct{})
	go func() { col.run(hctx); close(hdone) }()
	defer func() { hstop(); <-hdone; col.print(lp.out) }()

	// Flush what was gathered every second: a crash loses at most that.
	fctx, fstop := context.WithCancel(context.Background())
	defer fstop()
	go every(fctx, time.Second, func() {
		sent.Flush()
		replies.Flush()
		adoption.Flush()
		col.flush()
	})

	// The first height that can hold a transaction of this run (only a
	// CometBFT node has one; a sink or gateway without read-back need not).
	var first int64
	if lp.readback {
		h, err := lp.target.Height(ctx)
		if err != nil {
			return fmt.Errorf("target %s: %w", lp.target.Addr(), err)
		}
		first = h + 1
	}
	cfg := load.Config{
		Endpoint: lp.endpoint, Connections: lp.work.Connections, Rate: lp.work.Rate, Size: lp.work.Size,
		Duration: lp.work.Duration, Pacing: lp.work.Pacing, LateThreshold: lp.work.LateThreshold, RunID: lp.id,
		Shape: lp.work.Shape, Source: lp.source,
		Header: lp.header, ConnOffset: lp.connOffset,
	}
	var gen loadRunner
	var remote *remoteLoad
	if lp.loadHosts != nil {
		var clocks []results.Clock
		remote, clocks, err = newRemoteLoad(ctx, *lp.loadHosts, lp.rd, uuidString(lp.id), lp.endpoint, lp.work, sent, replies)
		if err != nil {
			return err
		}
		lp.rd.set(func(r *results.Run) { r.Clocks = clocks })
		lp.out.Phase("clocks: %s", clockLine(clocks))
		gen = remote
	} else if len(lp.work.Clients) > 0 {
		gen, err = clientGenerators(cfg, lp.work, sent, replies, lp.logger)
	} else {
		gen, err = load.New(cfg, sent, replies, lp.logger)
	}
	if err != nil {
		return err
	}
	expected := lp.work.ExpectedTxs()
	what := fmt.Sprintf("%d-byte txs", lp.work.Size)
	if lp.source != nil {
		what = "the transactions of " + lp.work.TxsFile + " (matched on the chain by hash)"
	}
	rate := fmt.Sprintf("%g tx/s", lp.work.Rate)
	if !lp.work.Shape.IsConstant() {
		rate = lp.work.Spec().String()
	}
	if len(lp.work.Clients) > 0 {
		var cs []string
		for _, c := range lp.work.Clients {
			cs = append(cs, fmt.Sprintf("%s %d conn × %g tx/s", c.Name, c.Connections, c.Rate))
		}
		lp.out.Phase("load: %d clients (%s) × %s, %s → %s (%d txs expected)",
			len(cs), strings.Join(cs, ", "), lp.work.Duration, what, lp.endpoint, expected)
	} else {
		lp.out.Phase("load: %d conn × %s × %s, %s → %s (%d txs expected)",
			lp.work.Connections, rate, lp.work.Duration, what, lp.endpoint, expected)
	}
	if remote != nil {
		lp.out.Phase("load: from the load host(s) %s through ansible-playbook %s, starting at %s",
			strings.Join(lp.loadHosts.Hosts, ", "), deploy.LoadBook, remote.startAt.Format("15:04:05.000"))
	}
	if err := lp.waitStart(ctx); err != nil {
		return err
	}
	loadStart := time.Now()
	if remote != nil {
		loadStart = remote.startAt
	}
	lp.loadStart = loadStart
	if lp.onLoadStart != nil {
		lp.onLoadStart(loadStart)
	}
	lp.rd.set(func(r *results.Run) { r.LoadStart = loadStart; r.FirstHeight = first })
	if lp.perturb != nil {
		lp.perturb.start(ctx, loadStart, heights)
	}
	if lp.rotate != nil {
		lp.rotate.start(ctx, heights)
	}
	pctx, pstop := context.WithCancel(ctx)
	live, err := lp.startLive(hard, first, gen, loadStart)
	if err != nil {
		pstop()
		return err
	}
	defer live.stop()
	if live == nil {
		go lp.progress(pctx, gen, heights, loadStart)
	}
	guard := lp.diskGuard()
	gctx, gstop := context.WithCancel(ctx)
	if guard != nil {
		go guard.watch(gctx, gstop)
	}
	loadErr := gen.Run(gctx)
	gstop()
	pstop()
	if why := guard.tripped(); why != "" {
		lp.out.Phase("%s", why)
		lp.rd.fail(errors.New(why))
		loadErr = nil // stopped on purpose: the run is partial, not failed
	}
	if lp.rotate != nil {
		if err := lp.rotate.stop(lp.out); err != nil {
			lp.rd.fail(err)
		}
	}
	loadEnd := time.Now()
	lp.rd.set(func(r *results.Run) { r.LoadEnd = loadEnd })
	st := gen.Stats()
	lp.out.Phase("load: done in %s: sent %d, not sent %d, replies %d (%d errors), late %d",
		loadEnd.Sub(loadStart).Round(time.Millisecond), st.Sent, st.Unsent, st.Replies, st.Errors, st.Late)
	if err := errors.Join(sent.Flush(), replies.Flush()); err != nil {
		return err
	}
	if lp.sentinel != nil {
		lp.waitSentinel(hard)
	}
	if loadErr != nil && !errors.Is(loadErr, context.Canceled) {
		lp.rd.fail(fmt.Errorf("load: %w", loadErr))
	}
	if lp.perturb != nil {
		if err := lp.perturb.wait(lp.out); err != nil {
			lp.rd.fail(fmt.Errorf("perturbations: %w", err))
		}
	}
	if !lp.readback {
		return loadErr
	}
	if ctx.Err() != nil {
		lp.out.Phase("interrupted: reading back what was sent (interrupt again to stop at once)")
	}
	if err := lp.readBack(hard, first, live); err != nil {
		return errors.Join(loadErr, err)
	}
	if lp.prom != nil {
		lp.readPrometheus(hard)
	}
	return loadErr
}

func (c *collectors) close() {
	for _, w := range c.files {
		w.Close()
	}
}

// print says what the collectors gathered, naming nodes with gaps.
func (c *collectors) print(out *printer) {
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
		gaps := ""
		for _, s := range c.res.Stats() {
			n += s.Samples
			if s.Failures > 0 {
				gaps += fmt.Sprintf("; %s: %d samples failed (%s)", s.Node, s.Failures, s.LastError)
			}
		}
		out.Phase("resources: %d samples of %d node processes%s", n, len(c.res.Stats()), gaps)
	}
}

func (lp *loadPhase) progress(ctx context.Context, gen loadRunner, heights *collect.Heights, start time.Time) {
	every(ctx, 500*time.Millisecond, func() {
		st := gen.Stats()
		el := time.Since(start)
		height := ""
		if len(lp.nodes) > 0 {
			height = fmt.Sprintf("  height %d", heights.Latest(lp.nodes[0].Name))
		}
		lp.out.Status("load %5.1fs/%s  sent %d (%.0f tx/s)  replies %d  errors %d  late %d%s",
			el.Seconds(), lp.work.Duration, st.Sent, float64(st.Sent)/el.Seconds(), st.Replies, st.Errors, st.Late, height)
	})
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

// readBack waits for the mempools to drain, then walks the chain from first
// to the last committed height.
func (lp *loadPhase) readBack(ctx context.Context, first int64, live *liveRun) error {
	start := time.Now()
	drained, left, dead := lp.drain(ctx)
	skipped := ""
	if dead != "" {
		skipped = fmt.Sprintf(" (not waited for:%s)", dead)
	}
	if drained {
		lp.out.Phase("drain: mempools empty after %s%s", since(start), skipped)
	} else {
		msg := fmt.Sprintf("mempools not empty after the drain timeout %s:%s%s", lp.work.DrainTimeout, left, skipped)
		lp.out.Phase("drain: %s", msg)
		lp.rd.fail(errors.New(msg))
	}
	target := lp.readBackNode()
	last, err := target.Height(ctx)
	if err != nil {
		return fmt.Errorf("read back: %w", err)
	}
	// Block last's commit time is block last+1's time: wait for it.
	if err := waitHeight(ctx, target, last+1, 30*time.Second); err != nil {
		return fmt.Errorf("read back: %w", err)
	}
	lp.rd.set(func(r *results.Run) { r.LastHeight = last })
	if live != nil {
		return live.finish(ctx, lp.out, target, last)
	}
	return walkChain(ctx, lp.rd, lp.out, target, lp.id, first, last)
}

// readBackNode is the node the chain is read from: the load's target, or
// the first node that is up when the target is down.
func (lp *loadPhase) readBackNode() *rpc.Client {
	if lp.down == nil {
		return lp.target
	}
	for _, n := range lp.nodes {
		if n.Addr == lp.target.Addr() {
			if down, _ := lp.down(n.Name, lp.loadStart); !down {
				return lp.target
			}
		}
	}
	for _, n := range lp.nodes {
		if down, why := lp.down(n.Name, lp.loadStart); !down {
			lp.out.Phase("read-back: from %s, the load's target is down", n.Name)
			return rpc.New(n.Addr)
		} else {
			lp.logger.Debug("read-back: node down", "node", n.Name, "why", why)
		}
	}
	return lp.target
}

// drain polls the mempool of every node that is up until all are empty or
// the drain timeout passes; it returns what was left when it gave up, and
// the nodes it did not wait for because they are down, each with why
// ("validator03 exited at 25.0 s, killed by signal 9").
func (lp *loadPhase) drain(ctx context.Context) (drained bool, left, dead string) {
	ctx, cancel := context.WithTimeout(ctx, lp.work.DrainTimeout)
	defer cancel()
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		left, dead = "", ""
		for _, n := range lp.nodes {
			if lp.down != nil {
				if down, why := lp.down(n.Name, lp.loadStart); down {
					if why != "" {
						dead += fmt.Sprintf(" %s %s;", n.Name, why)
					}
					continue
				}
			}
			c := rpc.New(n.Addr)
			cctx, ccancel := context.WithTimeout(ctx, 2*time.Second)
			k, err := c.UnconfirmedTxs(cctx)
			ccancel()
			switch {
			case err != nil:
				left += fmt.Sprintf(" %s: %v;", n.Name, err)
			case k > 0:
				left += fmt.Sprintf(" %s: %d txs;", n.Name, k)
			}
		}
		if left == "" {
			return true, "", dead
		}
		lp.out.Status("drain: waiting for the mempools:%s", left)
		select {
		case <-ctx.Done():
			return false, left, dead
		case <-t.C:
		}
	}
}

// waitHeight waits until the node has committed height h.
func waitHeight(ctx context.Context, c *rpc.Client, h int64, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		got, err := c.Height(ctx)
		if err == nil && got >= h {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s did not reach height %d within %s (at %d, %v)", c.Addr(), h, timeout, got, err)
		case <-t.C:
		}
	}
}
