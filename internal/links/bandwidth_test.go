package links

import (
	"bytes"
	crand "crypto/rand"
	"net"
	"testing"
	"time"
)

// TestBandwidth: N bytes through a relay limited to B bytes/s one way
// (an echo server sends them back unlimited) take about N/B: at least
// (N − burst)/B, the bucket's first burst being free, and at most 3 N/B
// (a generous bound for a shared machine); the bytes arrive unchanged,
// and without a limit the same bytes take a fraction of it.
func TestBandwidth(t *testing.T) {
	const n, bps = 768 << 10, 1 << 20 // 0.75 s at 1 MiB/s
	data := make([]byte, n)
	crand.Read(data)
	l := New(nil)
	defer l.Close()
	l.SetBandwidth("a", "b", bps)
	up := echo(t)
	addr, err := l.Add("a", "b", up)
	if err != nil {
		t.Fatal(err)
	}
	free, err := l.Add("c", "d", up)
	if err != nil {
		t.Fatal(err)
	}
	send := func(addr string) time.Duration {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		start := time.Now()
		if got := roundTrip(t, c, data); !bytes.Equal(got, data) {
			t.Fatal("bytes changed through a limited relay")
		}
		return time.Since(start)
	}
	want := time.Duration(float64(n) / bps * float64(time.Second))
	lo := time.Duration(float64(n-bandwidthBurst) / bps * float64(time.Second) * 0.95)
	if got := send(addr); got < lo || got > 3*want {
		t.Errorf("%d bytes at %d B/s took %v, want %v (%v … %v)", n, bps, got, want, lo, 3*want)
	}
	if got := send(free); got > want/2 {
		t.Errorf("%d bytes through an unlimited relay took %v, not well under the limited %v", n, got, want)
	}
	l.SetBandwidth("a", "b", 0)
	if got := send(addr); got > want/2 {
		t.Errorf("the limit removed, %d bytes took %v", n, got)
	}
}
