package sentinel

import (
	"context"
	"fmt"
	"math"
	"os"
	"time"

	"golang.org/x/time/rate"
)

// poll reads the node's mempool size and height every PollInterval, feeds
// them to the pacer and sets the forwarding rate, until ctx ends. A failed
// read is logged and skipped (the rate holds).
func (s *Sentinel) poll(ctx context.Context) error {
	p := NewPacer(s.opts.Pace)
	s.m.rate.Set(p.Rate())
	var trace *os.File
	if s.opts.Trace != "" {
		var err error
		if trace, err = os.Create(s.opts.Trace); err != nil {
			return fmt.Errorf("pacing trace: %w", err)
		}
		defer trace.Close()
		fmt.Fprintln(trace, "at_ns,mempool,height,forwarded,full,rate")
	}
	t := time.NewTicker(s.opts.PollInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		before := s.dispatched.Load()
		o, err := s.observe(ctx)
		if err != nil {
			if ctx.Err() == nil {
				s.log.Warn("pacing: cannot read the node", "err", err)
			}
			continue
		}
		s.polledMempool.Store(o.Mempool)
		s.dispatchedAtPoll.Store(before)
		select {
		case s.polled <- struct{}{}:
		default:
		}
		r := p.Observe(o)
		s.commit.Store(math.Float64bits(p.CommitRate()))
		s.pace.SetLimit(rate.Limit(r))
		s.pace.SetBurst(paceBurst(r))
		s.m.rate.Set(r)
		s.m.mempool.Set(float64(o.Mempool))
		if trace != nil {
			if _, err := fmt.Fprintf(trace, "%d,%d,%d,%d,%d,%g\n", o.At.Nanoseconds(), o.Mempool, o.Height, o.Forwarded, o.Full, r); err != nil {
				return fmt.Errorf("pacing trace: %w", err)
			}
		}
	}
}

// observe reads one observation from the node.
func (s *Sentinel) observe(ctx context.Context) (Observation, error) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.PollInterval*4)
	defer cancel()
	fwd, full := s.forwarded.Load(), s.full.Load()
	at := time.Since(s.started)
	n, err := s.node.UnconfirmedTxs(ctx)
	if err != nil {
		return Observation{}, err
	}
	h, err := s.node.Height(ctx)
	if err != nil {
		return Observation{}, err
	}
	return Observation{At: at, Mempool: n, Height: h, Forwarded: fwd, Full: full}, nil
}
