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

// TestTimeScale: at time scale 4 a delay of 10 ms each way makes a round
// trip of 80 ms, and a limit of 4 MiB/s passes 1 MiB/s: N bytes take
// about N/(1 MiB/s).
func TestTimeScale(t *testing.T) {
	up := echo(t)
	l := New(nil)
	defer l.Close()
	l.SetTimeScale(4)
	l.SetDelay("a", "b", 10*time.Millisecond)
	l.SetDelay("b", "a", 10*time.Millisecond)
	l.SetBandwidth("c", "d", 4<<20)
	addr, err := l.Add("a", "b", up)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if best := bestRoundTrip(t, c, 5); best < 78*time.Millisecond || best > 100*time.Millisecond {
		t.Errorf("round trip %s through 10 ms each way at k = 4, want 80 ms", best)
	}
	limited, err := l.Add("c", "d", up)
	if err != nil {
		t.Fatal(err)
	}
	lc, err := net.Dial("tcp", limited)
	if err != nil {
		t.Fatal(err)
	}
	defer lc.Close()
	const n = 768 << 10
	data := make([]byte, n)
	crand.Read(data)
	start := time.Now()
	if got := roundTrip(t, lc, data); !bytes.Equal(got, data) {
		t.Fatal("bytes changed through a scaled relay")
	}
	want := time.Duration(float64(n) / (1 << 20) * float64(time.Second))
	lo := time.Duration(float64(n-bandwidthBurst) / (1 << 20) * float64(time.Second) * 0.95)
	if got := time.Since(start); got < lo || got > 3*want {
		t.Errorf("%d bytes at 4 MiB/s ÷ 4 took %v, want %v", n, got, want)
	}
}
