package load

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/cometlab/cometlab/internal/payload"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/shape"
)

// Pacing names accepted in Config.Pacing.
const (
	PacingEven  = "even"  // see Even
	PacingBurst = "burst" // see Burst
)

// DefaultLateThreshold is the LateThreshold used when Config leaves it zero.
const DefaultLateThreshold = 10 * time.Millisecond

// Timings of the generator's life cycle.
const (
	// DrainTimeout is how long Run waits for outstanding replies after the
	// last send of a completed schedule, and again after each wait in
	// which more replies came, up to MaxReplyWait.
	DrainTimeout = 5 * time.Second
	// MaxReplyWait bounds the wait for outstanding replies while they keep
	// coming.
	MaxReplyWait = 60 * time.Second
	// CancelDrainTimeout is how long it waits after its context is cancelled.
	CancelDrainTimeout = 2 * time.Second
	// WriteTimeout bounds how long a write may block (a node that stops
	// reading); the deadline is refreshed lazily, so a blocked write fails
	// after between half of it and all of it. The link is then redialled.
	// It is long enough to ride out a busy peer's pause of a few seconds:
	// breaking the link loses every request the peer had not read yet.
	WriteTimeout = 10 * time.Second
	// RedialInterval is the least time between two dials of one connection.
	RedialInterval = time.Second
	// DropGrace is how long after the end of its schedule (Config.Duration
	// plus the connection's phase) a sender that is still behind goes on
	// catching up; the sends it has not made by then are logged as dropped
	// (impossible). LateThreshold is used instead when it is longer.
	DropGrace = time.Second
)

// The reasons logged in results.Sent.Err.
const (
	errNotConnected = "not connected: "
	errWrite        = "write: "
	errDropped      = "dropped: generator behind schedule when the load window closed"
	errCancelled    = "cancelled: load stopped behind schedule"
	errSource       = "tx source: "
)

// Config is the resolved load of one run.
type Config struct {
	Endpoint      string        // websocket RPC URL, ws://host:port/websocket
	Connections   int           // websocket connections, ≥ 1
	Rate          float64       // tx/s per connection, > 0
	Size          int           // tx size in bytes (see payload.NewEncoder)
	Duration      time.Duration // length of the schedule, > 0
	Pacing        string        // PacingEven (default when empty) or PacingBurst
	LateThreshold time.Duration // a send made later than this after it was due counts as late; 0 means DefaultLateThreshold
	RunID         [16]byte      // run id, written into every payload
	// Source makes the transactions; nil means loadtime payloads of Size
	// bytes (see Payloads).
	Source TxSource
	// Shape is the load's shape; its Rate and Duration are taken from Rate
	// and Duration above. The zero value is the constant rate, paced as
	// Pacing says; any other shape is paced even (see Interleaved).
	Shape shape.Spec
	// Header is sent on every websocket handshake, e.g. the X-Client-Key
	// a gateway such as cometlab's sentinel tells clients apart by.
	Header http.Header
	// ConnOffset numbers the connections from it: connection k logs and
	// encodes ConnOffset+k, so that several generators (one per client,
	// see Group) share one send log without their rows colliding. Only
	// with loadtime payloads (Source nil).
	ConnOffset int
	// Lanes are the mempool lanes the transactions ask for, each picked
	// by its weight (payload.LanePicker; v2.0's e2e app reads the lane in
	// CheckTx); none for the mempool's default lane. Only with loadtime
	// payloads (Source nil), of a size that holds the longest lane id.
	Lanes []payload.LaneWeight
	// Sync sends with broadcast_tx_sync, whose reply is CheckTx's verdict
	// (its code and log: a refusal is rejected, with its reason); the
	// default, broadcast_tx_async, answers before CheckTx's result. For an
	// app in the node's process both wait for CheckTx in CometBFT's
	// handler (the local ABCI client is synchronous), so Sync changes no
	// timing there.
	Sync bool
}

// Validate returns every problem with c at once, each naming its field.
func (c Config) Validate() error {
	var errs []error
	if u, err := url.Parse(c.Endpoint); err != nil {
		errs = append(errs, fmt.Errorf("endpoint %q: %w", c.Endpoint, err))
	} else if u.Scheme != "ws" && u.Scheme != "wss" || u.Host == "" {
		errs = append(errs, fmt.Errorf("endpoint %q: want ws://host:port/websocket", c.Endpoint))
	}
	if c.Connections < 1 {
		errs = append(errs, fmt.Errorf("connections %d: want at least 1", c.Connections))
	}
	if !(c.Rate > 0) || math.IsInf(c.Rate, 1) {
		errs = append(errs, fmt.Errorf("rate %g: want a positive number of tx/s", c.Rate))
	}
	if c.Duration <= 0 {
		errs = append(errs, fmt.Errorf("duration %s: want more than 0", c.Duration))
	}
	if c.ConnOffset < 0 || c.ConnOffset > 0 && c.Source != nil {
		errs = append(errs, fmt.Errorf("conn offset %d: want 0, or more with loadtime payloads only", c.ConnOffset))
	}
	switch c.Pacing {
	case "", PacingEven, PacingBurst:
	default:
		errs = append(errs, fmt.Errorf("pacing %q: want %q or %q", c.Pacing, PacingEven, PacingBurst))
	}
	if !c.Shape.IsConstant() {
		if c.Pacing == PacingBurst {
			errs = append(errs, fmt.Errorf("pacing %q: only for the constant shape, not %q", c.Pacing, c.Shape.Kind))
		}
		if err := c.shape().Validate(); err != nil {
			errs = append(errs, fmt.Errorf("shape: %w", err))
		}
	}
	if c.LateThreshold < 0 {
		errs = append(errs, fmt.Errorf("late threshold %s: want 0 or more", c.LateThreshold))
	}
	if len(c.Lanes) > 0 {
		errs = append(errs, c.validateLanes()...)
	}
	if c.Size < 0 {
		errs = append(errs, fmt.Errorf("size %d: want a positive number of bytes", c.Size))
	} else if c.Size < payload.MinSize() || c.Size > payload.MaxSize || c.Size%2 != 0 {
		errs = append(errs, fmt.Errorf("size %d: want an even number of bytes in [%d, %d]", c.Size, payload.MinSize(), payload.MaxSize))
	}
	return errors.Join(errs...)
}

// validateLanes returns the problems of c.Lanes: a lane id empty or
// longer than payload.MaxLaneLen, a size that does not hold the longest,
// no weight, or the user's own transactions (which carry no lane).
func (c Config) validateLanes() []error {
	var errs []error
	if c.Source != nil {
		errs = append(errs, errors.New("lanes: only with loadtime payloads, not the user's own transactions"))
	}
	longest, sum := 0, uint64(0)
	for _, l := range c.Lanes {
		if l.ID == "" || len(l.ID) > payload.MaxLaneLen {
			errs = append(errs, fmt.Errorf("lane %q: want an id of 1 to %d bytes", l.ID, payload.MaxLaneLen))
		}
		longest, sum = max(longest, len(l.ID)), sum+l.Weight
	}
	if sum == 0 {
		errs = append(errs, errors.New("lanes: every weight is 0"))
	}
	if least := payload.MinSizeWithLane(longest); c.Source == nil && c.Size < least {
		errs = append(errs, fmt.Errorf("size %d: a payload with a lane id of %d bytes needs at least %d", c.Size, longest, least))
	}
	return errs
}

// shape returns the Shape with the Config's rate and duration.
func (c Config) shape() shape.Spec {
	s := c.Shape
	s.Rate, s.Duration = c.Rate, c.Duration
	return s
}

// Schedule returns the combined schedule of a shaped load (nil for the
// constant shape, whose connections each follow Even or Burst).
func (c Config) Schedule() (shape.Schedule, error) {
	if c.Shape.IsConstant() {
		return nil, nil
	}
	return shape.New(c.shape(), c.Connections)
}

// Stats are the generator's running totals. Every scheduled send ends up in
// exactly one of Sent and Unsent.
type Stats struct {
	Sent    uint64 // sends written to a websocket
	Unsent  uint64 // sends that failed or could not be made (not connected, write error, dropped, cancelled)
	Replies uint64 // JSON-RPC replies read
	Errors  uint64 // replies that were not a result with code 0
	Late    uint64 // sends made more than LateThreshold after they were due
}

// Generator drives open-loop load into one websocket endpoint and logs every
// send and reply. Run it once.
type Generator struct {
	cfg     Config
	sent    *results.Writer // nil: not logged
	replies *results.Writer // nil: not logged
	log     *slog.Logger
	dialer  websocket.Dialer
	conns   []*conn

	// hashed: sent.csv records each transaction's SHA-256 (see
	// TxSource.Hashed).
	hashed bool

	// pollReplies: the sender sleeps between sends often enough to read
	// the replies when it wakes (see pollMaxInterval).
	pollReplies bool

	failOnce sync.Once
	failErr  error // first error writing a log; set before cancel
	cancel   context.CancelCauseFunc
}

// New returns a generator for cfg that appends a results.Sent row for every
// scheduled send to sent and a results.Reply row for every reply to replies;
// either may be nil to log nothing. A nil logger discards.
func New(cfg Config, sent, replies *results.Writer, logger *slog.Logger) (*Generator, error) {
	if cfg.Pacing == "" {
		cfg.Pacing = PacingEven
	}
	if cfg.LateThreshold == 0 {
		cfg.LateThreshold = DefaultLateThreshold
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("load config: %w", err)
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	g := &Generator{
		cfg: cfg, sent: sent, replies: replies, log: logger,
		dialer: websocket.Dialer{
			HandshakeTimeout: 5 * time.Second,
			ReadBufferSize:   64 << 10,
			// Room for one whole request, so each is written as a single
			// frame in one write.
			WriteBufferSize: requestLen(cfg.Size) + 64,
			NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				var d net.Dialer
				nc, err := d.DialContext(ctx, network, addr)
				if err != nil {
					return nil, err
				}
				return newBatchConn(nc), nil
			},
		},
	}
	sched, err := cfg.Schedule()
	if err != nil {
		return nil, fmt.Errorf("load config: %w", err)
	}
	// A shape's rate varies (and may stop): its replies are awaited, not
	// polled.
	g.pollReplies = sched == nil && cfg.Pacing == PacingEven && time.Duration(1e9/cfg.Rate) <= pollMaxInterval
	c := float64(cfg.Connections)
	src := cfg.Source
	if src == nil {
		src = Payloads(cfg.Connections, cfg.Rate, cfg.Size, cfg.RunID, cfg.Lanes...)
	}
	g.hashed = src.Hashed()
	for k := range cfg.Connections {
		gen, err := src.Conn(cfg.ConnOffset+k, cfg.Connections)
		if err != nil {
			return nil, fmt.Errorf("load config: %w", err)
		}
		var (
			p     Pacer
			phase time.Duration
		)
		switch {
		case sched != nil:
			p = Interleaved(sched, cfg.Connections, k)
		case cfg.Pacing == PacingBurst:
			p = Burst(cfg.Rate, cfg.Duration)
		default:
			// Connection k starts k/(c·rate) in, so the connections
			// interleave into one even stream.
			phase = time.Duration(float64(k) * 1e9 / (c * cfg.Rate))
			p = Even(cfg.Rate, cfg.Duration, phase)
		}
		g.conns = append(g.conns, newConn(g, cfg.ConnOffset+k, p, phase, gen))
	}
	return g, nil
}

// Stats returns the totals so far. It is safe to call while Run runs; a
// snapshot never shows more replies than sends, and after Run the totals
// are exact.
func (g *Generator) Stats() Stats {
	var s Stats
	for _, c := range g.conns {
		// Replies first: a send is counted before its bytes are written,
		// so every reply read by now has its send counted below.
		s.Errors += c.nErrors.Load()
		s.Replies += c.nReplies.Load()
		s.Sent += c.nSent.Load()
		s.Unsent += c.nUnsent.Load()
		s.Late += c.nLate.Load()
	}
	return s
}

// Run dials every connection, runs the schedule, waits for outstanding
// replies (DrainTimeout, or CancelDrainTimeout once ctx is cancelled) and
// closes the connections. It returns once every goroutine it started has
// ended.
//
// A failed dial before the start is an error naming the endpoint. Once the
// load has started, connection failures are logged as unsent sends and the
// connection is redialled (at most once per RedialInterval). If ctx is
// cancelled, scheduling stops and Run returns ctx.Err(); what was sent is
// logged all the same. Run returns an error when a log cannot be written, and
// stops the load then.
func (g *Generator) Run(ctx context.Context) error {
	if err := g.dialAll(ctx); err != nil {
		return err
	}
	return g.run(ctx, time.Now())
}

// run runs the schedule from start on the connections dialled so far; a
// connection without a link dials at its first send.
func (g *Generator) run(ctx context.Context, start time.Time) error {
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	g.cancel = cancel

	g.log.Info("load started", "endpoint", g.cfg.Endpoint, "connections", g.cfg.Connections,
		"rate", g.cfg.Rate, "size", g.cfg.Size, "duration", g.cfg.Duration, "pacing", g.cfg.Pacing)
	var wg sync.WaitGroup
	for _, c := range g.conns {
		wg.Go(func() { c.run(runCtx, start) })
	}
	wg.Wait()
	st := g.Stats()
	g.log.Info("load ended", "sent", st.Sent, "unsent", st.Unsent, "late", st.Late,
		"replies", st.Replies, "errors", st.Errors, "elapsed", time.Since(start).Round(time.Millisecond))
	if g.failErr != nil {
		return g.failErr
	}
	return ctx.Err()
}

// dialAll opens every connection, or none.
func (g *Generator) dialAll(ctx context.Context) error {
	errs := make([]error, len(g.conns))
	var wg sync.WaitGroup
	for i, c := range g.conns {
		wg.Go(func() {
			ws, err := g.dial(ctx, 5*time.Second)
			if err != nil {
				errs[i] = err
				return
			}
			c.attach(ws)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, c := range g.conns {
			c.abort()
		}
		return err
	}
	return nil
}

// dial opens one websocket connection to the endpoint.
func (g *Generator) dial(ctx context.Context, timeout time.Duration) (*websocket.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ws, resp, err := g.dialer.DialContext(ctx, g.cfg.Endpoint, g.cfg.Header)
	if err != nil {
		if resp != nil {
			err = fmt.Errorf("%w (HTTP %s)", err, resp.Status)
			resp.Body.Close()
		}
		return nil, fmt.Errorf("dial %s: %w", g.cfg.Endpoint, err)
	}
	ws.EnableWriteCompression(false)
	return ws, nil
}

// fail records the first error writing a log and stops the load.
func (g *Generator) fail(file string, err error) {
	g.failOnce.Do(func() {
		g.failErr = fmt.Errorf("write %s: %w", file, err)
		g.log.Error("cannot log, stopping the load", "err", g.failErr)
		g.cancel(g.failErr)
	})
}

// writeSent logs one send.
func (g *Generator) writeSent(s *results.Sent) {
	if g.sent == nil {
		return
	}
	if err := g.sent.Write(s); err != nil {
		g.fail(results.SentFile, err)
	}
}

// writeReply logs one reply.
func (g *Generator) writeReply(r *results.Reply) {
	if g.replies == nil {
		return
	}
	if err := g.replies.Write(r); err != nil {
		g.fail(results.RepliesFile, err)
	}
}

// counter is an atomic counter alone on its cache line, so the sender's and
// the reader's counters do not slow each other down.
type counter struct {
	atomic.Uint64
	_ [56]byte
}
