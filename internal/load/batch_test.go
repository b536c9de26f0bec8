package load

import (
	"bytes"
	"errors"
	"io"
	"net"
	"runtime"
	"testing"
	"time"
)

// tcpPair returns a batchConn over a loopback TCP connection and the other
// end of it.
func tcpPair(t *testing.T) (*batchConn, net.Conn) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	peer := <-accepted
	if peer == nil {
		t.Fatal("accept failed")
	}
	b := newBatchConn(c)
	t.Cleanup(func() { b.Close(); peer.Close() })
	return b, peer
}

func TestBatchConnCoalesces(t *testing.T) {
	b, peer := tcpPair(t)
	b.startBatching()
	frame := append([]byte{0x81, 3}, "abc"...)
	for range 3 {
		if _, err := b.Write(frame); err != nil {
			t.Fatal(err)
		}
	}
	if got := b.Buffered(); got != 15 {
		t.Fatalf("%d bytes buffered, want 15", got)
	}
	// A control frame goes out at once, after the data frames before it.
	closeFrame := []byte{0x88, 0}
	if _, err := b.Write(closeFrame); err != nil {
		t.Fatal(err)
	}
	want := append(bytes.Repeat(frame, 3), closeFrame...)
	got := make([]byte, len(want))
	peer.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(peer, got); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("peer read %q, %v; want %q", got, err, want)
	}
	if b.Buffered() != 0 {
		t.Errorf("%d bytes still buffered", b.Buffered())
	}
}

func TestBatchConnPolledRead(t *testing.T) {
	b, peer := tcpPair(t)
	if runtime.GOOS != "linux" {
		t.Skip("polled reads are Linux-only")
	}
	b.setPolled(true)
	<-b.kick // setPolled kicks; start from none pending
	type result struct {
		n   int
		err error
	}
	read := func() chan result {
		ch := make(chan result, 1)
		go func() {
			p := make([]byte, 64)
			n, err := b.Read(p)
			ch <- result{n, err}
		}()
		return ch
	}
	ch := read()
	time.Sleep(50 * time.Millisecond) // let it find nothing and wait for a kick
	if _, err := peer.Write([]byte("reply")); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-ch:
		t.Fatalf("polled Read returned %+v before a kick", r)
	case <-time.After(100 * time.Millisecond):
	}
	b.kickReader()
	if r := <-ch; r.n != 5 || r.err != nil {
		t.Fatalf("Read after the kick = %+v", r)
	}
	// Off again: a blocking read returns when data arrives.
	b.setPolled(false)
	ch = read()
	if _, err := peer.Write([]byte("more")); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-ch:
		if r.n != 4 || r.err != nil {
			t.Fatalf("blocking Read = %+v", r)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("blocking Read did not return")
	}
	// Closing wakes a polled reader.
	b.setPolled(true)
	<-b.kick
	ch = read()
	b.Close()
	if r := <-ch; r.err == nil {
		t.Fatalf("Read on a closed connection = %+v", r)
	}
}

// TestBatchConnKicksWhenFull checks that a write that finds the socket full
// kicks the reader before it waits (the node may be blocked on its replies).
func TestBatchConnKicksWhenFull(t *testing.T) {
	b, peer := tcpPair(t)
	if runtime.GOOS != "linux" {
		t.Skip("raw writes are Linux-only")
	}
	b.startBatching()
	b.setPolled(true)
	<-b.kick
	frame := append([]byte{0x82, 126, 0xff, 0xff}, make([]byte, 65535)...)
	done := make(chan error, 1)
	go func() {
		for range 1000 { // 64 MB: more than any socket buffers
			if _, err := b.Write(frame); err != nil {
				done <- err
				return
			}
		}
		done <- b.Flush()
	}()
	select {
	case <-b.kick:
	case err := <-done:
		t.Fatalf("64 MB written to a peer that does not read (%v)", err)
	case <-time.After(10 * time.Second):
		t.Fatal("no kick from a blocked write")
	}
	go io.Copy(io.Discard, peer)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestBatchConnWriteDeadline(t *testing.T) {
	b, _ := tcpPair(t)
	b.startBatching()
	b.SetWriteDeadline(time.Now().Add(200 * time.Millisecond))
	frame := append([]byte{0x82, 126, 0xff, 0xff}, make([]byte, 65535)...)
	var err error
	for i := 0; i < 1000 && err == nil; i++ {
		_, err = b.Write(frame)
	}
	if err == nil {
		err = b.Flush()
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("write to a peer that does not read: %v, want a timeout", err)
	}
	if _, err2 := b.Write(frame[:2]); err2 == nil {
		t.Error("write after a failed one succeeded")
	}
}
