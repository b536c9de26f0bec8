package links

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// The UDP relays: libp2p nodes (QUIC over UDP) reach each other through
// one datagram relay in front of each node, which the node advertises as
// its own address (p2p.external_address, so that libp2p's identify hands
// out the relay too). A libp2p node sends from its listening socket
// (go-libp2p's QUIC reuses it for dials), so each datagram's source
// address names the node that sent it: AddUDP registers every node's
// listener, and a datagram from any other source is dropped and counted
// (UDPStats), never relayed unemulated. Datagrams get the same one-way
// delays, jitter, bandwidths, cuts and partitions as the TCP relays. A
// session's round trip (RoundTrips) is its sender's first datagram after
// the node's first reply less its last one before it: QUIC's handshake
// (the client's Initial, the server's answer, the client's next flight),
// both one-way delays plus the two nodes' processing; a retransmitted
// Initial (the node not up yet) restarts it.

// udpQueue bounds the datagrams waiting for a direction's bandwidth: a
// full queue drops the newest, as a router's tail drop does. udpInFlight
// bounds those in their delay (8192 datagrams of QUIC's ≤ 1,452 bytes:
// about 12 MB).
const (
	udpQueue    = 1024
	udpInFlight = 8192
	udpMaxSize  = 64 << 10
	// udpSocketBuffer is the receive buffer a relay asks for, so that a
	// burst of datagrams waits in the kernel while the relay is busy.
	udpSocketBuffer = 4 << 20
	// udpPooled is the size of the pooled datagram copies: every QUIC
	// packet fits; a larger datagram gets a copy of its own.
	udpPooled = 2048
)

// udpRelay is the relay in front of one node's UDP listener.
type udpRelay struct {
	to       string
	upstream *net.UDPAddr
	conn     *net.UDPConn
	sessions map[netip.AddrPort]*udpSession // by the sender's address; guarded by Links.mu
}

// udpSession is one sender's datagrams to a relay's node: its own socket
// to the node, so that the node's replies come back to it.
type udpSession struct {
	from   string
	client netip.AddrPort
	up     *net.UDPConn
	fwd    chan []byte   // to the node, waiting for pacing
	back   chan []byte   // to the sender, waiting for pacing
	quit   chan struct{} // closed with the session
	once   sync.Once

	mu      sync.Mutex
	first   time.Time // the sender's last datagram before the node's first reply
	replied bool      // the node replied
	timed   bool      // the handshake's round trip is recorded
}

func (s *udpSession) close() {
	s.once.Do(func() {
		s.up.Close()
		close(s.quit)
	})
}

// UDPStats are what the UDP relays carried and dropped.
type UDPStats struct {
	// Bytes are the datagram bytes relayed from one node to another, by
	// ordered pair (sender, receiver).
	Bytes map[[2]string]int64
	// Unknown counts the datagrams dropped because their source is no
	// node's listener (a node sending from elsewhere would bypass the
	// emulation); Severed those dropped on a cut or partitioned link;
	// Queued those dropped on a full bandwidth queue.
	Unknown, Severed, Queued int64
}

// udpState is the UDP relays' part of Links.
type udpState struct {
	relays  []*udpRelay
	sources map[netip.AddrPort]string // each node's listener
	stats   UDPStats                  // all but Bytes
	bytes   map[[2]string]*atomic.Int64
	bufs    sync.Pool // *[udpPooled]byte: datagram copies waiting in the queues
}

// copyDatagram returns a copy of b, in a pooled buffer if it fits.
func (u *udpState) copyDatagram(b []byte) []byte {
	if len(b) > udpPooled {
		return append([]byte(nil), b...)
	}
	bp, _ := u.bufs.Get().(*[udpPooled]byte)
	if bp == nil {
		bp = new([udpPooled]byte)
	}
	return bp[:copy(bp[:], b)]
}

// release returns a copy made by copyDatagram to the pool once sent or
// dropped.
func (u *udpState) release(b []byte) {
	if cap(b) == udpPooled {
		u.bufs.Put((*[udpPooled]byte)(b[:udpPooled]))
	}
}

// AddUDP opens a datagram relay in front of node to's UDP listener
// upstream (host:port) and returns its loopback address (host:port), for
// to to advertise and every node to send to. upstream is also where to
// sends from: its datagrams to other relays are attributed to it.
func (l *Links) AddUDP(to, upstream string) (string, error) {
	up, err := net.ResolveUDPAddr("udp", upstream)
	if err != nil {
		return "", fmt.Errorf("udp relay of %s: %w", to, err)
	}
	conn, err := l.listenUDP()
	if err != nil {
		return "", fmt.Errorf("udp relay of %s: %w", to, err)
	}
	r := &udpRelay{to: to, upstream: up, conn: conn, sessions: map[netip.AddrPort]*udpSession{}}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		conn.Close()
		return "", errors.New("links closed")
	}
	if l.udp.sources == nil {
		l.udp.sources = map[netip.AddrPort]string{}
	}
	ap := up.AddrPort()
	l.udp.sources[netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())] = to
	l.udp.relays = append(l.udp.relays, r)
	l.wg.Go(func() { l.serveUDP(r) })
	return conn.LocalAddr().String(), nil
}

// listenUDP opens a loopback UDP socket on a free port that is not
// avoided.
func (l *Links) listenUDP() (*net.UDPConn, error) {
	var skipped []*net.UDPConn
	defer func() {
		for _, s := range skipped {
			s.Close()
		}
	}()
	for range 100 {
		c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			return nil, err
		}
		l.mu.Lock()
		bad := l.avoid[c.LocalAddr().(*net.UDPAddr).Port]
		l.mu.Unlock()
		if !bad {
			_ = c.SetReadBuffer(udpSocketBuffer) // best effort: the kernel caps it at net.core.rmem_max
			return c, nil
		}
		skipped = append(skipped, c)
	}
	return nil, errors.New("no free loopback UDP port outside the nodes' after 100 tries")
}

// UDPStats returns what the UDP relays carried and dropped so far.
func (l *Links) UDPStats() UDPStats {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.udp.stats
	s.Bytes = make(map[[2]string]int64, len(l.udp.bytes))
	for k, v := range l.udp.bytes {
		if n := v.Load(); n > 0 {
			s.Bytes[k] = n
		}
	}
	return s
}

// serveUDP reads the datagrams sent to r until it is closed and hands
// each to its sender's session.
func (l *Links) serveUDP(r *udpRelay) {
	buf := make([]byte, udpMaxSize)
	for {
		n, src, err := r.conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			return // closed
		}
		src = netip.AddrPortFrom(src.Addr().Unmap(), src.Port())
		s := l.session(r, src)
		if s == nil {
			continue
		}
		s.mu.Lock()
		if !s.replied {
			s.first = time.Now() // a retransmission restarts the exchange
		} else if !s.timed {
			s.timed = true
			l.mu.Lock()
			l.rtts = append(l.rtts, RoundTrip{From: s.from, To: r.to, RTT: time.Since(s.first)})
			l.mu.Unlock()
		}
		s.mu.Unlock()
		l.enqueue(s, s.fwd, buf[:n])
	}
}

// enqueue puts a copy of datagram b on q, one of s's queues, or drops it
// when q is full.
func (l *Links) enqueue(s *udpSession, q chan []byte, b []byte) {
	c := l.udp.copyDatagram(b)
	select {
	case <-s.quit:
		l.udp.release(c)
	case q <- c:
	default:
		l.udp.release(c)
		l.mu.Lock()
		l.udp.stats.Queued++
		l.mu.Unlock()
	}
}

// session returns src's session on r, opening it on its first datagram;
// nil (the datagram dropped and counted) when src is no node's listener,
// the links are closed or the link from src's node to r's is severed.
// It is the one lock a datagram to a relay takes.
func (l *Links) session(r *udpRelay, src netip.AddrPort) *udpSession {
	l.mu.Lock()
	defer l.mu.Unlock()
	s, ok := r.sessions[src]
	if !ok {
		if s = l.openSession(r, src); s == nil {
			return nil
		}
	}
	if l.severed(s.from, r.to) {
		l.udp.stats.Severed++
		return nil
	}
	return s
}

// openSession opens src's session on r; l.mu is held.
func (l *Links) openSession(r *udpRelay, src netip.AddrPort) *udpSession {
	from, ok := l.udp.sources[src]
	if !ok || l.closed {
		l.udp.stats.Unknown++
		l.logger.Debug("udp relay: datagram from no node's listener dropped", "to", r.to, "source", src)
		return nil
	}
	up, err := net.DialUDP("udp", nil, r.upstream)
	if err != nil {
		l.logger.Debug("udp relay: no socket to the node", "to", r.to, "err", err)
		return nil
	}
	_ = up.SetReadBuffer(udpSocketBuffer)
	s := &udpSession{from: from, client: src, up: up, fwd: make(chan []byte, udpQueue), back: make(chan []byte, udpQueue), quit: make(chan struct{})}
	r.sessions[src] = s
	fwd, back := l.scaled(l.delay[[2]string{from, r.to}]), l.scaled(l.delay[[2]string{r.to, from}])
	bwFwd, bwBack := l.bandwidth[[2]string{from, r.to}], l.bandwidth[[2]string{r.to, from}]
	if l.scale > 0 {
		bwFwd, bwBack = bwFwd/l.scale, bwBack/l.scale
	}
	jitter := l.jitter
	toNode := func(b []byte) { _, _ = up.Write(b) }
	toSender := func(b []byte) { _, _ = r.conn.WriteToUDPAddrPort(b, src) }
	nFwd, nBack := l.byteCounter(from, r.to), l.byteCounter(r.to, from)
	l.wg.Go(func() { l.pipe(s.fwd, s.quit, nFwd, fwd, jitter, bwFwd, toNode) })
	l.wg.Go(func() { l.pipe(s.back, s.quit, nBack, back, jitter, bwBack, toSender) })
	l.wg.Go(func() { l.replies(r, s) })
	return s
}

// byteCounter returns the count of bytes relayed from → to; l.mu is held.
func (l *Links) byteCounter(from, to string) *atomic.Int64 {
	if l.udp.bytes == nil {
		l.udp.bytes = map[[2]string]*atomic.Int64{}
	}
	n := l.udp.bytes[[2]string{from, to}]
	if n == nil {
		n = new(atomic.Int64)
		l.udp.bytes[[2]string{from, to}] = n
	}
	return n
}

// replies reads the node's datagrams to s's sender until s closes.
func (l *Links) replies(r *udpRelay, s *udpSession) {
	buf := make([]byte, udpMaxSize)
	for {
		n, err := s.up.Read(buf)
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			continue // ICMP port unreachable while the node is down: keep reading
		}
		l.mu.Lock()
		if l.severed(r.to, s.from) {
			l.udp.stats.Severed++
			l.mu.Unlock()
			continue
		}
		l.mu.Unlock()
		s.mu.Lock()
		s.replied = true
		s.mu.Unlock()
		l.enqueue(s, s.back, buf[:n])
	}
}

// pipe sends the datagrams of q with send, in order: each paced to the
// direction's bandwidth (bytes/s, 0 for none), then held for its one-way
// delay (varied by jitter, never before the one ahead of it) — the TCP
// relays' model, per datagram. It adds the bytes sent to sent and
// returns when quit is closed. With neither delay nor bandwidth it sends
// each datagram as it comes, with no second goroutine.
func (l *Links) pipe(q chan []byte, quit chan struct{}, sent *atomic.Int64, delay time.Duration, jitter, bw float64, send func([]byte)) {
	if delay <= 0 && bw <= 0 {
		for {
			select {
			case <-quit:
				return
			case b := <-q:
				sent.Add(int64(len(b)))
				send(b)
				l.udp.release(b)
			}
		}
	}
	var lim *rate.Limiter
	if bw > 0 {
		lim = rate.NewLimiter(rate.Limit(bw), bandwidthBurst)
	}
	type due struct {
		b  []byte
		at time.Time
	}
	inFlight := make(chan due, udpInFlight)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			var d due
			select {
			case <-quit:
				return
			case d = <-inFlight:
			}
			if wait := time.Until(d.at); wait > 0 {
				time.Sleep(wait)
			}
			sent.Add(int64(len(d.b)))
			send(d.b)
			l.udp.release(d.b)
		}
	}()
	defer func() { <-done }()
	var last time.Time
	for {
		var b []byte
		select {
		case <-quit:
			return
		case b = <-q:
		}
		if lim != nil {
			time.Sleep(lim.ReserveN(time.Now(), min(len(b), bandwidthBurst)).Delay())
		}
		at := time.Now().Add(jittered(delay, jitter, rand.NormFloat64))
		if at.Before(last) {
			at = last
		}
		last = at
		select {
		case <-quit:
			return
		case inFlight <- due{b, at}:
		}
	}
}

// closeUDP closes the UDP relays and their sessions; l.mu is held.
func (l *Links) closeUDP() {
	for _, r := range l.udp.relays {
		r.conn.Close()
		for _, s := range r.sessions {
			s.close()
		}
	}
}

// hasUDP reports whether node has a UDP relay; l.mu is held.
func (l *Links) hasUDP(node string) bool {
	for _, r := range l.udp.relays {
		if r.to == node {
			return true
		}
	}
	return false
}
