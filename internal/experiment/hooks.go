package experiment

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
)

// A hook is an optional capability of a run, plugged into the phases of
// its pipeline (see execute). Every field is optional; a hook records its
// own problems in the run (rd.fail), so that none stops the others.
//
// The fields run in the order of the phases, each phase calling the hooks
// in the order the constructor appended them (stop: in reverse):
//
//	plan       phase plan, first: the only one that may change the run's plan
//	loadStart  phase send, as the load starts
//	task       phase send, from the load's start, at its own pace; waited for after the load
//	whileLoad  phase send, while the load runs
//	loadEnd    phase send, after the load (and the tasks), before the drain
//	whileDrain phase drain, while the drain waits
//	drainEnd   phase drain, after it
//	end        phase end, after the read-back
//	stop       at the run's end, deferred
//
// The pipeline runs every goroutine a hook needs (task, whileLoad,
// whileDrain) and joins them; a hook starts none of its own.
//
// A hook that changes what the load goes to or what is collected (the
// sentinel: the endpoint, the scrape list) does it in plan, which runs
// before the collectors start and the load is sent; after it the plan is
// fixed. The constructors (newNetPipeline, newChainPipeline) append the
// hooks in this order: the death watch (a local testnet), the sentinel,
// perturbations and partition, rotation, evidence, Prometheus, then the
// disk guard and the progress line of every run (commonHooks).
type hook struct {
	name string
	// plan may change the run's plan pl (the endpoint, the scrape list);
	// an error ends the run before anything is collected or sent.
	plan func(ctx context.Context, pl *runPlan) error
	// loadStart is told when the load starts (ctx: the run's); it must not
	// block.
	loadStart func(ctx context.Context, t0 time.Time)
	// task is work beside the load at its own pace, started as the load
	// starts (ctx: the run's, so it may outlast the load) and waited for
	// after the load, before loadEnd.
	task func(ctx context.Context)
	// whileLoad runs while the load runs and returns when ctx ends (the
	// load's end); stop stops the load early, with errStoppedOnPurpose as
	// the cause when the run should end partial rather than failed.
	whileLoad func(ctx context.Context, t0 time.Time, gen loadRunner, stop context.CancelCauseFunc)
	// loadEnd runs after the load, before the drain (ctx: hard).
	loadEnd func(ctx context.Context)
	// whileDrain runs while the drain waits and returns when ctx ends (the
	// drain's end); stop cuts the drain short.
	whileDrain func(ctx context.Context, stop context.CancelFunc)
	// drainEnd is told how the drain ended (run.json's drain).
	drainEnd func(d results.Drain)
	// end runs after the read-back (ctx: hard).
	end func(ctx context.Context)
	// stop runs at the run's end, in reverse order of the hooks.
	stop func()
}

// deathWatchHook tells the watch of a local testnet's nodes when the load
// started, so that a node dying on its own is timed from it.
func deathWatchHook(w *runWatch) hook {
	return hook{name: "death watch",
		loadStart: func(_ context.Context, t0 time.Time) { w.loadStart.Store(t0.UnixNano()) }}
}

// sentinelHook puts a sentinel in front of the target for the load
// ([sentinel]): the load goes to it, its metrics are scraped with the
// nodes', and after the load it forwards what it accepted.
func sentinelHook(p *pipeline, cfg *manifest.ManifestSentinel) hook {
	var ls *labSentinel
	return hook{name: "sentinel",
		plan: func(_ context.Context, pl *runPlan) error {
			var err error
			if ls, err = startSentinel(cfg, pl.chain.target.Addr(), p.logger); err != nil {
				return err
			}
			pl.chain.endpoint = ls.endpoint()
			if len(pl.col.scrape) > 0 {
				pl.col.scrape = append(pl.col.scrape, ls.target())
			}
			p.rd.set(func(r *results.Run) { r.Sentinel, r.Endpoint = &ls.rec, pl.chain.endpoint })
			p.out.Phase("sentinel: %s in front of %s (%s)", ls.rec.Addr, ls.rec.Upstream, ls.rec.Settings)
			return nil
		},
		loadEnd: func(ctx context.Context) {
			start := time.Now()
			if left := ls.waitForwarded(ctx, p.send.work.DrainTimeout); left > 0 {
				p.out.Phase("sentinel: %d accepted transactions still not forwarded after %s", left, since(start))
				return
			}
			p.out.Phase("sentinel: every accepted transaction forwarded and answered (%s after the load)", since(start))
		},
		stop: func() {
			if ls == nil {
				return
			}
			if err := ls.stop(); err != nil {
				p.rd.fail(problemSentinel, "", fmt.Errorf("sentinel: %w", err))
			}
		},
	}
}

// perturbHook runs the perturbations from the load's start; after the
// load it lets nothing more begin and waits until every node is back, so
// that the drain waits for every node.
func perturbHook(p *pipeline, x *executor) hook {
	return hook{name: "perturbations",
		loadStart: func(ctx context.Context, t0 time.Time) { x.start(ctx, t0, p.heights) },
		loadEnd: func(context.Context) {
			if err := x.wait(p.out); err != nil {
				p.rd.fail(problemPerturbation, "", fmt.Errorf("perturbations: %w", err))
			}
		},
	}
}

// rotateHook rotates the ephemeral nodes for the load's duration.
func rotateHook(p *pipeline, r *rotator) hook {
	return hook{name: "rotation",
		loadStart: func(ctx context.Context, _ time.Time) { r.start(ctx, p.heights) },
		loadEnd: func(context.Context) {
			if err := r.stop(p.out); err != nil {
				p.rd.fail(problemRotation, "", err)
			}
		},
	}
}

// diskGuardHook stops the load when the run directory's file system runs
// short of space (minFree bytes; 0 means DefaultMinFreeDisk, below 0 no
// guard): the run ends partial with what was gathered, and the drain is
// cut short when half of the minimum is left (the nodes go on writing
// while it waits).
//
// Its checks are not spaced by the time scale: what the nodes write per
// height is not divided by k, only the heights per second of the host,
// and a height can write a lot (32 validators of the e2e app with 32 KiB
// vote extensions at k = 16, the host saturated: their consensus WALs
// grew by some 500 MB a node in three heights, 16 GB in five minutes).
func diskGuardHook(p *pipeline, minFree int64) hook {
	limit, on := diskGuardMin(minFree)
	if !on {
		return hook{name: "disk guard (off)"}
	}
	g := newDiskGuard(p.rd.dir, limit)
	var dg *diskGuard // the drain's guard, once g stopped the load
	return hook{name: "disk guard",
		whileLoad: func(ctx context.Context, _ time.Time, _ loadRunner, stop context.CancelCauseFunc) {
			g.watch(ctx, func() { stop(errStoppedOnPurpose) })
		},
		loadEnd: func(context.Context) {
			if why := g.tripped(); why != "" {
				dg = g.drainGuard()
				p.out.Phase("%s", why)
				p.rd.fail(problemDiskGuard, "", fmt.Errorf("%s", why))
			}
		},
		whileDrain: func(ctx context.Context, stop context.CancelFunc) {
			if dg != nil {
				dg.watch(ctx, stop)
			}
		},
		drainEnd: func(d results.Drain) {
			if why := dg.tripped(); why != "" && !d.Drained { // a check after the drain emptied cut nothing
				p.out.Phase("%s", why)
				p.rd.fail(problemDiskGuard, "", errors.New(why))
			}
		},
	}
}

// progressHook prints the progress line while the load runs (when the live
// line does not: no live read-back, or the user's own transactions, read
// after the load).
func progressHook(p *pipeline) hook {
	return hook{name: "progress",
		whileLoad: func(ctx context.Context, t0 time.Time, gen loadRunner, _ context.CancelCauseFunc) {
			if p.live != nil {
				return
			}
			every(ctx, p.harnessEvery(500*time.Millisecond), func() {
				st := gen.Stats()
				el := time.Since(t0)
				height := ""
				if len(p.chain.nodes) > 0 {
					height = fmt.Sprintf("  height %d", p.heights.Latest(p.chain.nodes[0].Name))
				}
				p.out.Status("load %5.1fs/%s  sent %d (%.0f tx/s)  replies %d  errors %d  late %d%s",
					el.Seconds(), p.send.work.Duration, st.Sent, float64(st.Sent)/el.Seconds(), st.Replies, st.Errors, st.Late, height)
			})
		},
	}
}

// prometheusHook reads metrics.csv from a Prometheus server after the
// read-back (instead of scraping) for the nodes of run.json with a metrics
// endpoint, or for nodes when given; a failure is a problem of the run.
func prometheusHook(p *pipeline, opts PrometheusOptions, nodes []results.Node) hook {
	return hook{name: "prometheus",
		end: func(ctx context.Context) {
			// Let the server scrape once more after the last block.
			select {
			case <-ctx.Done():
			case <-time.After(2 * max(opts.Step, time.Second)):
			}
			run := p.rd.snapshot()
			if nodes != nil {
				run.Nodes = nodes
			}
			st, err := readPrometheus(ctx, p.rd.dir, run, opts)
			if err != nil {
				p.out.Phase("metrics: %v", err)
				p.rd.fail(problemPrometheus, "", err)
				return
			}
			msg := ""
			for _, s := range st {
				msg += fmt.Sprintf("; %s: %d series (by %s)", s.Node, s.Series, s.MatchBy)
			}
			p.out.Phase("metrics: read from prometheus %s%s", opts.URL, msg)
		},
	}
}

// evidenceHook injects the evidence from the load's start, as a task: it
// may outlast the load, which is waited for before the drain. A failure
// leaves the run partial.
func evidenceHook(p *pipeline, x *injector) hook {
	return hook{name: "evidence",
		task: func(ctx context.Context) {
			p.out.Phase("evidence: injecting %d duplicate votes through %s", x.n, x.via)
			if err := x.run(ctx); err != nil {
				p.out.Phase("%v", err)
				p.rd.fail(problemEvidence, "", err)
			}
		},
	}
}
