package load

import (
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// The cost of a send is mostly system calls and wake-ups, not Go code:
// context switches, and writes to a loopback socket (each runs the
// receiver's TCP stack and wakes it). batchConn, the TCP connection beneath
// each websocket, cuts both; bench/loadgen.sh measures what is left.
//
// Write coalescing. The sender hands each request to the websocket as usual,
// but the frames are buffered here and written together. The sender flushes
// before it sleeps, when batchBytes are buffered, and when the oldest
// buffered request has waited batchDelay, so no request is held longer than
// that, and at rates where the sender sleeps between sends every request is
// written at once.
const (
	batchBytes = 64 << 10
	batchDelay = 100 * time.Microsecond
)

// Polled reads. A reader blocked on the socket wakes the process for every
// reply. Instead, when the sender wakes at least every pollMaxInterval (even
// pacing at ≥ 100 tx/s per connection), the reader does non-blocking reads
// and, when nothing is there, waits for the sender's kick (on every wake and
// every flush) rather than for the socket; a receive low-water mark of
// pollLowat bytes keeps the runtime's poller from being woken by each reply
// meanwhile. Replies are then read at most one send interval after they
// arrive, which delays results.Reply.At by as much. Polling stops when the
// schedule ends, before waiting for the last replies. Should a write find
// the socket full (the node stops reading, perhaps because it cannot write
// its replies), the reader is kicked before the sender waits.
const (
	pollMaxInterval = 10 * time.Millisecond
	pollLowat       = 32 << 10
)

// batchConn wraps the TCP connection of one websocket. Until batching is
// turned on (after the handshake) it writes through. Then data frames are
// buffered until Flush; a control frame (close, ping, pong: written by the
// reader goroutine or at close) flushes what is buffered and goes out at
// once. This relies on each Write being one whole frame, which is what
// gorilla/websocket does for a client message that fits its write buffer.
//
// Where the platform allows (Linux), writes and polled reads are raw system
// calls on the non-blocking socket: they never block, and a plain system
// call that takes tens of µs would have the runtime hand the processor to
// another thread each time.
type batchConn struct {
	net.Conn
	raw syscall.RawConn // nil: no raw system calls, no polled reads

	mu       sync.Mutex
	batching bool
	buf      []byte
	err      error     // first write error; every later write fails with it
	deadline time.Time // last write deadline set on Conn

	polled    atomic.Bool
	kick      chan struct{} // capacity 1: "replies may be waiting"
	closed    chan struct{}
	closeOnce sync.Once
}

func newBatchConn(c net.Conn) *batchConn {
	return &batchConn{Conn: c, raw: rawConn(c), kick: make(chan struct{}, 1), closed: make(chan struct{})}
}

// startBatching turns write buffering on.
func (b *batchConn) startBatching() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.batching = true
	b.buf = make([]byte, 0, 2*batchBytes)
}

// setPolled switches polled reads on (where possible) or off, and wakes the
// reader to notice.
func (b *batchConn) setPolled(on bool) {
	on = on && b.raw != nil
	if on != b.polled.Load() {
		lowat := 1
		if on {
			lowat = pollLowat
		}
		setRecvLowat(b.raw, lowat)
	}
	b.polled.Store(on)
	b.kickReader()
}

// kickReader tells a polled reader to look for replies. It never blocks.
func (b *batchConn) kickReader() {
	select {
	case b.kick <- struct{}{}:
	default:
	}
}

// Read reads from the socket: blocking, or in polled mode without blocking
// on it, waiting for kicks while nothing is there.
func (b *batchConn) Read(p []byte) (int, error) {
	for b.polled.Load() {
		if n, err, ok := readNonblock(b.raw, p); ok {
			return n, err
		}
		select {
		case <-b.kick:
		case <-b.closed:
			return b.Conn.Read(p) // fails: closed
		}
	}
	return b.Conn.Read(p)
}

// Close closes the connection and wakes a polled reader.
func (b *batchConn) Close() error {
	b.closeOnce.Do(func() { close(b.closed) })
	return b.Conn.Close()
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
		if err := b.write(p); err != nil {
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
	err := b.write(b.buf)
	b.buf = b.buf[:0]
	return err
}

// write writes all of p, keeping the first error.
func (b *batchConn) write(p []byte) error {
	var err error
	if b.raw != nil {
		err = writeRaw(b.raw, p, b.kickReader)
	} else {
		_, err = b.Conn.Write(p)
	}
	if err != nil {
		b.err = err
	}
	return err
}
