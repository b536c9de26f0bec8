package load

import (
	"net"
	"sync"
	"time"
)

// Write coalescing. A write system call per request costs more than
// everything else a send does (on loopback it also runs the receiver's TCP
// stack), so at high rates the sender hands requests to the websocket as
// usual but they are buffered beneath it and written together. The sender
// flushes before it sleeps, when batchBytes are buffered, and when the
// oldest buffered request has waited batchDelay, so no request is held
// longer than that; at low rates every request is written at once.
const (
	batchBytes = 64 << 10
	batchDelay = 100 * time.Microsecond
)

// batchConn is the TCP connection beneath a websocket.Conn. Until batching
// is turned on (after the handshake) it writes through. Then data frames are
// buffered until Flush; a control frame (close, ping, pong, written by the
// reader goroutine or at close) flushes what is buffered and goes out at
// once. Each Write is one whole frame: gorilla/websocket writes a client
// frame, header and masked payload, with a single Write when the message fits
// its write buffer.
type batchConn struct {
	net.Conn
	mu       sync.Mutex
	batching bool
	buf      []byte
	err      error     // first write error; every later write fails with it
	deadline time.Time // last write deadline set on Conn
}

// startBatching turns buffering on.
func (b *batchConn) startBatching() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.batching = true
	b.buf = make([]byte, 0, 2*batchBytes)
}

// Write buffers a data frame, or writes p at once (after anything buffered)
// when it is a control frame or batching is off.
func (b *batchConn) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.batching {
		return b.Conn.Write(p)
	}
	if b.err != nil {
		return 0, b.err
	}
	control := len(p) > 0 && p[0]&0x08 != 0 // opcodes 8–15
	if control || len(b.buf)+len(p) > cap(b.buf) {
		if err := b.flushLocked(); err != nil {
			return 0, err
		}
	}
	if control || len(p) > cap(b.buf) {
		if _, err := b.Conn.Write(p); err != nil {
			b.err = err
			return 0, err
		}
		return len(p), nil
	}
	b.buf = append(b.buf, p...)
	return len(p), nil
}

// SetWriteDeadline passes a new deadline to the connection; gorilla sets it
// before every write, and an unchanged one need not cost a timer update.
func (b *batchConn) SetWriteDeadline(t time.Time) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if t.Equal(b.deadline) {
		return nil
	}
	b.deadline = t
	return b.Conn.SetWriteDeadline(t)
}

// Buffered returns the number of bytes waiting for Flush.
func (b *batchConn) Buffered() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.buf)
}

// Flush writes what is buffered.
func (b *batchConn) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.flushLocked()
}

func (b *batchConn) flushLocked() error {
	if b.err != nil {
		return b.err
	}
	if len(b.buf) == 0 {
		return nil
	}
	_, err := b.Conn.Write(b.buf)
	b.buf = b.buf[:0]
	if err != nil {
		b.err = err
	}
	return err
}
