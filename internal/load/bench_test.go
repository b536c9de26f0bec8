package load

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/payload"
	"github.com/cometlab/cometlab/internal/results"
)

// memConn is an in-memory server end for one websocket client: it answers
// the handshake, then discards (and counts) whatever the client writes, and
// its reads block until it is closed.
type memConn struct {
	net.Conn // nil: only the methods below are used
	mu       sync.Mutex
	req      bytes.Buffer
	resp     *bytes.Reader
	written  int64
	closed   chan struct{}
	once     sync.Once
}

func newMemConn() *memConn { return &memConn{closed: make(chan struct{})} }

func (m *memConn) Write(p []byte) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.resp == nil {
		m.req.Write(p)
		if req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(m.req.Bytes()))); err == nil {
			h := sha1.Sum([]byte(req.Header.Get("Sec-Websocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
			m.resp = bytes.NewReader(fmt.Appendf(nil, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"+
				"Connection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n", base64.StdEncoding.EncodeToString(h[:])))
		}
		return len(p), nil
	}
	m.written += int64(len(p))
	return len(p), nil
}

func (m *memConn) Read(p []byte) (int, error) {
	m.mu.Lock()
	r := m.resp
	m.mu.Unlock()
	if r != nil && r.Len() > 0 {
		return r.Read(p)
	}
	<-m.closed
	return 0, io.EOF
}

func (m *memConn) Close() error                       { m.once.Do(func() { close(m.closed) }); return nil }
func (m *memConn) LocalAddr() net.Addr                { return &net.TCPAddr{} }
func (m *memConn) RemoteAddr() net.Addr               { return &net.TCPAddr{} }
func (m *memConn) SetDeadline(time.Time) error        { return nil }
func (m *memConn) SetReadDeadline(time.Time) error    { return nil }
func (m *memConn) SetWriteDeadline(t time.Time) error { return nil }

// benchConn returns connection 0 of a generator whose websocket writes into
// a memConn, with the sent log in a file when logged is set.
func benchConn(b *testing.B, size int, logged bool) (*conn, *memConn) {
	var sent *results.Writer
	if logged {
		var err error
		if sent, err = results.Create(filepath.Join(b.TempDir(), results.SentFile), results.SentHeader); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { sent.Close() })
	}
	g, err := New(Config{Endpoint: "ws://mem/websocket", Connections: 1, Rate: 1e9, Size: size, Duration: time.Hour},
		sent, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	mc := newMemConn()
	g.dialer.NetDialContext = func(context.Context, string, string) (net.Conn, error) {
		return newBatchConn(mc), nil
	}
	ws, err := g.dial(context.Background(), time.Second)
	if err != nil {
		b.Fatal(err)
	}
	c := g.conns[0]
	c.attach(ws)
	b.Cleanup(func() { c.abort() })
	return c, mc
}

// BenchmarkSend is the sender's whole cost per tx apart from the system
// call: clock, payload, request, websocket frame (masking), batching and the
// sent.csv row. One op is one 1024-byte tx.
func BenchmarkSend(b *testing.B) {
	for _, logged := range []bool{false, true} {
		b.Run(fmt.Sprintf("logged=%v", logged), func(b *testing.B) {
			c, mc := benchConn(b, 1024, logged)
			ctx := context.Background()
			start := time.Now()
			startNs := start.UnixNano()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c.send(ctx, uint64(i), start, startNs, 0, time.Now())
			}
			c.flush(nil)
			b.StopTimer()
			if got := c.nSent.Load(); got != uint64(b.N) {
				b.Fatalf("%d sent, want %d", got, b.N)
			}
			b.SetBytes(mc.written / int64(b.N))
		})
	}
}

// BenchmarkBuildRequest is payload encoding plus the JSON-RPC request.
func BenchmarkBuildRequest(b *testing.B) {
	enc, err := payload.NewEncoder(1, 100000, 1024, [16]byte{1})
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, requestLen(1024))
	var rb requestBuilder
	now := time.Now()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf = rb.append(buf[:0], uint64(i), enc.Encode(0, uint64(i), now.Add(time.Duration(i)*7919)))
	}
	b.SetBytes(int64(len(buf)))
}

// BenchmarkReadReply is the reader's cost per reply apart from the system
// call: parse and the replies.csv row.
func BenchmarkReadReply(b *testing.B) {
	w, err := results.Create(filepath.Join(b.TempDir(), results.RepliesFile), results.RepliesHeader)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	in := []byte(`{"jsonrpc":"2.0","id":123456,"result":{"code":0,"data":"","log":"","codespace":"","hash":"9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08"}}`)
	var row results.Reply
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		rep, err := parseReply(in)
		if err != nil {
			b.Fatal(err)
		}
		row = results.Reply{Conn: 0, At: time.Now().UnixNano(), Seq: rep.id, OK: rep.ok(), Code: rep.code,
			Message: rep.messageText(), Hash: rep.hash.text()}
		if err := w.Write(&row); err != nil {
			b.Fatal(err)
		}
	}
}
