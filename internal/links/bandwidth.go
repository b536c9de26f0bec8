package links

import (
	"context"
	"net"

	"golang.org/x/time/rate"
)

// bandwidthBurst is how many bytes a limited direction may send at once:
// one chunk of the copy (32 KiB), so a link starts at most that far ahead
// of its rate.
const bandwidthBurst = 32 << 10

// SetBandwidth limits the bytes node from sends to node to, on each
// relayed connection opened from then on, to bytesPerSec (a token bucket
// of bandwidthBurst bytes; 0 removes the limit). CometBFT keeps one
// connection per pair of peers, so it is the link's capacity in that
// direction. Combined with a delay, bytes are delayed first, then paced.
func (l *Links) SetBandwidth(from, to string, bytesPerSec float64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.bandwidth == nil {
		l.bandwidth = map[[2]string]float64{}
	}
	if !(bytesPerSec > 0) {
		delete(l.bandwidth, [2]string{from, to})
		return
	}
	l.bandwidth[[2]string{from, to}] = bytesPerSec
}

// limited is a connection whose writes are paced to a rate.
type limited struct {
	net.Conn
	lim *rate.Limiter
}

// limit returns c paced to bytesPerSec; c itself when it is 0.
func limit(c net.Conn, bytesPerSec float64) net.Conn {
	if bytesPerSec <= 0 {
		return c
	}
	return &limited{Conn: c, lim: rate.NewLimiter(rate.Limit(bytesPerSec), bandwidthBurst)}
}

// Write writes b in pieces of at most bandwidthBurst bytes, each once the
// bucket holds its bytes.
func (c *limited) Write(b []byte) (int, error) {
	n := 0
	for len(b) > 0 {
		k := min(len(b), bandwidthBurst)
		if err := c.lim.WaitN(context.Background(), k); err != nil {
			return n, err
		}
		w, err := c.Conn.Write(b[:k])
		n += w
		if err != nil {
			return n, err
		}
		b = b[k:]
	}
	return n, nil
}
