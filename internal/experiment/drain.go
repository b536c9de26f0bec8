package experiment

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/cometlab/cometlab/internal/collect"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/rpc"
)

// drainPoll is how often the drain asks every mempool.
const drainPoll = 200 * time.Millisecond

// drain is the phase drain: it waits for every mempool to empty (at most
// the drain timeout), records how long that took after the load's end in
// run.json's drain, and fails the run partial when they did not empty.
func (p *pipeline) drain(ctx context.Context) {
	start := time.Now()
	var flood []collect.Endpoint
	for _, n := range p.chain.nodes {
		if !p.chain.appMempool[n.Name] {
			flood = append(flood, n)
		}
	}
	d := drainMempools(ctx, flood, p.downSince(p.loadStart), p.send.work.DrainTimeout, p.out.Status)
	if d.Drained && len(p.chain.appMempool) > 0 {
		d.App, d.Drained = p.appDrain(ctx, p.send.work.DrainTimeout-time.Since(start))
	}
	cut := !d.Drained && ctx.Err() != nil // the disk guard, or a second interrupt
	if cut {
		d.Left = "" // the nodes' answers to a cancelled request say nothing of their mempools
	}
	d.Seconds = max(0, time.Since(p.loadEnd).Seconds())
	p.drained = &d
	p.rd.set(func(r *results.Run) { r.Drain = &d })
	skipped := ""
	if d.Skipped != "" {
		skipped = fmt.Sprintf(" (not waited for:%s)", d.Skipped)
	}
	if d.Drained {
		app := ""
		if d.App != "" {
			app = "; waited " + d.App
		}
		p.out.Phase("drain: mempools empty after %s%s%s", since(start), skipped, app)
		return
	}
	msg := fmt.Sprintf("mempools not empty after the drain timeout %s:%s%s", p.send.work.DrainTimeout, d.Left, skipped)
	if cut {
		msg = fmt.Sprintf("the drain was cut short after %s, the mempools not known to be empty%s", since(start), skipped)
	}
	if !cut && d.Left == "" && d.App != "" {
		msg = "app-side mempools not drained: waited " + d.App
	}
	p.out.Phase("drain: %s", msg)
	p.rd.fail(problemNotDrained, "", errors.New(msg))
}

// drainPhase is the phase drain: the drain, with the hooks that watch it
// (whileDrain, each able to cut it short) and then those told how it
// ended (drainEnd).
func (p *pipeline) drainPhase(hard context.Context) {
	ctx, cancel := context.WithCancel(hard)
	defer cancel()
	var during sync.WaitGroup
	for _, h := range p.hooks {
		if h.whileDrain != nil {
			during.Go(func() { h.whileDrain(ctx, cancel) })
		}
	}
	p.drain(ctx)
	cancel()
	during.Wait()
	for _, h := range p.hooks {
		if h.drainEnd != nil {
			h.drainEnd(*p.drained)
		}
	}
}

// appDrain waits for the app-side mempools, which no RPC counts: until
// the chain has gone validators + 1 heights past the drain's start (each
// validator's turn to propose at equal power: the app builds the block
// from what it holds), at most timeout. It says what it waited for, and
// whether the heights passed.
func (p *pipeline) appDrain(ctx context.Context, timeout time.Duration) (string, bool) {
	var names []string
	for _, n := range p.chain.nodes {
		if p.chain.appMempool[n.Name] {
			names = append(names, n.Name)
		}
	}
	want := int64(p.chain.validators + 1)
	highest := func() int64 {
		var h int64
		for _, n := range p.chain.nodes {
			h = max(h, p.heights.Latest(n.Name))
		}
		return h
	}
	from := highest()
	what := fmt.Sprintf("%d heights after height %d for the app-side mempools of %s (no RPC counts them)",
		want, from, strings.Join(names, ", "))
	deadline := time.NewTimer(max(timeout, 0))
	defer deadline.Stop()
	t := time.NewTicker(drainPoll)
	defer t.Stop()
	for highest() < from+want {
		p.out.Status("drain: waiting %s: at %d", what, highest())
		select {
		case <-ctx.Done():
			return what + ": interrupted", false
		case <-deadline.C:
			return fmt.Sprintf("%s: reached only %d by the drain timeout", what, highest()), false
		case <-t.C:
		}
	}
	return what, true
}

// downSince is the chain's down with its times since t0 (nil when the
// chain does not know).
func (p *pipeline) downSince(t0 time.Time) func(string) (bool, string) {
	if p.chain.down == nil {
		return nil
	}
	return func(name string) (bool, string) { return p.chain.down(name, t0) }
}

// drainMempools is the one drain: it polls the mempool of every node that
// is up every drainPoll until all are empty or timeout passes, telling
// status what it waits for. The result's Seconds is left to the caller
// (it knows when the load ended); Left is what the mempools held when it
// gave up, Skipped the nodes it did not wait for because they are down,
// each with why ("validator03 exited at 25.0 s, killed by signal 9").
func drainMempools(ctx context.Context, nodes []collect.Endpoint, down func(string) (bool, string), timeout time.Duration,
	status func(format string, a ...any)) results.Drain {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	t := time.NewTicker(drainPoll)
	defer t.Stop()
	for {
		var up []collect.Endpoint
		skipped := ""
		for _, n := range nodes {
			if down != nil {
				if isDown, why := down(n.Name); isDown {
					if why != "" {
						skipped += fmt.Sprintf(" %s %s;", n.Name, why)
					}
					continue
				}
			}
			up = append(up, n)
		}
		m := pollMempools(ctx, up, 2*time.Second)
		if m.left == "" {
			return results.Drain{Drained: true, Skipped: skipped}
		}
		status("drain: waiting for the mempools:%s", m.left)
		select {
		case <-ctx.Done():
			return results.Drain{Left: m.left, Skipped: skipped}
		case <-deadline.C:
			return results.Drain{Left: m.left, Skipped: skipped}
		case <-t.C:
		}
	}
}

// mempools is one poll of some nodes' mempools.
type mempools struct {
	total  int64  // transactions in the mempools that answered
	failed int    // nodes that did not answer
	left   string // what is not empty, and who did not answer: " validator01: 12 txs; …"
}

// pollMempools asks every node for num_unconfirmed_txs, each within timeout.
func pollMempools(ctx context.Context, nodes []collect.Endpoint, timeout time.Duration) mempools {
	var m mempools
	for _, n := range nodes {
		cctx, cancel := context.WithTimeout(ctx, timeout)
		k, err := rpc.New(n.Addr).UnconfirmedTxs(cctx)
		cancel()
		switch {
		case err != nil:
			m.failed++
			m.left += fmt.Sprintf(" %s: %v;", n.Name, err)
		case k > 0:
			m.total += k
			m.left += fmt.Sprintf(" %s: %d txs;", n.Name, k)
		}
	}
	return m
}

// readBack is the phase read back: it walks the chain from the run's first
// height to the last the read-back node committed (reading what the live
// reader left, when it ran).
func (p *pipeline) readBack(ctx context.Context) error {
	target := p.readBackNode()
	last, err := target.Height(ctx)
	if err != nil {
		return fmt.Errorf("read back: %w", err)
	}
	// Block last's commit time is block last+1's time: wait for it.
	if err := waitHeight(ctx, target, last+1, scaledTimeout(30*time.Second, 0, p.scale)); err != nil {
		return fmt.Errorf("read back: %w", err)
	}
	p.rd.set(func(r *results.Run) { r.LastHeight = last })
	if p.live != nil {
		return p.live.finish(ctx, p.out, target, last)
	}
	return walkChain(ctx, p.rd, p.out, target, p.id, p.send.work.TxsFile != "", p.first, last)
}

// readBackNode is the node the chain is read from: the load's target, or
// the first node that is up when the target is down.
func (p *pipeline) readBackNode() *rpc.Client {
	down := p.downSince(p.loadStart)
	if down == nil {
		return p.chain.target
	}
	for _, n := range p.chain.nodes {
		if n.Addr == p.chain.target.Addr() {
			if isDown, _ := down(n.Name); !isDown {
				return p.chain.target
			}
		}
	}
	for _, n := range p.chain.nodes {
		if isDown, why := down(n.Name); !isDown {
			p.out.Phase("read-back: from %s, the load's target is down", n.Name)
			return rpc.New(n.Addr)
		} else {
			p.logger.Debug("read-back: node down", "node", n.Name, "why", why)
		}
	}
	return p.chain.target
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
