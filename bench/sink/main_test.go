package main

import (
	"bytes"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// TestServe drives the hand-written server with gorilla's client: replies
// carry the request ids, fragmented messages and pings are handled, and the
// totals count messages and payload bytes.
func TestServe(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var tot totals
	served := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			served <- err
			return
		}
		defer c.Close()
		served <- serve(c, &tot)
	}()
	dialer := websocket.Dialer{WriteBufferSize: 70200}
	ws, _, err := dialer.Dial("ws://"+ln.Addr().String()+"/websocket", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	ws.SetReadDeadline(time.Now().Add(10 * time.Second))

	pong := make(chan string, 1)
	ws.SetPongHandler(func(s string) error { pong <- s; return nil })
	msgs := []string{
		`{"jsonrpc":"2.0","id":7,"method":"broadcast_tx_async","params":{"tx":"YT0wMA=="}}`,
		// One frame with a 64-bit length.
		`{"jsonrpc":"2.0","id":18446744073709551615,"method":"x","params":{"tx":"` + strings.Repeat("A", 70000) + `"}}`,
		// Longer than the client's write buffer: several frames.
		`{"jsonrpc":"2.0","id":3,"method":"x","params":{"tx":"` + strings.Repeat("B", 150000) + `"}}`,
		`{"jsonrpc":"2.0","method":"no id"}`,
		`{"jsonrpc":"2.0","id": 42,"method":"m"}`,
	}
	for _, m := range msgs {
		if err := ws.WriteMessage(websocket.TextMessage, []byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	if err := ws.WriteControl(websocket.PingMessage, []byte("hi"), time.Now().Add(time.Second)); err != nil {
		t.Fatal(err)
	}

	for _, id := range []string{"7", "18446744073709551615", "3", "null", "42"} {
		_, got, err := ws.ReadMessage()
		if err != nil {
			t.Fatal(err)
		}
		want := `{"jsonrpc":"2.0","id":` + id + `,"result":{"code":0,"data":"","log":"","codespace":"","hash":""}}`
		if !bytes.Equal(got, []byte(want)) {
			t.Errorf("reply %s, want %s", got, want)
		}
	}
	go ws.ReadMessage() // runs the pong handler
	if got := <-pong; got != "hi" {
		t.Errorf("pong %q", got)
	}
	ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	if err := <-served; err != nil {
		t.Errorf("serve: %v", err)
	}
	bytesWant := 0
	for _, m := range msgs {
		bytesWant += len(m)
	}
	if tot.messages.Load() != 5 || tot.bytes.Load() != int64(bytesWant) || tot.first.Load() == 0 || tot.last.Load() < tot.first.Load() {
		t.Errorf("totals: %d messages, %d bytes (want 5, %d), first %d, last %d",
			tot.messages.Load(), tot.bytes.Load(), bytesWant, tot.first.Load(), tot.last.Load())
	}
}
