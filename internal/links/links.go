package links

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"sync"
	"time"
)

// dialTimeout bounds a relay's dial of its upstream.
const dialTimeout = 5 * time.Second

// Links is the set of relays of one testnet. The zero value is not usable:
// call New.
type Links struct {
	logger *slog.Logger

	mu        sync.Mutex
	relays    []*relay
	cut       map[string]bool             // nodes whose links are cut
	side      map[string]int              // a partition's group of each node in it (Partition)
	delay     map[[2]string]time.Duration // one-way delay of the bytes a node sends to another
	jitter    float64                     // standard deviation of a delay, as a fraction of it
	bandwidth map[[2]string]float64       // bytes/s a node may send to another (SetBandwidth)
	rtts      []RoundTrip                 // measured at the handshakes of relayed connections
	avoid     map[int]bool                // ports reserved for the nodes (Avoid)
	diallers  func() map[int]string       // the processes that may dial an inbound relay (SetDiallers)
	scale     float64                     // time scale: delays ×scale, bandwidths ÷scale (SetTimeScale); 0 is 1
	udp       udpState                    // the UDP relays (AddUDP)
	closed    bool
	wg        sync.WaitGroup // accept loops and relayed connections
}

// relay is one directed peer link: from dials Addr, which forwards to
// upstream (to's p2p listener). An inbound relay (AddInbound) has no
// from: every node dials it, and each connection's dialler is found when
// it is accepted.
type relay struct {
	from, to, upstream string
	ln                 net.Listener
	conns              map[*pair]struct{} // guarded by Links.mu
}

// pair is one relayed connection: the dialling node's and the upstream's.
type pair struct {
	down, up net.Conn
	from     string // the dialler: the relay's from, or found (inbound)
	once     sync.Once

	mu    sync.Mutex
	reads [2][]time.Time // the first two reads from down (0) and up (1)
	timed bool           // the handshake's round trip is recorded
}

// RoundTrip is the round trip of one relayed connection's opening
// exchange, as its relay saw it: From dialled To. See [Links.RoundTrips].
type RoundTrip struct {
	From, To string
	RTT      time.Duration
}

func (p *pair) close() {
	p.once.Do(func() {
		p.down.Close()
		p.up.Close()
	})
}

// Avoid keeps the relays' listeners off these ports: the ports a testnet
// reserved for its nodes are free between their reservation and the
// nodes' start, and a relay the kernel put on one would make a node fail
// with "address already in use".
func (l *Links) Avoid(ports ...int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.avoid == nil {
		l.avoid = map[int]bool{}
	}
	for _, p := range ports {
		if p > 0 {
			l.avoid[p] = true
		}
	}
}

// listen opens a loopback listener on a free port that is not avoided
// (the avoided ones it was given are held until it has one, then freed).
func (l *Links) listen() (net.Listener, error) {
	var skipped []net.Listener
	defer func() {
		for _, s := range skipped {
			s.Close()
		}
	}()
	for range 100 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		l.mu.Lock()
		bad := l.avoid[ln.Addr().(*net.TCPAddr).Port]
		l.mu.Unlock()
		if !bad {
			return ln, nil
		}
		skipped = append(skipped, ln)
	}
	return nil, errors.New("no free loopback port outside the nodes' after 100 tries")
}

// New returns an empty set of relays; a nil logger discards.
func New(logger *slog.Logger) *Links {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Links{logger: logger, cut: map[string]bool{}, delay: map[[2]string]time.Duration{}}
}

// SetDelay makes every byte node from sends to node to arrive d later
// (a one-way delay; 0 removes it), on the relayed connections opened from
// then on, in both relays between them: from's writes on its own link to
// to, and its replies on to's link to it. Order and throughput are kept:
// each chunk read is released d after it was read.
func (l *Links) SetDelay(from, to string, d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if d <= 0 {
		delete(l.delay, [2]string{from, to})
		return
	}
	l.delay[[2]string{from, to}] = d
}

// SetJitter makes every delay vary: each chunk's delay is drawn from a
// normal distribution around it with standard deviation frac × delay
// (cut at 0), as CometBFT's e2e runner does with netem (frac 0.05); the
// bytes of a connection still arrive in order. It applies to the
// connections opened from then on; 0 (the default) turns it off.
func (l *Links) SetJitter(frac float64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.jitter = max(frac, 0)
}

// SetTimeScale runs the links at time scale k (a time-scaled testnet):
// every delay SetDelay gave is k times longer and every bandwidth
// SetBandwidth gave k times lower, on the connections opened from then on;
// the jitter, a fraction of the delay, scales with it. The round trips
// are still measured in the host's time. k = 1 (or 0) is the default.
func (l *Links) SetTimeScale(k float64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.scale = max(k, 0)
}

// scaled is delay d at the links' time scale; l.mu is held.
func (l *Links) scaled(d time.Duration) time.Duration {
	if l.scale == 0 || l.scale == 1 {
		return d
	}
	return time.Duration(float64(d) * l.scale)
}

// RoundTrips returns the round trips measured so far, one per relayed
// connection whose first two reads in each direction were seen. A p2p
// connection between CometBFT nodes opens with each side sending its
// ephemeral key at once and its signature as soon as it has the other's
// key (the SecretConnection handshake), so the relay times both legs: the
// dialled side's second read less the dialler's first, plus the dialler's
// second less the dialled side's first, is the one-way delay each way
// plus the time each node takes to sign — the link's round trip.
func (l *Links) RoundTrips() []RoundTrip {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]RoundTrip(nil), l.rtts...)
}

// read records that side (0 down, 1 up) of p was read at t, and the
// handshake's round trip once both sides were read twice.
func (l *Links) read(r *relay, p *pair, side int, t time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.timed || len(p.reads[side]) == 2 {
		return
	}
	p.reads[side] = append(p.reads[side], t)
	if len(p.reads[0]) < 2 || len(p.reads[1]) < 2 {
		return
	}
	p.timed = true
	rtt := p.reads[1][1].Sub(p.reads[0][0]) + p.reads[0][1].Sub(p.reads[1][0])
	l.mu.Lock()
	l.rtts = append(l.rtts, RoundTrip{From: p.from, To: r.to, RTT: rtt})
	l.mu.Unlock()
}

// timed is a connection whose first two reads are reported to a pair's
// handshake timing; one goroutine reads it.
type timed struct {
	net.Conn
	n    int // reads reported
	read func(t time.Time)
}

func (c *timed) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 && c.n < 2 {
		c.n++
		c.read(time.Now())
	}
	return n, err
}

// Add opens a relay for the directed link from → to that forwards to
// upstream (host:port) and returns the loopback address (host:port) from
// must dial instead of upstream.
func (l *Links) Add(from, to, upstream string) (string, error) {
	ln, err := l.listen()
	if err != nil {
		return "", fmt.Errorf("relay %s→%s: %w", from, to, err)
	}
	r := &relay{from: from, to: to, upstream: upstream, ln: ln, conns: map[*pair]struct{}{}}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		ln.Close()
		return "", errors.New("links closed")
	}
	l.relays = append(l.relays, r)
	l.wg.Go(func() { l.accept(r) })
	return ln.Addr().String(), nil
}

func (l *Links) accept(r *relay) {
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return // closed
		}
		if l.isCut(r) {
			c.Close() // refused while cut
			continue
		}
		l.wg.Go(func() { l.serve(r, c) })
	}
}

// serve relays one connection until either side closes it or it is cut.
func (l *Links) serve(r *relay, down net.Conn) {
	from := r.from
	if from == "" {
		from = l.dialler(down)
	}
	up, err := net.DialTimeout("tcp", r.upstream, dialTimeout)
	if err != nil {
		l.logger.Debug("relay: upstream not answering", "from", from, "to", r.to, "err", err)
		down.Close()
		return
	}
	p := &pair{down: down, up: up, from: from}
	l.mu.Lock()
	if l.closed || l.severed(from, r.to) {
		l.mu.Unlock()
		p.close()
		return
	}
	r.conns[p] = struct{}{}
	fwd, back := l.scaled(l.delay[[2]string{from, r.to}]), l.scaled(l.delay[[2]string{r.to, from}])
	jitter := l.jitter
	bwFwd, bwBack := l.bandwidth[[2]string{from, r.to}], l.bandwidth[[2]string{r.to, from}]
	if l.scale > 0 {
		bwFwd, bwBack = bwFwd/l.scale, bwBack/l.scale
	}
	l.mu.Unlock()
	done := make(chan struct{}, 2)
	cp := func(dst, src net.Conn, side int, delay time.Duration, bw float64) {
		src = &timed{Conn: limit(src, bw), read: func(t time.Time) { l.read(r, p, side, t) }}
		if delay > 0 {
			delayedCopy(dst, src, delay, jitter)
		} else {
			_, _ = io.Copy(dst, src)
		}
		p.close() // one side ended: end both, as a peer's TCP reset would
		done <- struct{}{}
	}
	go cp(up, down, 0, fwd, bwFwd)
	go cp(down, up, 1, back, bwBack)
	<-done
	<-done
	l.mu.Lock()
	delete(r.conns, p)
	l.mu.Unlock()
}

// AddInbound opens a relay in front of node to's listener upstream
// (host:port) that any node may dial, and returns its loopback address
// (host:port), which to advertises as its own: each connection's dialler
// is found when it is accepted (see SetDiallers), and the delays,
// bandwidths and cuts of that ordered pair apply to it. A connection
// whose dialler is not found gets no delay.
func (l *Links) AddInbound(to, upstream string) (string, error) {
	return l.Add("", to, upstream)
}

// SetDiallers tells the inbound relays which processes may dial them:
// pids returns, when a connection is accepted, each node process's pid
// and its node's name.
func (l *Links) SetDiallers(pids func() map[int]string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.diallers = pids
}

// dialler names the node that dialled down, an inbound relay's
// connection; "" when unknown.
func (l *Links) dialler(down net.Conn) string {
	l.mu.Lock()
	pids := l.diallers
	l.mu.Unlock()
	if pids == nil {
		return ""
	}
	name := dialler(down, pids())
	if name == "" {
		l.logger.Debug("relay: dialler not found", "remote", down.RemoteAddr())
	}
	return name
}

// has reports whether node has a relay, or a connection through an
// inbound one; l.mu is held.
func (l *Links) has(node string) bool {
	if l.hasUDP(node) {
		return true
	}
	for _, r := range l.relays {
		if r.from == node || r.to == node {
			return true
		}
		for p := range r.conns {
			if p.from == node {
				return true
			}
		}
	}
	return false
}

// Conns returns the number of connections relayed now.
func (l *Links) Conns() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, r := range l.relays {
		n += len(r.conns)
	}
	return n
}

// Close closes every listener and connection and waits for all the
// relays' goroutines to end.
func (l *Links) Close() error {
	l.mu.Lock()
	l.closed = true
	for _, r := range l.relays {
		r.ln.Close()
		for p := range r.conns {
			p.close()
		}
	}
	l.closeUDP()
	l.mu.Unlock()
	l.wg.Wait()
	return nil
}

// delayChunks bounds the chunks in flight on a delayed direction: with
// 32 KiB chunks, 8 MiB, so a reader ahead of a slow writer is held back by
// TCP's own flow control, as on a long link.
const delayChunks = 256

// chunk is bytes read from one side, due at the other side at due.
type chunk struct {
	b   []byte
	due time.Time
}

// delayedCopy copies src to dst, each chunk written delay after it was
// read: a reader stamps chunks as they arrive and a writer releases them
// in order, so the link keeps its throughput (a long fat pipe) instead of
// waiting delay per write. With jitter > 0 each chunk's delay is drawn
// from N(delay, (jitter·delay)²), cut at 0, and a chunk is never due
// before the one read ahead of it. It returns when src ends or a write
// fails.
func delayedCopy(dst, src net.Conn, delay time.Duration, jitter float64) {
	ch := make(chan chunk, delayChunks)
	go func() {
		defer close(ch)
		var last time.Time
		for {
			b := make([]byte, 32<<10)
			n, err := src.Read(b)
			if n > 0 {
				due := time.Now().Add(jittered(delay, jitter, rand.NormFloat64))
				if due.Before(last) {
					due = last
				}
				last = due
				ch <- chunk{b: b[:n], due: due}
			}
			if err != nil {
				return
			}
		}
	}()
	failed := false
	for c := range ch {
		if failed {
			continue // drain, so the reader can end
		}
		if wait := time.Until(c.due); wait > 0 {
			time.Sleep(wait)
		}
		if _, err := dst.Write(c.b); err != nil {
			failed = true
			src.Close() // stop the reader: the other side is gone
		}
	}
}

// jittered returns delay varied by jitter: delay + norm()·jitter·delay,
// cut at 0, where norm draws from the standard normal distribution.
func jittered(delay time.Duration, jitter float64, norm func() float64) time.Duration {
	if jitter <= 0 {
		return delay
	}
	return max(0, delay+time.Duration(norm()*jitter*float64(delay)))
}
