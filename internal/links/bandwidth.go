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
// direction. Combined with a delay, bytes are paced first, then delayed
// (serialisation, then propagation).
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

// limited is a connection whose reads are paced to a rate: a relay
// paces what it reads, not what it writes, so that bytes over the rate
// wait in the sender's TCP buffers, where CometBFT's connection keeps
// its channel priorities (votes before mempool gossip), and the relay
// holds no more than the link's bandwidth-delay product in flight, as a
// real link does. Writing instead would queue up to the delay buffer
// (8 MiB) behind the limit: a minute at 1 Mbit/s, which stalls consensus.
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

// Read reads at most bandwidthBurst bytes and returns once the bucket
// held them.
func (c *limited) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b[:min(len(b), bandwidthBurst)])
	if n > 0 {
		if werr := c.lim.WaitN(context.Background(), n); werr != nil && err == nil {
			err = werr
		}
	}
	return n, err
}
