package sentinel

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"golang.org/x/sync/errgroup"
	"golang.org/x/time/rate"

	"github.com/cometlab/cometlab/internal/rpc"
)

// Sentinel is the gateway. Make one with New and start it with Run.
type Sentinel struct {
	opts     Options
	log      *slog.Logger
	m        *metrics
	gatherer prometheus.Gatherer
	node     *rpc.Client
	hc       *http.Client
	clients  clients

	ln, mln net.Listener // the client and metrics listeners, bound by New

	mu        sync.Mutex
	queue     *FairQueue[*item]
	recovered []*item // from the spool, forwarded before the queue
	stopping  bool
	stopped   context.Context // done once stopping (see stopCtx)
	stop      context.CancelFunc
	ready     chan struct{} // signalled when an item is queued

	pace      *rate.Limiter // forwarding rate; nil forwards as fast as the workers go
	forwarded atomic.Int64  // txs the node took into its mempool (for the pacer)
	commit    atomic.Uint64 // the pacer's commit rate (tx/s, float64 bits), for drainTime
	full      atomic.Int64  // "mempool is full" replies, txs queued again (for the pacer)
	// The gate (see gated): the mempool as last polled, the txs handed to
	// the workers so far and as of that poll, and a signal at each poll.
	polledMempool, dispatched, dispatchedAtPoll atomic.Int64
	polled                                      chan struct{}
	// pending and pendingBytes count the admitted broadcasts the node has
	// not answered yet: queued, recovered from the spool, or in flight.
	pending, pendingBytes atomic.Int64
	upID                  atomic.Uint64
	spool                 *spool
	started               time.Time
}

// item is one admitted broadcast waiting to be forwarded.
type item struct {
	key    string
	method string // as the client called it
	tx     []byte
	at     time.Time
	spool  uint64             // its spool record id; 0 when not spooled
	reply  chan upstreamReply // sync/commit: the node's reply; nil for async
	full   int                // times the node answered "mempool is full"
}

// New checks opts, binds the listeners (so Addr is known before Run) and
// opens the spool. A nil logger discards; a nil registerer registers
// nowhere (and the metrics endpoint, if any, serves a private registry).
func New(opts Options, logger *slog.Logger, reg prometheus.Registerer) (*Sentinel, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	var g prometheus.Gatherer = prometheus.DefaultGatherer
	if reg == nil {
		r := prometheus.NewRegistry()
		reg, g = r, r
	} else if gg, ok := reg.(prometheus.Gatherer); ok {
		g = gg
	}
	s := &Sentinel{
		opts: opts, log: logger, m: newMetrics(reg), gatherer: g,
		node: rpc.New(opts.Upstream),
		hc: &http.Client{Transport: &http.Transport{
			MaxIdleConnsPerHost: opts.Workers + 16, DisableCompression: true,
		}},
		ready: make(chan struct{}, 1), polled: make(chan struct{}, 1),
	}
	s.clients = clients{opts: &s.opts, m: map[string]*client{}}
	weight := func(key string) int { return s.opts.limits(key).Weight }
	s.queue = NewFairQueue[*item](opts.ClientQueue, opts.Buffer, opts.Quantum, weight)
	switch {
	case opts.NoQueue:
	case opts.MaxRate > 0:
		s.pace = rate.NewLimiter(rate.Limit(opts.MaxRate), paceBurst(opts.MaxRate))
	default:
		s.pace = rate.NewLimiter(rate.Limit(opts.Pace.Initial), paceBurst(opts.Pace.Initial))
	}
	if opts.Spool != "" {
		sp, live, err := openSpool(opts.Spool)
		if err != nil {
			return nil, err
		}
		s.spool = sp
		for _, r := range live {
			s.recovered = append(s.recovered, &item{key: r.key, method: "broadcast_tx_async", tx: r.tx, spool: r.id, at: time.Now()})
			s.pending.Add(1)
			s.pendingBytes.Add(int64(len(r.tx)))
		}
		if len(live) > 0 {
			logger.Info("spool: recovered accepted transactions", "count", len(live), "dir", opts.Spool)
		}
	}
	var err error
	if s.ln, err = net.Listen("tcp", opts.Listen); err != nil {
		s.closeSpool()
		return nil, fmt.Errorf("listen: %w", err)
	}
	if opts.MetricsListen != "" {
		if s.mln, err = net.Listen("tcp", opts.MetricsListen); err != nil {
			s.ln.Close()
			s.closeSpool()
			return nil, fmt.Errorf("metrics listen: %w", err)
		}
	}
	return s, nil
}

func (s *Sentinel) closeSpool() {
	if s.spool != nil {
		if err := s.spool.Close(); err != nil {
			s.log.Error("spool close", "err", err)
		}
	}
}

// Addr returns the address clients connect to.
func (s *Sentinel) Addr() string { return s.ln.Addr().String() }

// MetricsAddr returns the metrics endpoint's address, or "".
func (s *Sentinel) MetricsAddr() string {
	if s.mln == nil {
		return ""
	}
	return s.mln.Addr().String()
}

// Run serves until ctx ends, then stops accepting, answers the sync and
// commit callers still waiting, forwards what it queued for up to
// DrainTimeout (without a spool: what is left is lost, logged and counted;
// with one, it stays on disk for the next start) and returns.
func (s *Sentinel) Run(ctx context.Context) error {
	s.started = time.Now()
	srv := &http.Server{Handler: s.Handler(), MaxHeaderBytes: s.opts.MaxHeaderBytes,
		ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelDebug)}
	fctx, fstop := context.WithCancel(context.WithoutCancel(ctx))
	defer fstop()
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		if err := srv.Serve(s.ln); !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	})
	if s.mln != nil {
		msrv := &http.Server{Handler: promhttp.HandlerFor(s.gatherer, promhttp.HandlerOpts{}), ReadHeaderTimeout: 10 * time.Second}
		g.Go(func() error {
			if err := msrv.Serve(s.mln); !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		})
		g.Go(func() error { <-gctx.Done(); return msrv.Close() })
	}
	forwarders := make(chan error, 1)
	go func() { forwarders <- s.forward(fctx) }()
	if s.pace != nil && s.opts.MaxRate == 0 {
		g.Go(func() error { return s.poll(gctx) })
	} else if s.opts.MaxRate > 0 {
		s.m.rate.Set(s.opts.MaxRate)
	}
	g.Go(func() error { s.forgetIdle(gctx); return nil })
	g.Go(func() error {
		<-gctx.Done()
		s.log.Info("sentinel stopping")
		s.mu.Lock()
		s.stopping = true
		s.mu.Unlock()
		s.stopCtx()
		s.stop()
		sctx, cancel := context.WithTimeout(context.Background(), s.opts.DrainTimeout)
		defer cancel()
		err := srv.Shutdown(sctx)
		if err != nil {
			srv.Close()
		}
		return nil
	})
	s.log.Info("sentinel listening", "addr", s.Addr(), "upstream", s.opts.Upstream, "metrics", s.MetricsAddr())
	err := g.Wait()
	// Drain: the forwarder goes on until the queue is empty or the
	// timeout, then stops.
	s.drain()
	fstop()
	err = errors.Join(err, <-forwarders)
	s.account()
	s.closeSpool()
	return err
}

// drain waits for the queue to empty, at most DrainTimeout.
func (s *Sentinel) drain() {
	deadline := time.Now().Add(s.opts.DrainTimeout)
	for time.Now().Before(deadline) {
		s.mu.Lock()
		n := s.queue.Len() + len(s.recovered)
		s.mu.Unlock()
		if n == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// account settles what the stopped forwarder left: sync and commit callers
// get an error; async txs stay in the spool, or are lost and counted.
func (s *Sentinel) account() {
	s.mu.Lock()
	defer s.mu.Unlock()
	left := 0
	settle := func(it *item) {
		s.pending.Add(-1)
		s.pendingBytes.Add(-int64(len(it.tx)))
		if it.reply != nil {
			it.reply <- upstreamReply{Error: mustJSON(RPCError{Code: CodeShutdown, Message: "sentinel stopping", Data: "not forwarded"})}
			return
		}
		left++
	}
	for {
		it, _, ok := s.queue.Pop()
		if !ok {
			break
		}
		settle(it)
	}
	for _, it := range s.recovered {
		settle(it)
	}
	s.recovered = nil
	if left > 0 {
		if s.spool != nil {
			s.log.Info("stopped with accepted transactions in the spool", "count", left)
		} else {
			s.m.lost.Add(float64(left))
			s.log.Error("stopped with accepted transactions never forwarded: lost (no --spool)", "count", left)
		}
	}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// forgetIdle drops clients idle for ten minutes.
func (s *Sentinel) forgetIdle(ctx context.Context) {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			for _, k := range s.clients.forget(now.Add(-10 * time.Minute)) {
				s.m.queued.DeleteLabelValues(k)
				s.m.conns.DeleteLabelValues(k)
			}
		}
	}
}

// refusal is an explicit no: the HTTP status, the JSON-RPC error, the
// metric reason and how long to wait before retrying (0: no Retry-After).
type refusal struct {
	status int
	err    RPCError
	reason string
	retry  time.Duration
}

func (r *refusal) Error() string { return r.err.Message }

// admit takes one broadcast from c, whose bucket has let it pass: it
// refuses it (queue, buffer, stopping), or queues it — after writing it to
// the spool, if any, for an async one — and returns the item.
func (s *Sentinel) admit(c *client, method string, tx []byte) (*item, *refusal) {
	now := time.Now()
	it := &item{key: c.key, method: method, tx: tx, at: now}
	if method != "broadcast_tx_async" {
		it.reply = make(chan upstreamReply, 1)
	}
	s.mu.Lock()
	err := s.queue.Check(c.key)
	n, total, stopping := s.queue.ClientLen(c.key), s.queue.Len(), s.stopping
	s.mu.Unlock()
	if ref := s.queueRefusal(err, stopping, n, total); ref != nil {
		return nil, ref
	}
	if s.spool != nil && it.reply == nil {
		id, err := s.spool.Accept(c.key, tx)
		if err != nil {
			s.log.Error("spool write failed", "err", err)
			return nil, s.refuse(ReasonShutdown, CodeInternal, http.StatusServiceUnavailable, time.Second, "spool write failed: "+err.Error())
		}
		it.spool = id
	}
	s.mu.Lock()
	if s.stopping {
		err = errStopping
	} else {
		err = s.queue.Push(c.key, it, len(tx))
	}
	n, total = s.queue.ClientLen(c.key), s.queue.Len()
	s.mu.Unlock()
	if err != nil {
		if it.spool != 0 {
			s.spool.Forwarded(it.spool) // never acknowledged: cancel it
		}
		return nil, s.queueRefusal(err, errors.Is(err, errStopping), n, total)
	}
	s.pending.Add(1)
	s.pendingBytes.Add(int64(len(tx)))
	s.m.queued.WithLabelValues(c.key).Set(float64(n))
	s.m.admitted.WithLabelValues(method).Inc()
	select {
	case s.ready <- struct{}{}:
	default:
	}
	return it, nil
}

var errStopping = errors.New("sentinel stopping")

// queueRefusal turns a queue error into a refusal (nil for no error).
func (s *Sentinel) queueRefusal(err error, stopping bool, n, total int) *refusal {
	switch {
	case stopping:
		return s.refuse(ReasonShutdown, CodeShutdown, http.StatusServiceUnavailable, time.Second, "sentinel stopping")
	case errors.Is(err, ErrClientQueueFull):
		return s.refuse(ReasonClientQueue, CodeClientQueue, http.StatusTooManyRequests, s.drainTime(n),
			fmt.Sprintf("client queue full (%d txs)", s.opts.ClientQueue))
	case errors.Is(err, ErrGlobalBufferFull):
		return s.refuse(ReasonGlobalBuffer, CodeGlobalBuffer, http.StatusTooManyRequests, s.drainTime(total),
			fmt.Sprintf("global buffer full (%d txs)", s.opts.Buffer))
	}
	return nil
}

// drainTime estimates how long n queued txs take to forward.
func (s *Sentinel) drainTime(n int) time.Duration {
	r := s.opts.MaxRate
	if s.pace != nil {
		r = float64(s.pace.Limit())
	}
	if c := math.Float64frombits(s.commit.Load()); s.opts.MaxRate == 0 && s.opts.Pace.Window && c > 0 {
		r = c // the window's rate is its cap: the node drains at its commit rate
	}
	if r <= 0 {
		return time.Second
	}
	return time.Duration(float64(n) / r * float64(time.Second))
}

func (s *Sentinel) refuse(reason string, code, status int, retry time.Duration, msg string) *refusal {
	s.m.refused.WithLabelValues(reason).Inc()
	r := &refusal{status: status, reason: reason, retry: retry, err: RPCError{Code: code, Message: msg}}
	if retry > 0 {
		r.err.Data = "retry after " + strconv.Itoa(retryAfter(retry)) + "s"
	}
	return r
}

// asyncAccepted is the reply to an admitted broadcast_tx_async: what the
// node itself answers (code 0 and the tx's hash, the SHA-256 of the tx).
func asyncAccepted(tx []byte) json.RawMessage {
	h := sha256.Sum256(tx)
	return json.RawMessage(`{"code":0,"data":"","log":"","codespace":"","hash":"` +
		strings.ToUpper(hex.EncodeToString(h[:])) + `"}`)
}
