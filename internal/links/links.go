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
	cut    map[string]bool // nodes whose links are cut
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
	return &Links{logger: logger, cut: map[string]bool{}}
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
	l.mu.Unlock()
	done := make(chan struct{}, 2)
	cp := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		p.close() // one side ended: end both, as a peer's TCP reset would
		done <- struct{}{}
	}
	go cp(up, down)
	go cp(down, up)
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
