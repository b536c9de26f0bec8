package sentinel

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// paceBurst lets the forwarder catch up one second's worth of txs: the node
// holds every CheckTx while it commits a block (up to a second on a loaded
// machine), and with a shallow bucket the time of those stalls was lost —
// the bench forwarded ~60 % of the pacing rate with 20 ms of burst.
func paceBurst(r float64) int { return max(1, int(r)) }

// next returns the next item to forward: a recovered one, else by the fair
// queue; it waits until there is one or ctx ends.
func (s *Sentinel) next(ctx context.Context) (*item, bool) {
	for {
		s.mu.Lock()
		if len(s.recovered) > 0 {
			it := s.recovered[0]
			s.recovered = s.recovered[1:]
			s.mu.Unlock()
			return it, true
		}
		it, key, ok := s.queue.Pop()
		var n int
		if ok {
			n = s.queue.ClientLen(key)
		}
		s.mu.Unlock()
		if ok {
			s.m.queued.WithLabelValues(key).Set(float64(n))
			return it, true
		}
		select {
		case <-ctx.Done():
			return nil, false
		case <-s.ready:
		}
	}
}

// forward feeds the node: it takes items at the pacing rate and hands them
// to Workers senders, until ctx ends.
func (s *Sentinel) forward(ctx context.Context) error {
	work := make(chan *item)
	var wg sync.WaitGroup
	for range s.opts.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range work {
				s.send(ctx, it)
			}
		}()
	}
	defer func() { close(work); wg.Wait() }()
	for {
		it, ok := s.next(ctx)
		if !ok {
			return nil
		}
		if s.pace != nil {
			if err := s.pace.Wait(ctx); err != nil {
				s.requeue(it)
				return nil
			}
		}
		for s.gated() {
			select {
			case <-s.polled:
			case <-ctx.Done():
				s.requeue(it)
				return nil
			}
		}
		s.dispatched.Add(1)
		select {
		case work <- it:
		case <-ctx.Done():
			s.requeue(it)
			return nil
		}
	}
}

// gated reports whether the forwarder must wait for the next poll: when
// pacing, the mempool as last polled plus every tx handed to the workers
// since has reached the pacing Target. The node's mempool then never fills
// from the sentinel's own sends (Target is mempool.size less more than
// Workers): near full, CometBFT acknowledges a sync CheckTx with code 0 and
// drops the tx all the same when a concurrent one took the last place
// (CListMempool.resCbFirstTime) — a silent loss the bench saw.
func (s *Sentinel) gated() bool {
	if s.opts.MaxRate > 0 || s.opts.NoQueue {
		return false
	}
	return s.polledMempool.Load()+s.dispatched.Load()-s.dispatchedAtPoll.Load() >= s.opts.Pace.Target
}

// requeue puts back an item, at the head: one taken when the forwarder
// stopped, or one the node had no room for.
func (s *Sentinel) requeue(it *item) {
	s.mu.Lock()
	s.recovered = append([]*item{it}, s.recovered...)
	s.mu.Unlock()
	select {
	case s.ready <- struct{}{}:
	default:
	}
}

// send forwards one item and settles it: the caller of sync/commit gets the
// node's reply; an async tx the node rejects is logged with the node's
// reason. A node that cannot be reached is retried until ctx ends; a tx the
// node has no room for ("mempool is full") is queued again, at the head,
// and the pacer backs off.
func (s *Sentinel) send(ctx context.Context, it *item) {
	if it.full == 0 {
		s.m.wait.Observe(time.Since(it.at).Seconds())
	}
	method := it.method
	if method == "broadcast_tx_async" {
		// Sync, to learn the node's verdict on a tx already acknowledged.
		method = "broadcast_tx_sync"
	}
	params := `{"tx":"` + base64.StdEncoding.EncodeToString(it.tx) + `"}`
	var rep upstreamReply
	for backoff := 50 * time.Millisecond; ; backoff = min(2*backoff, 2*time.Second) {
		var err error
		rep, err = s.call(ctx, method, json.RawMessage(params))
		if err == nil {
			break
		}
		s.m.nodeErr.WithLabelValues("unreachable").Inc()
		if it.reply != nil || ctx.Err() != nil {
			if it.reply != nil {
				rep = upstreamReply{Error: mustJSON(RPCError{Code: CodeInternal, Message: "node unreachable", Data: err.Error()})}
				s.pending.Add(-1)
				s.pendingBytes.Add(-int64(len(it.tx)))
				it.reply <- rep
				return
			}
			s.requeue(it) // async: kept for the drain, the spool or the lost count
			return
		}
		s.log.Warn("node unreachable; retrying", "err", err, "in", backoff)
		select {
		case <-time.After(backoff):
		case <-ctx.Done():
		}
	}
	why := rep.nodeRejection()
	if mempoolFull(why) {
		it.full++
		s.full.Add(1)
		// Close the gate until the next poll: the node has no room now.
		s.polledMempool.Store(max(s.polledMempool.Load(), s.opts.Pace.Target))
		s.m.nodeErr.WithLabelValues("mempool_full").Inc()
		s.requeue(it)
		return
	}
	s.m.forwarded.Inc()
	if why == "" {
		s.forwarded.Add(1)
	} else {
		s.m.nodeErr.WithLabelValues("rejected").Inc()
		if it.reply == nil {
			h := sha256.Sum256(it.tx)
			s.log.Warn("node rejected an accepted async tx", "client", it.key,
				"hash", hex.EncodeToString(h[:]), "reason", why)
		}
	}
	if it.spool != 0 {
		s.spool.Forwarded(it.spool)
	}
	s.pending.Add(-1)
	s.pendingBytes.Add(-int64(len(it.tx)))
	if it.reply != nil {
		it.reply <- rep
	}
}

// call calls method on the node and returns its reply.
func (s *Sentinel) call(ctx context.Context, method string, params json.RawMessage) (upstreamReply, error) {
	body, err := s.post(ctx, Request{ID: json.RawMessage(strconv.FormatUint(s.upID.Add(1), 10)), Method: method, Params: params})
	if err != nil {
		return upstreamReply{}, err
	}
	var rep upstreamReply
	if err := json.Unmarshal(body, &rep); err != nil {
		return upstreamReply{}, fmt.Errorf("%s: unreadable reply: %w", method, err)
	}
	return rep, nil
}

// post sends one request to the node and returns the body of its reply.
func (s *Sentinel) post(ctx context.Context, r Request) ([]byte, error) {
	b, err := r.marshal()
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.node.Addr(), bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(io.LimitReader(resp.Body, 64<<20))
}
