// Command sink is a minimal websocket JSON-RPC endpoint for benchmarking load
// generators: it accepts any number of connections at /websocket, reads every
// message, and answers each with a broadcast_tx_async-style result carrying
// the request's id. It does nothing else, so a generator's ceiling can be
// measured without a node in the way.
//
// It prints the URL to dial (ws://127.0.0.1:PORT/websocket) as the first line
// of stdout and, on SIGTERM or SIGINT, one line of totals:
//
//	messages=N bytes=B first_ns=F last_ns=L
//
// where bytes counts message payloads and first/last are the Unix ns at which
// the first and last messages were read: the achieved rate is N / (L − F).
//
// The websocket server is written by hand (RFC 6455, no extensions) so that
// replies are batched: they are buffered and flushed only when no more
// requests are waiting to be read, which keeps the sink's cost per message
// far below a generator's.
package main

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// totals are the counts printed on exit.
type totals struct {
	messages, bytes, first, last atomic.Int64
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sink:", err)
		os.Exit(1)
	}
	fmt.Printf("ws://%s/websocket\n", ln.Addr())

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	var t totals
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if err := serve(c, &t); err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
					fmt.Fprintln(os.Stderr, "sink:", err)
				}
			}()
		}
	}()
	<-sig
	ln.Close()
	fmt.Printf("messages=%d bytes=%d first_ns=%d last_ns=%d\n",
		t.messages.Load(), t.bytes.Load(), t.first.Load(), t.last.Load())
}

// serve upgrades one connection and answers its messages until it closes.
func serve(c net.Conn, t *totals) error {
	br := bufio.NewReaderSize(c, 256<<10)
	bw := bufio.NewWriterSize(c, 256<<10)
	if err := handshake(br, bw); err != nil {
		return err
	}
	var (
		hdr [14]byte
		msg []byte // payload of the message being read
		out []byte // reply scratch
	)
	for {
		// Flush replies only when no request is waiting, so one write
		// carries many replies when requests come fast.
		if br.Buffered() == 0 {
			if err := bw.Flush(); err != nil {
				return err
			}
		}
		if _, err := io.ReadFull(br, hdr[:2]); err != nil {
			return err
		}
		fin, op := hdr[0]&0x80 != 0, hdr[0]&0x0f
		masked, n := hdr[1]&0x80 != 0, uint64(hdr[1]&0x7f)
		switch n {
		case 126:
			if _, err := io.ReadFull(br, hdr[2:4]); err != nil {
				return err
			}
			n = uint64(binary.BigEndian.Uint16(hdr[2:4]))
		case 127:
			if _, err := io.ReadFull(br, hdr[2:10]); err != nil {
				return err
			}
			n = binary.BigEndian.Uint64(hdr[2:10])
		}
		if n > 64<<20 {
			return fmt.Errorf("frame of %d bytes", n)
		}
		var key [4]byte
		if masked {
			if _, err := io.ReadFull(br, key[:]); err != nil {
				return err
			}
		}
		if op == 0 { // continuation: append to the message
			start := len(msg)
			msg = grow(msg, start+int(n))
			if _, err := io.ReadFull(br, msg[start:]); err != nil {
				return err
			}
			unmask(msg[start:], key, start)
		} else {
			if op >= 8 { // control frame: its own buffer
				ctl := make([]byte, n)
				if _, err := io.ReadFull(br, ctl); err != nil {
					return err
				}
				unmask(ctl, key, 0)
				switch op {
				case 8: // close: echo it and stop
					writeFrame(bw, 8, ctl)
					return bw.Flush()
				case 9: // ping
					writeFrame(bw, 10, ctl)
				}
				continue
			}
			msg = grow(msg[:0], int(n))
			if _, err := io.ReadFull(br, msg); err != nil {
				return err
			}
			unmask(msg, key, 0)
		}
		if !fin {
			continue
		}
		now := time.Now().UnixNano()
		t.first.CompareAndSwap(0, now)
		t.last.Store(now)
		t.messages.Add(1)
		t.bytes.Add(int64(len(msg)))
		out = append(out[:0], `{"jsonrpc":"2.0","id":`...)
		out = append(out, id(msg)...)
		out = append(out, `,"result":{"code":0,"data":"","log":"","codespace":"","hash":""}}`...)
		writeFrame(bw, 1, out)
	}
}

// handshake reads the HTTP upgrade request and accepts it (RFC 6455 §4.2).
func handshake(br *bufio.Reader, bw *bufio.Writer) error {
	req, err := http.ReadRequest(br)
	if err != nil {
		return fmt.Errorf("handshake: %w", err)
	}
	key := req.Header.Get("Sec-Websocket-Key")
	if req.URL.Path != "/websocket" || !strings.EqualFold(req.Header.Get("Upgrade"), "websocket") || key == "" {
		fmt.Fprint(bw, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
		bw.Flush()
		return fmt.Errorf("handshake: not a websocket request for /websocket: %s %s", req.Method, req.URL)
	}
	h := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	fmt.Fprintf(bw, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n",
		base64.StdEncoding.EncodeToString(h[:]))
	return bw.Flush()
}

// id returns the JSON text of the request's numeric id, or null.
func id(msg []byte) []byte {
	i := bytes.Index(msg, []byte(`"id":`))
	if i < 0 {
		return []byte("null")
	}
	i += len(`"id":`)
	for i < len(msg) && msg[i] == ' ' {
		i++
	}
	j := i
	for j < len(msg) && ('0' <= msg[j] && msg[j] <= '9' || msg[j] == '-') {
		j++
	}
	if j == i {
		return []byte("null")
	}
	return msg[i:j]
}

// writeFrame writes one unmasked server frame.
func writeFrame(bw *bufio.Writer, op byte, p []byte) {
	bw.WriteByte(0x80 | op)
	switch n := len(p); {
	case n < 126:
		bw.WriteByte(byte(n))
	case n < 1<<16:
		bw.WriteByte(126)
		bw.WriteByte(byte(n >> 8))
		bw.WriteByte(byte(n))
	default:
		var b [9]byte
		b[0] = 127
		binary.BigEndian.PutUint64(b[1:], uint64(n))
		bw.Write(b[:])
	}
	bw.Write(p)
}

// unmask XORs p with the mask key, p starting at offset off of the message.
func unmask(p []byte, key [4]byte, off int) {
	var k [8]byte
	for i := range k {
		k[i] = key[(off+i)%4]
	}
	k8 := binary.LittleEndian.Uint64(k[:])
	i := 0
	for ; i+8 <= len(p); i += 8 {
		binary.LittleEndian.PutUint64(p[i:], binary.LittleEndian.Uint64(p[i:])^k8)
	}
	for ; i < len(p); i++ {
		p[i] ^= key[(off+i)%4]
	}
}

// grow returns b resized to n bytes, keeping its contents.
func grow(b []byte, n int) []byte {
	if n <= cap(b) {
		return b[:n]
	}
	nb := make([]byte, n, max(n, 2*cap(b)))
	copy(nb, b)
	return nb
}
