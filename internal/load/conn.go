package load

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/cometlab/cometlab/internal/results"
)

// earlyWindow is how close to its due time a send is made at once instead
// of sleeping until it is due: at high rates a timer per send would cost
// more than the send. A send is thus never more than this early, and the
// average rate stays exact.
const earlyWindow = 50 * time.Microsecond

// maxReply is the largest reply read; a broadcast reply is about 150 bytes.
const maxReply = 1 << 20

// conn is one connection of the generator: a sender goroutine (run) that
// follows the pacer and owns the current link, and a reader goroutine per
// link that logs replies.
type conn struct {
	g     *Generator
	k     int
	pacer Pacer
	gen   TxGen
	// window is the offset from the start after which sends still not made
	// are dropped: the end of the schedule plus the grace.
	window time.Duration

	// Owned by the sender.
	link         *link     // nil while disconnected
	lastDial     time.Time // when the last dial started
	downWhy      string    // why the last link broke or the last dial failed
	deadline     time.Time // write deadline of link
	msg          []byte    // request buffer, reused
	req          requestBuilder
	row          results.Sent  // row buffer, reused
	pending      []pendingSend // handed to the link, not yet flushed
	pendingSince time.Time     // when the oldest pending send was handed over

	readers sync.WaitGroup

	nSent, nUnsent, nLate, nReplies, nErrors counter
}

// pendingSend is a send handed to the websocket whose bytes wait in the
// link's batchConn; it is logged once they are written (or fail to be).
type pendingSend struct {
	row  results.Sent
	late bool
}

// link is one websocket connection of a conn.
type link struct {
	ws        *websocket.Conn
	bc        *batchConn    // beneath ws; nil when not batching (wss)
	done      chan struct{} // closed when its reader has ended
	drained   chan struct{} // closed once closing and every send has its reply
	drainOnce sync.Once
	down      atomic.Pointer[string] // why the link broke; nil while it works
	closing   atomic.Bool            // the sender is done and waits for replies
	sent      counter                // requests written (by the sender)
	replied   counter                // replies read (by the reader)
}

func newConn(g *Generator, k int, p Pacer, phase time.Duration, gen TxGen) *conn {
	return &conn{
		g: g, k: k, pacer: p, gen: gen,
		window: g.cfg.Duration + phase + max(DropGrace, g.cfg.LateThreshold),
		msg:    make([]byte, 0, requestLen(g.cfg.Size)),
		req:    requestBuilder{sync: g.cfg.Sync},
		// Sized for a full batch, which is flushed before it grows past.
		pending: make([]pendingSend, 0, batchBytes/g.cfg.Size+2),
	}
}

// fail marks the link broken for reason, unless it already is.
func (l *link) fail(reason string) bool {
	return l.down.CompareAndSwap(nil, &reason)
}

// attach makes ws the conn's link and starts its reader.
func (c *conn) attach(ws *websocket.Conn) {
	ws.SetReadLimit(maxReply)
	l := &link{ws: ws, done: make(chan struct{}), drained: make(chan struct{})}
	if bc, ok := ws.NetConn().(*batchConn); ok {
		bc.startBatching()
		bc.setPolled(c.g.pollReplies)
		l.bc = bc
	}
	c.link = l
	c.lastDial = time.Now()
	c.deadline = time.Time{}
	c.readers.Add(1)
	go c.read(l)
}

// abort closes the link without ceremony and waits for its reader.
func (c *conn) abort() {
	if c.link != nil {
		c.link.fail("aborted")
		c.link.ws.Close()
		c.link = nil
	}
	c.readers.Wait()
}

// run is the sender: it follows the pacer until the schedule ends or ctx is
// cancelled, then drains and closes the link.
func (c *conn) run(ctx context.Context, start time.Time) {
	startNs := start.UnixNano()
	done := ctx.Done()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()

	cancelled := false
	for n := uint64(0); ; n++ {
		due, ok := c.pacer.Due(n)
		if !ok {
			break
		}
		now := time.Now()
		if wait := due - now.Sub(start); wait > earlyWindow {
			c.flush(nil)
			timer.Reset(wait)
			select {
			case <-timer.C:
				now = time.Now()
				c.kickReader()
			case <-done:
				cancelled = true
			}
		} else {
			select {
			case <-done:
				cancelled = true
			default:
			}
		}
		if cancelled {
			c.flush(nil)
			// The sends already due were never made: log them.
			c.unsentFrom(n, startNs, time.Since(start), errCancelled)
			break
		}
		if now.Sub(start) > c.window {
			c.flush(nil)
			c.unsentFrom(n, startNs, -1, errDropped)
			break
		}
		c.send(ctx, n, start, startNs, due, now)
	}
	c.flush(nil)
	c.finish(cancelled)
}

// send makes send n, due at start+due, at now (or after a redial), and logs
// it.
func (c *conn) send(ctx context.Context, n uint64, start time.Time, startNs int64, due time.Duration, now time.Time) {
	intended := startNs + int64(due)
	l := c.link
	if l != nil {
		if why := l.down.Load(); why != nil {
			c.flush(nil)
			c.downWhy = *why
			l.ws.Close()
			c.link, l = nil, nil
		}
	}
	if l == nil && now.Sub(c.lastDial) >= RedialInterval {
		c.lastDial = now
		ws, err := c.g.dial(ctx, RedialInterval)
		if err != nil {
			c.downWhy = err.Error()
			c.g.log.Warn("redial failed", "conn", c.k, "err", err)
		} else {
			c.g.log.Info("redialled", "conn", c.k)
			c.attach(ws)
			l = c.link
			now = time.Now()
		}
	}
	if l == nil {
		c.unsent(n, intended, 0, errNotConnected+c.downWhy)
		return
	}
	// The write deadline slides: refreshing it costs a timer update, so it
	// is pushed out only when less than half of WriteTimeout is left.
	if c.deadline.Sub(now) < WriteTimeout/2 {
		c.deadline = now.Add(WriteTimeout)
		l.ws.SetWriteDeadline(c.deadline)
	}
	tx, err := c.gen.Tx(n, now)
	if err != nil {
		c.unsent(n, intended, 0, errSource+err.Error())
		return
	}
	row := results.Sent{Conn: c.k, Seq: n, Intended: intended, Actual: now.UnixNano(), Size: len(tx)}
	if c.g.hashed {
		row.Hash = TxHash(tx)
	}
	c.msg = c.req.append(c.msg[:0], n, tx)
	err = l.ws.WriteMessage(websocket.TextMessage, c.msg)
	if len(c.pending) == 0 {
		c.pendingSince = now
	}
	c.pending = append(c.pending, pendingSend{row: row, late: now.Sub(start)-due > c.g.cfg.LateThreshold})
	if err != nil || l.bc == nil || l.bc.Buffered() >= batchBytes || now.Sub(c.pendingSince) >= batchDelay {
		c.flush(err)
		c.kickReader()
	}
}

// TxHash returns a transaction's name on the chain: its SHA-256 in
// upper-case hex, as CometBFT's RPC prints tx hashes.
func TxHash(tx []byte) string {
	sum := sha256.Sum256(tx)
	return strings.ToUpper(hex.EncodeToString(sum[:]))
}

// kickReader has a polled reader read the replies that came in meanwhile.
func (c *conn) kickReader() {
	if c.link != nil && c.link.bc != nil {
		c.link.bc.kickReader()
	}
}

// flush writes the requests buffered on the link and logs their sends: as
// made, or as failed with the write error (writeErr, when the websocket
// already returned one).
func (c *conn) flush(writeErr error) {
	if len(c.pending) == 0 {
		return
	}
	l, n := c.link, uint64(len(c.pending))
	err := writeErr
	if err == nil {
		// Counted before the write, so that a reply never shows up in
		// Stats before its send (taken back below if the write fails).
		c.nSent.Add(n)
		if l.bc != nil {
			err = l.bc.Flush()
		}
		if err != nil {
			c.nSent.Add(-n)
		}
	}
	why := ""
	if err != nil {
		why = errWrite + err.Error()
		if l.fail(why) {
			c.g.log.Warn("connection lost", "conn", c.k, "err", why)
		}
		c.nUnsent.Add(n)
	} else {
		l.sent.Add(n)
	}
	for i := range c.pending {
		p := &c.pending[i]
		if err != nil {
			p.row.Err = why
		} else if p.late {
			c.nLate.Add(1)
		}
		c.g.writeSent(&p.row)
	}
	c.pending = c.pending[:0]
}

// unsent logs send n as not made.
func (c *conn) unsent(n uint64, intended, actual int64, why string) {
	c.nUnsent.Add(1)
	c.row = results.Sent{Conn: c.k, Seq: n, Intended: intended, Actual: actual, Size: c.g.cfg.Size, Err: why}
	c.g.writeSent(&c.row)
}

// unsentFrom logs sends n, n+1, … as not made, up to those due by until
// (all of them when until < 0).
func (c *conn) unsentFrom(n uint64, startNs int64, until time.Duration, why string) {
	count := 0
	for ; ; n++ {
		due, ok := c.pacer.Due(n)
		if !ok || (until >= 0 && due > until) {
			break
		}
		c.unsent(n, startNs+int64(due), 0, why)
		count++
	}
	if count > 0 {
		c.g.log.Warn("sends not made", "conn", c.k, "count", count, "why", why)
	}
}

// finish waits for the replies outstanding on the link, closes it with a
// close handshake and waits for every reader of the conn.
func (c *conn) finish(cancelled bool) {
	defer c.readers.Wait()
	l := c.link
	if l == nil {
		return
	}
	c.link = nil
	timeout := DrainTimeout
	if cancelled {
		timeout = CancelDrainTimeout
	}
	l.closing.Store(true)
	if l.bc != nil {
		l.bc.setPolled(false) // from now on, replies are awaited
	}
	if l.replied.Load() < l.sent.Load() {
		// Wait while replies keep coming (a gateway in front of the node
		// may answer seconds late under a flood), at most MaxReplyWait.
		deadline := time.Now().Add(MaxReplyWait)
		last := l.replied.Load()
		t := time.NewTimer(timeout)
	wait:
		for {
			select {
			case <-l.drained:
				break wait
			case <-l.done:
				break wait
			case <-t.C:
				if now := l.replied.Load(); now > last && !cancelled && time.Now().Before(deadline) {
					last = now
					t.Reset(timeout)
					continue
				}
				c.g.log.Warn("replies outstanding at close", "conn", c.k,
					"outstanding", l.sent.Load()-l.replied.Load(), "waited", timeout)
				break wait
			}
		}
		t.Stop()
	}
	l.fail("closed")
	msg := websocket.FormatCloseMessage(websocket.CloseNormalClosure, "")
	if err := l.ws.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second)); err == nil {
		// Wait for the peer's close frame, which ends the reader.
		t := time.NewTimer(time.Second)
		select {
		case <-l.done:
		case <-t.C:
		}
		t.Stop()
	}
	l.ws.Close()
}

// read is the reader of link l: it logs every reply until the link breaks or
// is closed.
func (c *conn) read(l *link) {
	defer c.readers.Done()
	defer close(l.done)
	var (
		buf = make([]byte, 0, 512)
		row results.Reply
		err error
	)
	for {
		var r io.Reader
		if _, r, err = l.ws.NextReader(); err == nil {
			buf, err = readAll(buf[:0], r)
		}
		if err != nil {
			if l.fail("read: "+err.Error()) && !websocket.IsCloseError(err, websocket.CloseNormalClosure) {
				c.g.log.Warn("connection lost", "conn", c.k, "err", err)
			}
			return
		}
		row = results.Reply{Conn: c.k, At: time.Now().UnixNano()}
		rep, perr := parseReply(buf)
		switch {
		case perr != nil:
			row.Message = "unreadable reply: " + perr.Error()
		case !rep.hasID:
			row.Message = "reply without a numeric id: " + rep.messageText()
		default:
			row.Seq, row.OK, row.Code = rep.id, rep.ok(), rep.code
			row.Message, row.Hash = rep.messageText(), rep.hash.text()
		}
		if !row.OK {
			c.nErrors.Add(1)
		}
		c.nReplies.Add(1)
		c.g.writeReply(&row)
		if l.replied.Add(1) >= l.sent.Load() && l.closing.Load() {
			l.drainOnce.Do(func() { close(l.drained) })
		}
	}
}

// readAll appends everything r holds to buf.
func readAll(buf []byte, r io.Reader) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}
