package load

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Group runs several generators as one load: one per client of a run with
// [[load.client]] tables, each with its own connections, rate and client
// key, their connections numbered apart (Config.ConnOffset) so that they
// share one send log and one reply log.
type Group []*Generator

// Run dials every connection of every generator first (or none: a failed
// dial aborts them all), then runs their schedules from one start, and
// returns once all have ended; errors are joined.
func (gr Group) Run(ctx context.Context) error {
	errs := make([]error, len(gr))
	var wg sync.WaitGroup
	for i, g := range gr {
		wg.Go(func() { errs[i] = g.dialAll(ctx) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for i, g := range gr {
			if errs[i] == nil {
				for _, c := range g.conns {
					c.abort()
				}
			}
		}
		return err
	}
	start := time.Now()
	for i, g := range gr {
		wg.Go(func() { errs[i] = g.run(ctx, start) })
	}
	wg.Wait()
	if ctx.Err() != nil {
		// Every generator reports the cancellation: once is enough.
		for i, err := range errs {
			if errors.Is(err, ctx.Err()) {
				errs[i] = nil
			}
		}
		return errors.Join(append(errs, ctx.Err())...)
	}
	return errors.Join(errs...)
}

// Stats returns the totals of every generator so far (see Generator.Stats).
func (gr Group) Stats() Stats {
	var s Stats
	for _, g := range gr {
		s.add(g.Stats())
	}
	return s
}

// add adds o's totals to s.
func (s *Stats) add(o Stats) {
	s.Sent += o.Sent
	s.Unsent += o.Unsent
	s.Replies += o.Replies
	s.Errors += o.Errors
	s.Late += o.Late
}
