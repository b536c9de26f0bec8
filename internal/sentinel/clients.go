package sentinel

import (
	"math"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// client is one client key's state.
type client struct {
	key    string
	limits Limits
	bucket *rate.Limiter // broadcasts; nil: no limit
	reads  *rate.Limiter // read-only calls; nil: no limit
	conns  int           // guarded by clients.mu
	used   time.Time     // guarded by clients.mu
}

// clients holds the client table.
type clients struct {
	mu   sync.Mutex
	opts *Options
	m    map[string]*client
}

func newLimiter(r float64, burst int) *rate.Limiter {
	if r <= 0 {
		return nil
	}
	return rate.NewLimiter(rate.Limit(r), burst)
}

// get returns key's client, made on first use.
func (cs *clients) get(key string, now time.Time) *client {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c := cs.m[key]
	if c == nil {
		l := cs.opts.limits(key)
		c = &client{key: key, limits: l, bucket: newLimiter(l.Rate, l.Burst), reads: newLimiter(l.ReadRate, l.ReadBurst)}
		cs.m[key] = c
	}
	c.used = now
	return c
}

// open counts one more connection of c, or reports that it has its most.
func (cs *clients) open(c *client) bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if c.limits.MaxConns > 0 && c.conns >= c.limits.MaxConns {
		return false
	}
	c.conns++
	return true
}

func (cs *clients) close(c *client, now time.Time) {
	cs.mu.Lock()
	c.conns--
	c.used = now
	cs.mu.Unlock()
}

// forget drops the clients idle since before cutoff (their buckets are
// full again by then), and returns their keys.
func (cs *clients) forget(cutoff time.Time) []string {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	var gone []string
	for k, c := range cs.m {
		if c.conns == 0 && c.used.Before(cutoff) {
			delete(cs.m, k)
			gone = append(gone, k)
		}
	}
	return gone
}

// allow takes one token from l, or returns how long until one is there.
func allow(l *rate.Limiter, now time.Time) (bool, time.Duration) {
	if l == nil {
		return true, 0
	}
	r := l.ReserveN(now, 1)
	if !r.OK() {
		return false, time.Second
	}
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// retryAfter renders a wait as Retry-After's whole seconds, at least 1.
func retryAfter(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}

// ClientKey returns the client key of r under o: the ClientHeader's value,
// the APIKeyParam's value, or the client's IP (see Options.TrustedProxies).
func ClientKey(o *Options, r *http.Request) string {
	if o.ClientHeader != "" {
		if v := r.Header.Get(o.ClientHeader); v != "" {
			return v
		}
	}
	if o.APIKeyParam != "" {
		if v := r.URL.Query().Get(o.APIKeyParam); v != "" {
			return v
		}
	}
	return clientIP(r.RemoteAddr, r.Header.Values("X-Forwarded-For"), o.TrustedProxies)
}

// clientIP returns the remote address's IP, or, when that is a trusted
// proxy, the rightmost X-Forwarded-For address that is not.
func clientIP(remote string, xff []string, trusted []netip.Prefix) string {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !isTrusted(ip, trusted) {
		return host
	}
	var hops []string
	for _, h := range xff {
		hops = append(hops, strings.Split(h, ",")...)
	}
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			return host // a malformed hop: trust nothing beyond the proxy
		}
		a = a.Unmap()
		if !isTrusted(a, trusted) {
			return a.String()
		}
	}
	return host
}

func isTrusted(ip netip.Addr, trusted []netip.Prefix) bool {
	ip = ip.Unmap()
	for _, p := range trusted {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}
