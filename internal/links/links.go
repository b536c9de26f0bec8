package links

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
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

	mu     sync.Mutex
	relays []*relay
	cut    map[string]bool             // nodes whose links are cut
	delay  map[[2]string]time.Duration // one-way delay of the bytes a node sends to another
	closed bool
	wg     sync.WaitGroup // accept loops and relayed connections
}

// relay is one directed peer link: from dials Addr, which forwards to
// upstream (to's p2p listener).
type relay struct {
	from, to, upstream string
	ln                 net.Listener
	conns              map[*pair]struct{} // guarded by Links.mu
}

// pair is one relayed connection: the dialling node's and the upstream's.
type pair struct {
	down, up net.Conn
	once     sync.Once
}

func (p *pair) close() {
	p.once.Do(func() {
		p.down.Close()
		p.up.Close()
	})
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

// Add opens a relay for the directed link from → to that forwards to
// upstream (host:port) and returns the loopback address (host:port) from
// must dial instead of upstream.
func (l *Links) Add(from, to, upstream string) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
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

func (l *Links) isCut(r *relay) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cut[r.from] || l.cut[r.to]
}

// serve relays one connection until either side closes it or it is cut.
func (l *Links) serve(r *relay, down net.Conn) {
	up, err := net.DialTimeout("tcp", r.upstream, dialTimeout)
	if err != nil {
		l.logger.Debug("relay: upstream not answering", "from", r.from, "to", r.to, "err", err)
		down.Close()
		return
	}
	p := &pair{down: down, up: up}
	l.mu.Lock()
	if l.closed || l.cut[r.from] || l.cut[r.to] {
		l.mu.Unlock()
		p.close()
		return
	}
	r.conns[p] = struct{}{}
	fwd, back := l.delay[[2]string{r.from, r.to}], l.delay[[2]string{r.to, r.from}]
	l.mu.Unlock()
	done := make(chan struct{}, 2)
	cp := func(dst, src net.Conn, delay time.Duration) {
		if delay > 0 {
			delayedCopy(dst, src, delay)
		} else {
			_, _ = io.Copy(dst, src)
		}
		p.close() // one side ended: end both, as a peer's TCP reset would
		done <- struct{}{}
	}
	go cp(up, down, fwd)
	go cp(down, up, back)
	<-done
	<-done
	l.mu.Lock()
	delete(r.conns, p)
	l.mu.Unlock()
}

// Cut closes every relayed connection from or to node and refuses new ones
// until Restore.
func (l *Links) Cut(node string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.has(node) {
		return fmt.Errorf("links: no relay of node %s", node)
	}
	l.cut[node] = true
	for _, r := range l.relays {
		if r.from == node || r.to == node {
			for p := range r.conns {
				p.close()
			}
		}
	}
	return nil
}

// Restore lets node's links connect again; the nodes redial their
// persistent peers themselves.
func (l *Links) Restore(node string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.has(node) {
		return fmt.Errorf("links: no relay of node %s", node)
	}
	delete(l.cut, node)
	return nil
}

// has reports whether node has a relay; l.mu is held.
func (l *Links) has(node string) bool {
	for _, r := range l.relays {
		if r.from == node || r.to == node {
			return true
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
// waiting delay per write. It returns when src ends or a write fails.
func delayedCopy(dst, src net.Conn, delay time.Duration) {
	ch := make(chan chunk, delayChunks)
	go func() {
		defer close(ch)
		for {
			b := make([]byte, 32<<10)
			n, err := src.Read(b)
			if n > 0 {
				ch <- chunk{b: b[:n], due: time.Now().Add(delay)}
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
