package links

import (
	"bytes"
	crand "crypto/rand"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"net"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"
)

// echo runs a TCP echo server on loopback until the test ends.
func echo(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(c, c); c.Close() }()
		}
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return ln.Addr().String()
}

// roundTrip sends data through c and reads it back.
func roundTrip(t *testing.T, c net.Conn, data []byte) []byte {
	t.Helper()
	errc := make(chan error, 1)
	go func() { _, err := c.Write(data); errc <- err }()
	got := make([]byte, len(data))
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatalf("read back: %v", err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	return got
}

// dead reports whether c is closed by the other end within a second.
func dead(c net.Conn) bool {
	c.SetReadDeadline(time.Now().Add(time.Second))
	_, err := c.Read(make([]byte, 1))
	return err == io.EOF || err != nil && !isTimeout(err)
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// settle waits until the goroutine count is back to at most n.
func settle(t *testing.T, n int) {
	t.Helper()
	for range 100 {
		if runtime.NumGoroutine() <= n {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	buf := make([]byte, 1<<16)
	t.Errorf("goroutines leaked: %d > %d\n%s", runtime.NumGoroutine(), n, buf[:runtime.Stack(buf, true)])
}

// TestBytesUnchanged: 4 MiB of random bytes go through a relay to an echo
// server and back unchanged, on several connections at once.
func TestBytesUnchanged(t *testing.T) {
	up := echo(t)
	base := runtime.NumGoroutine()
	l := New(nil)
	addr, err := l.Add("a", "b", up)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		data := make([]byte, 4<<20)
		crand.Read(data)
		if got := roundTrip(t, c, data); !bytes.Equal(got, data) {
			t.Error("bytes changed on the way")
		}
		c.Close()
	}
	l.Close()
	settle(t, base)
}

// TestCutRestore: a cut closes the node's connections in both directions
// and refuses new ones; other links are untouched; after Restore new
// connections pass again. Close leaves no goroutine behind.
func TestCutRestore(t *testing.T) {
	up := echo(t)
	base := runtime.NumGoroutine()
	l := New(nil)
	ab, _ := l.Add("a", "b", up)
	ba, _ := l.Add("b", "a", up)
	cd, err := l.Add("c", "d", up)
	if err != nil {
		t.Fatal(err)
	}
	dial := func(addr string) net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		roundTrip(t, c, []byte("hello")) // relayed end to end
		return c
	}
	c1, c2, c3 := dial(ab), dial(ba), dial(cd)
	if n := l.Conns(); n != 3 {
		t.Errorf("%d connections relayed, want 3", n)
	}
	if err := l.Cut("a"); err != nil {
		t.Fatal(err)
	}
	if !dead(c1) || !dead(c2) {
		t.Error("a cut left a connection of the node open")
	}
	if got := roundTrip(t, c3, []byte("still")); string(got) != "still" {
		t.Error("a cut of a touched another node's link")
	}
	c4, err := net.Dial("tcp", ab)
	if err == nil {
		if !dead(c4) {
			t.Error("a new connection of a cut node was not refused")
		}
		c4.Close()
	}
	if err := l.Restore("a"); err != nil {
		t.Fatal(err)
	}
	c5 := dial(ab)
	for _, c := range []net.Conn{c1, c2, c3, c5} {
		c.Close()
	}
	if err := l.Cut("nobody"); err == nil {
		t.Error("cut of an unknown node: no error")
	}
	l.Close()
	settle(t, base)
}

// TestPartitionHeal: a partition closes the links between its groups in
// both directions and refuses new ones, keeps those within a group, and
// Heal lets them connect again; a node in two groups or without a relay
// is refused.
func TestPartitionHeal(t *testing.T) {
	up := echo(t)
	base := runtime.NumGoroutine()
	l := New(nil)
	addr := map[string]string{}
	for _, link := range []string{"ab", "ba", "ac", "ca", "bc"} {
		a, err := l.Add(link[:1], link[1:], up)
		if err != nil {
			t.Fatal(err)
		}
		addr[link] = a
	}
	dial := func(link string) net.Conn {
		c, err := net.Dial("tcp", addr[link])
		if err != nil {
			t.Fatal(err)
		}
		roundTrip(t, c, []byte("hello"))
		return c
	}
	conns := map[string]net.Conn{}
	for link := range addr {
		conns[link] = dial(link)
	}
	if err := l.Partition([][]string{{"a", "b"}, {"c"}}); err != nil {
		t.Fatal(err)
	}
	for _, link := range []string{"ac", "ca", "bc"} {
		if !dead(conns[link]) {
			t.Errorf("link %s across the partition left open", link)
		}
	}
	for _, link := range []string{"ab", "ba"} {
		if got := roundTrip(t, conns[link], []byte("within")); string(got) != "within" {
			t.Errorf("link %s within a group broken", link)
		}
	}
	if c, err := net.Dial("tcp", addr["ca"]); err == nil {
		if !dead(c) {
			t.Error("a new connection across the partition was not refused")
		}
		c.Close()
	}
	l.Heal()
	healed := dial("ca")
	for _, c := range append(slices.Collect(maps.Values(conns)), healed) {
		c.Close()
	}
	for _, groups := range [][][]string{{{"a"}, {"a", "b"}}, {{"a"}, {"nobody"}}} {
		if err := l.Partition(groups); err == nil {
			t.Errorf("partition %v: no error", groups)
		}
	}
	l.Close()
	settle(t, base)
}

// TestUpstreamDown: a relay whose upstream does not answer closes the
// dialler's connection (as a refused dial would).
func TestUpstreamDown(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	gone := ln.Addr().String()
	ln.Close()
	l := New(nil)
	defer l.Close()
	addr, err := l.Add("a", "b", gone)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !dead(c) {
		t.Error("connection to a relay of a dead upstream stays open")
	}
}

// TestDelay: with a one-way delay of 40 ms each way, the round trip of a
// small message through the relay is 80 ms (the smallest of 10, within
// 10 %); 4 MiB still come back unchanged and in order, far faster than a
// delay per chunk would allow (128 chunks × 80 ms ≈ 10 s); the other
// direction's delay applies to replies; a cut still ends a delayed
// connection, and nothing is left behind.
func TestDelay(t *testing.T) {
	up := echo(t)
	base := runtime.NumGoroutine()
	l := New(nil)
	l.SetDelay("a", "b", 40*time.Millisecond)
	l.SetDelay("b", "a", 40*time.Millisecond)
	addr, err := l.Add("a", "b", up)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	if best := bestRoundTrip(t, c, 10); best < 80*time.Millisecond || best > 88*time.Millisecond {
		t.Errorf("round trip %s through 40 ms each way, want 80 ms within 10 %%", best)
	}
	data := make([]byte, 4<<20)
	crand.Read(data)
	start := time.Now()
	if got := roundTrip(t, c, data); !bytes.Equal(got, data) {
		t.Error("bytes changed or reordered on a delayed link")
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("4 MiB took %s through a delayed link: the delay is paid per chunk", took)
	}
	if err := l.Cut("a"); err != nil {
		t.Fatal(err)
	}
	if !dead(c) {
		t.Error("a cut left a delayed connection open")
	}
	c.Close()
	l.Close()
	settle(t, base)
}

// TestDelayOneWay: a delay set for a → b only slows what a sends, not
// b's replies.
func TestDelayOneWay(t *testing.T) {
	up := echo(t)
	l := New(nil)
	defer l.Close()
	l.SetDelay("a", "b", 60*time.Millisecond)
	addr, err := l.Add("a", "b", up)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if best := bestRoundTrip(t, c, 5); best < 60*time.Millisecond || best > 66*time.Millisecond {
		t.Errorf("round trip %s with 60 ms one way only, want 60 ms within 10 %%", best)
	}
}

// bestRoundTrip returns the smallest of n round trips of a small message
// through c: the link's delay, with the least scheduling noise.
func bestRoundTrip(t *testing.T, c net.Conn, n int) time.Duration {
	t.Helper()
	best := time.Hour
	for range n {
		start := time.Now()
		roundTrip(t, c, []byte("ping"))
		best = min(best, time.Since(start))
	}
	return best
}

// handshaker runs a server that opens each connection as CometBFT's
// SecretConnection does: it sends its key at once and its signature once
// it has read the client's key.
func handshaker(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.Write([]byte("key"))
				if _, err := io.ReadFull(c, make([]byte, 3)); err != nil {
					return
				}
				c.Write([]byte("sig"))
				io.Copy(io.Discard, c)
			}()
		}
	}()
	return ln.Addr().String()
}

// TestRoundTrips: the relay times a connection's opening exchange, and
// with 30 ms a → b and 50 ms b → a it measures the 80 ms round trip: never
// less (the delays are added), and the best of three below 160 ms (one
// delay counted twice would give more). How far above 80 ms a round trip
// lands depends on how busy the machine is, so only the bounds the relay
// guarantees are checked.
func TestRoundTrips(t *testing.T) {
	l := New(nil)
	defer l.Close()
	l.SetDelay("a", "b", 30*time.Millisecond)
	l.SetDelay("b", "a", 50*time.Millisecond)
	addr, err := l.Add("a", "b", handshaker(t))
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte("key"))
		if _, err := io.ReadFull(c, make([]byte, 3)); err != nil {
			t.Fatal(err)
		}
		c.Write([]byte("sig"))
		if _, err := io.ReadFull(c, make([]byte, 3)); err != nil {
			t.Fatal(err)
		}
		c.Close()
	}
	deadline := time.Now().Add(2 * time.Second)
	for len(l.RoundTrips()) < 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	rtts := l.RoundTrips()
	if len(rtts) != 3 {
		t.Fatalf("%d round trips measured, want 3", len(rtts))
	}
	best := time.Hour
	for _, rt := range rtts {
		if rt.From != "a" || rt.To != "b" || rt.RTT < 80*time.Millisecond {
			t.Errorf("round trip %+v, want a → b, at least 80 ms", rt)
		}
		best = min(best, rt.RTT)
	}
	if best >= 160*time.Millisecond {
		t.Errorf("round trips %+v: the best is not below 160 ms (a delay counted twice?)", rtts)
	}
	t.Logf("round trips %+v", rtts)
}

// TestJittered: the delays drawn have the delay as mean and jitter ×
// delay as standard deviation (10,000 seeded draws, within 2 %), and none
// is negative.
func TestJittered(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	const n, delay, jitter = 10000, 40 * time.Millisecond, 0.05
	var sum, sq float64
	for range n {
		d := jittered(delay, jitter, rnd.NormFloat64)
		if d < 0 {
			t.Fatalf("negative delay %s", d)
		}
		sum += float64(d)
		sq += float64(d) * float64(d)
	}
	mean := sum / n
	sd := math.Sqrt(sq/n - mean*mean)
	if math.Abs(mean-float64(delay)) > 0.02*float64(delay) {
		t.Errorf("mean %s, want %s", time.Duration(mean), delay)
	}
	if want := jitter * float64(delay); math.Abs(sd-want) > 0.02*want {
		t.Errorf("standard deviation %s, want %s", time.Duration(sd), time.Duration(want))
	}
	if d := jittered(delay, 0, rnd.NormFloat64); d != delay {
		t.Errorf("no jitter: %s, want %s", d, delay)
	}
	if d := jittered(delay, 1, func() float64 { return -3 }); d != 0 {
		t.Errorf("a draw below 0: %s, want 0", d)
	}
}

// TestJitterLive: a relay with jitter keeps a link's bytes in order and
// unchanged (1 MiB in one write: its chunks get different delays).
func TestJitterLive(t *testing.T) {
	up := echo(t)
	l := New(nil)
	defer l.Close()
	l.SetDelay("a", "b", 20*time.Millisecond)
	l.SetDelay("b", "a", 20*time.Millisecond)
	l.SetJitter(0.5)
	addr, err := l.Add("a", "b", up)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	data := make([]byte, 1<<20)
	crand.Read(data)
	if got := roundTrip(t, c, data); !bytes.Equal(got, data) {
		t.Error("bytes changed or reordered on a jittered link")
	}
}

// TestAvoid: a relay never listens on a port given to Avoid (the ports a
// testnet reserved for its nodes, free until they start). The kernel picks
// a listener's port itself, so this checks the contract over 20 relays
// against 20 ports just freed; it cannot force a collision.
func TestAvoid(t *testing.T) {
	l := New(nil)
	defer l.Close()
	var avoided []int
	for range 20 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		avoided = append(avoided, ln.Addr().(*net.TCPAddr).Port)
		ln.Close()
	}
	l.Avoid(avoided...)
	for i := range 20 {
		addr, err := l.Add("a", fmt.Sprintf("b%d", i), "127.0.0.1:1")
		if err != nil {
			t.Fatal(err)
		}
		_, ps, _ := net.SplitHostPort(addr)
		p, _ := strconv.Atoi(ps)
		if slices.Contains(avoided, p) {
			t.Fatalf("relay %d listens on avoided port %d", i, p)
		}
	}
}
