package load

import (
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
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

// Polled reads. A reader blocked on the socket wakes the process for every
// reply, and at moderate rates (a send every few ms) that wake-up costs more
// than the send itself. So while the sender sleeps between sends, replies
// are left in the socket and read when the sender next wakes: the reader
// tries a non-blocking read, and when nothing is there it waits for the
// sender's kick instead of for the socket. Replies are then read at most one
// send interval after they arrive; pollMaxInterval bounds that interval.
const pollMaxInterval = 10 * time.Millisecond

// pollLowat is the receive low-water mark in polled mode: if this many bytes
// of replies pile up (the sender has not woken for long), the reader is
// woken by the socket after all.
const pollLowat = 32 << 10

// batchConn is the TCP connection beneath a websocket.Conn. Until batching
// is turned on (after the handshake) it writes through. Then data frames are
// buffered until Flush; a control frame (close, ping, pong, written by the
// reader goroutine or at close) flushes what is buffered and goes out at
// once. Each Write is one whole frame: gorilla/websocket writes a client
// frame, header and masked payload, with a single Write when the message fits
// its write buffer.
//
// In polled mode (see pollMaxInterval) Read does not block on the socket but
// on kicks.
type batchConn struct {
	net.Conn
	mu       sync.Mutex
	batching bool
	buf      []byte
	err      error     // first write error; every later write fails with it
	deadline time.Time // last write deadline set on Conn

	raw       syscall.RawConn // for non-blocking reads; nil if Conn has none
	polled    atomic.Bool
	kick      chan struct{} // capacity 1: "replies may be waiting"
	closed    chan struct{}
	closeOnce sync.Once
}

func newBatchConn(c net.Conn) *batchConn {
	b := &batchConn{Conn: c, kick: make(chan struct{}, 1), closed: make(chan struct{})}
	if sc, ok := c.(syscall.Conn); ok {
		if raw, err := sc.SyscallConn(); err == nil {
			b.raw = raw
		}
	}
	return b
}

// setPolled switches polled reads on or off (off always works; on only when
// the connection allows non-blocking reads) and wakes the reader to notice.
func (b *batchConn) setPolled(on bool) {
	on = on && b.raw != nil
	if on != b.polled.Load() && b.raw != nil {
		// The socket is still in the runtime's poller, which would wake
		// the process whenever a reply arrives. A high receive low-water
		// mark keeps it from reporting the socket readable while the
		// replies are read by polling; non-blocking reads still return
		// whatever is there.
		lowat := 1
		if on {
			lowat = pollLowat
		}
		b.raw.Control(func(fd uintptr) {
			syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVLOWAT, lowat)
		})
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
		if n, err, ok := b.tryRead(p); ok {
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

// tryRead reads without blocking; ok is false when nothing was there.
func (b *batchConn) tryRead(p []byte) (n int, err error, ok bool) {
	var rerr error
	cerr := b.raw.Read(func(fd uintptr) bool {
		for {
			r, _, errno := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
			n = int(r)
			if errno == 0 {
				rerr = nil
			} else {
				rerr = errno
			}
			if errno != syscall.EINTR {
				return true // done, whatever happened: never wait here
			}
		}
	})
	switch {
	case cerr != nil:
		return 0, cerr, true
	case errors.Is(rerr, syscall.EAGAIN):
		return 0, nil, false
	case rerr != nil:
		return 0, rerr, true
	case n == 0 && len(p) > 0:
		return 0, io.EOF, true
	}
	return n, nil, true
}

// Close closes the connection and wakes a polled reader.
func (b *batchConn) Close() error {
	b.closeOnce.Do(func() { close(b.closed) })
	return b.Conn.Close()
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
	err := b.write(b.buf)
	b.buf = b.buf[:0]
	if err != nil {
		b.err = err
	}
	return err
}

// write writes p to the socket with raw system calls where it can: a write
// to a non-blocking socket does not block, and a plain system call taking
// tens of µs (as on a VM) would have the runtime hand the P to another
// thread each time.
func (b *batchConn) write(p []byte) error {
	if b.raw == nil {
		_, err := b.Conn.Write(p)
		return err
	}
	var werr error
	err := b.raw.Write(func(fd uintptr) bool {
		for len(p) > 0 {
			r, _, errno := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
			switch errno {
			case 0:
				p = p[r:]
			case syscall.EINTR:
			case syscall.EAGAIN:
				return false // wait until writable
			default:
				werr = errno
				return true
			}
		}
		return true
	})
	if err != nil {
		return err
	}
	return werr
}
