package sentinel

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/cometlab/cometlab/internal/rpc"
)

// wsConn is one client websocket: a reader (serveWS) that answers each
// frame, a writer goroutine that owns the socket's writes, and — once the
// client subscribes — a websocket to the node whose frames are relayed.
type wsConn struct {
	s    *Sentinel
	conn *websocket.Conn
	out  chan []byte

	mu       sync.Mutex
	sub      *websocket.Conn // to the node, for subscriptions; nil until one
	relaying sync.WaitGroup
}

var upgrader = websocket.Upgrader{
	ReadBufferSize:  64 << 10,
	WriteBufferSize: 16 << 10,
	// As CometBFT's own websocket: any origin (the sentinel guards by
	// client key, not by browser origin).
	CheckOrigin: func(*http.Request) bool { return true },
}

// replyBacklog is how many replies a websocket may have waiting for its
// writer before the reader stops reading: a few seconds of a flooding
// client's replies (~150 B each), so that a client slow to read its
// replies for a moment (a busy machine) does not stop the sentinel reading
// its requests until the client's own writes time out.
const replyBacklog = 16384

func (s *Sentinel) serveWS(w http.ResponseWriter, r *http.Request) {
	c := s.clients.get(ClientKey(&s.opts, r), time.Now())
	if !s.clients.open(c) {
		s.writeHTTP(w, false, []outcome{s.refusalOutcome(nil, s.connRefusal(c))})
		return
	}
	defer s.clients.close(c, time.Now())
	conn, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader has answered
	}
	s.m.conns.WithLabelValues(c.key).Inc()
	defer s.m.conns.WithLabelValues(c.key).Dec()
	conn.SetReadLimit(s.opts.MaxBodyBytes)
	wc := &wsConn{s: s, conn: conn, out: make(chan []byte, replyBacklog)}
	writerDone := make(chan struct{})
	go wc.write(writerDone)
	ctx, cancel := context.WithCancel(r.Context())
	var inflight sync.WaitGroup
	defer func() {
		cancel()
		wc.closeSub()
		inflight.Wait()
		wc.relaying.Wait()
		close(wc.out)
		<-writerDone
		conn.Close()
	}()
	// Stop reading when the server shuts down (Shutdown does not close
	// hijacked connections).
	stop := context.AfterFunc(s.stopCtx(), func() {
		_ = conn.WriteControl(websocket.CloseMessage,
			websocket.FormatCloseMessage(websocket.CloseGoingAway, "sentinel stopping"), time.Now().Add(time.Second))
		conn.Close()
	})
	defer stop()
	for {
		_, msg, err := conn.ReadMessage()
		if err != nil {
			return
		}
		reqs, batch, err := ParseRequests(msg, s.opts.MaxBatch)
		if err != nil {
			wc.send(s.parseFailure(err).body)
			continue
		}
		if !batch && reqs[0].Method == "broadcast_tx_async" && !s.opts.NoQueue {
			// The hot path: answered at once, in order (without the
			// queue, an async tx waits for the node: not inline).
			if o := s.handle(ctx, c, reqs[0], wc); o.body != nil {
				wc.send(o.body)
			}
			continue
		}
		inflight.Go(func() {
			outs := s.handleAll(ctx, c, reqs, wc)
			if !batch {
				if outs[0].body != nil {
					wc.send(outs[0].body)
				}
				return
			}
			b := []byte{'['}
			n := 0
			for _, o := range outs {
				if o.body != nil {
					if n > 0 {
						b = append(b, ',')
					}
					b = append(b, o.body...)
					n++
				}
			}
			if n > 0 {
				wc.send(append(b, ']'))
			}
		})
	}
}

// stopCtx is done once the sentinel is stopping.
func (s *Sentinel) stopCtx() context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped == nil {
		var cancel context.CancelFunc
		s.stopped, cancel = context.WithCancel(context.Background())
		s.stop = cancel
	}
	return s.stopped
}

// send queues one frame for the writer.
func (wc *wsConn) send(b []byte) { wc.out <- b }

// write writes the queued frames until out is closed; after a write error
// it discards them, so that senders never block.
func (wc *wsConn) write(done chan struct{}) {
	defer close(done)
	broken := false
	for b := range wc.out {
		if broken {
			continue
		}
		_ = wc.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
		if err := wc.conn.WriteMessage(websocket.TextMessage, b); err != nil {
			broken = true
			wc.conn.Close()
		}
	}
}

// subscribe sends r to the node on the connection's subscription socket,
// dialled on first use; the node's replies and events are relayed.
func (wc *wsConn) subscribe(ctx context.Context, r Request) error {
	wc.mu.Lock()
	defer wc.mu.Unlock()
	if wc.sub == nil {
		d := websocket.Dialer{HandshakeTimeout: 5 * time.Second}
		sub, _, err := d.DialContext(ctx, rpc.WSAddr(wc.s.opts.Upstream), nil)
		if err != nil {
			return err
		}
		wc.sub = sub
		wc.relaying.Go(func() {
			for {
				_, msg, err := sub.ReadMessage()
				if err != nil {
					return
				}
				wc.send(msg)
			}
		})
	}
	b, err := r.marshal()
	if err != nil {
		return err
	}
	_ = wc.sub.SetWriteDeadline(time.Now().Add(5 * time.Second))
	return wc.sub.WriteMessage(websocket.TextMessage, b)
}

func (wc *wsConn) closeSub() {
	wc.mu.Lock()
	defer wc.mu.Unlock()
	if wc.sub != nil {
		wc.sub.Close()
	}
}
