package links

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

// udpNode is a test node: a UDP socket that sends from the address it
// listens on, as a libp2p node's QUIC does.
func udpNode(t *testing.T) *net.UDPConn {
	t.Helper()
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// recv reads one datagram within d; ok false on a timeout.
func recv(t *testing.T, c *net.UDPConn, d time.Duration) (string, *net.UDPAddr, bool) {
	t.Helper()
	buf := make([]byte, 2048)
	_ = c.SetReadDeadline(time.Now().Add(d))
	n, from, err := c.ReadFromUDP(buf)
	if err != nil {
		return "", nil, false
	}
	return string(buf[:n]), from, true
}

// udpPair is two nodes a and b, each behind its relay.
func udpPair(t *testing.T) (l *Links, a, b *net.UDPConn, relayB *net.UDPAddr) {
	t.Helper()
	l = New(nil)
	t.Cleanup(func() { l.Close() })
	a, b = udpNode(t), udpNode(t)
	if _, err := l.AddUDP("a", a.LocalAddr().String()); err != nil {
		t.Fatal(err)
	}
	rb, err := l.AddUDP("b", b.LocalAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	relayB, _ = net.ResolveUDPAddr("udp", rb)
	return l, a, b, relayB
}

// TestUDPRelayDelays: a datagram from a to b's relay reaches b after a→b's
// one-way delay, b's reply (to the address it saw) reaches a from b's
// relay after b→a's, and the bytes are counted per ordered pair.
func TestUDPRelayDelays(t *testing.T) {
	l, a, b, relayB := udpPair(t)
	l.SetDelay("a", "b", 60*time.Millisecond)
	l.SetDelay("b", "a", 30*time.Millisecond)
	start := time.Now()
	if _, err := a.WriteToUDP([]byte("hello"), relayB); err != nil {
		t.Fatal(err)
	}
	msg, from, ok := recv(t, b, 2*time.Second)
	if !ok || msg != "hello" {
		t.Fatalf("b got %q, %v", msg, ok)
	}
	if d := time.Since(start); d < 60*time.Millisecond {
		t.Errorf("a→b took %v, want ≥ 60ms", d)
	}
	if from.String() == a.LocalAddr().String() {
		t.Fatalf("b saw a's own address: the datagram bypassed the relay")
	}
	start = time.Now()
	if _, err := b.WriteToUDP([]byte("hi back"), from); err != nil {
		t.Fatal(err)
	}
	msg, from, ok = recv(t, a, 2*time.Second)
	if !ok || msg != "hi back" || from.String() != relayB.String() {
		t.Fatalf("a got %q from %v (%v), want the reply from b's relay %v", msg, from, ok, relayB)
	}
	if d := time.Since(start); d < 30*time.Millisecond {
		t.Errorf("b→a took %v, want ≥ 30ms", d)
	}
	st := l.UDPStats()
	if st.Bytes[[2]string{"a", "b"}] != 5 || st.Bytes[[2]string{"b", "a"}] != 7 || st.Unknown != 0 {
		t.Errorf("stats %+v, want 5 bytes a→b, 7 b→a, none unknown", st)
	}
	if rtts := l.RoundTrips(); len(rtts) != 0 {
		t.Errorf("round trips %v before a's second datagram", rtts)
	}
	if _, err := a.WriteToUDP([]byte("again"), relayB); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := recv(t, b, 2*time.Second); !ok {
		t.Fatal("second datagram lost")
	}
	if rtts := l.RoundTrips(); len(rtts) != 1 || rtts[0].From != "a" || rtts[0].To != "b" || rtts[0].RTT < 90*time.Millisecond {
		t.Errorf("round trips %v, want one a→b of ≥ 90ms", rtts)
	}
}

// TestUDPRelayUnknownSource: a datagram from a socket that is no node's
// listener is dropped and counted, not relayed.
func TestUDPRelayUnknownSource(t *testing.T) {
	l, _, b, relayB := udpPair(t)
	stranger := udpNode(t)
	if _, err := stranger.WriteToUDP([]byte("sneak"), relayB); err != nil {
		t.Fatal(err)
	}
	if msg, _, ok := recv(t, b, 200*time.Millisecond); ok {
		t.Fatalf("b got %q from a stranger", msg)
	}
	if st := l.UDPStats(); st.Unknown != 1 || len(st.Bytes) != 0 {
		t.Errorf("stats %+v, want 1 unknown, no bytes", st)
	}
}

// TestUDPRelayCuts: a cut node's datagrams are dropped until Restore, and
// a partition drops those between its groups until Heal.
func TestUDPRelayCuts(t *testing.T) {
	l, a, b, relayB := udpPair(t)
	send := func() bool {
		t.Helper()
		if _, err := a.WriteToUDP([]byte("x"), relayB); err != nil {
			t.Fatal(err)
		}
		_, _, ok := recv(t, b, 200*time.Millisecond)
		return ok
	}
	if !send() {
		t.Fatal("not relayed before the cut")
	}
	if err := l.Cut("a"); err != nil {
		t.Fatal(err)
	}
	if send() {
		t.Error("relayed while a is cut")
	}
	if err := l.Restore("a"); err != nil {
		t.Fatal(err)
	}
	if !send() {
		t.Error("not relayed after Restore")
	}
	if err := l.Partition([][]string{{"a"}, {"b"}}); err != nil {
		t.Fatal(err)
	}
	if send() {
		t.Error("relayed across the partition")
	}
	l.Heal()
	if !send() {
		t.Error("not relayed after Heal")
	}
	if st := l.UDPStats(); st.Severed != 2 || st.Bytes[[2]string{"a", "b"}] != 3 {
		t.Errorf("stats %+v, want 2 severed, 3 bytes a→b", st)
	}
}

// TestUDPRelayBandwidth: 100 KB through a link of 100 KB/s take at least
// (100 KB − the 32 KiB burst) / 100 KB/s; the same without a limit far
// less.
func TestUDPRelayBandwidth(t *testing.T) {
	elapsed := func(bw float64) time.Duration {
		l, a, b, relayB := udpPair(t)
		l.SetBandwidth("a", "b", bw)
		payload := make([]byte, 1000)
		got := make(chan time.Time, 1)
		go func() {
			buf := make([]byte, 2048)
			for i := 0; i < 100; i++ {
				_ = b.SetReadDeadline(time.Now().Add(3 * time.Second))
				if _, _, err := b.ReadFromUDP(buf); err != nil {
					break
				}
			}
			got <- time.Now()
		}()
		start := time.Now()
		for i := range 100 {
			if _, err := a.WriteToUDP(payload, relayB); err != nil {
				t.Fatal(err)
			}
			if i%10 == 9 {
				time.Sleep(time.Millisecond) // within the sockets' buffers
			}
		}
		return (<-got).Sub(start)
	}
	limited, free := elapsed(100e3), elapsed(0)
	if limited < 600*time.Millisecond {
		t.Errorf("100 KB at 100 KB/s took %v, want ≥ 600ms", limited)
	}
	if free > limited/2 {
		t.Errorf("unlimited took %v against %v limited", free, limited)
	}
}

// TestUDPRelayCopiesIntact: every datagram arrives as sent, in order,
// with and without a delay (a pooled copy reused before it was sent, or
// a reused read buffer, would show as a wrong or repeated datagram), and
// its bytes are counted once.
func TestUDPRelayCopiesIntact(t *testing.T) {
	for _, delay := range []time.Duration{0, 20 * time.Millisecond} {
		t.Run(delay.String(), func(t *testing.T) {
			l, a, b, relayB := udpPair(t)
			l.SetDelay("a", "b", delay)
			const n, window = 200, 20 // a window the receiving socket's buffer holds
			want := 0
			for first := 0; first < n; first += window {
				for i := first; i < first+window; i++ {
					msg := fmt.Sprintf("datagram %03d %s", i, strings.Repeat("x", i*7))
					want += len(msg)
					if _, err := a.WriteToUDP([]byte(msg), relayB); err != nil {
						t.Fatal(err)
					}
				}
				for i := first; i < first+window; i++ {
					head := fmt.Sprintf("datagram %03d ", i)
					msg, _, ok := recv(t, b, 2*time.Second)
					if !ok || msg != head+strings.Repeat("x", i*7) {
						t.Fatalf("datagram %d: got %.20q (%d bytes), %v", i, msg, len(msg), ok)
					}
				}
			}
			if got := l.UDPStats().Bytes[[2]string{"a", "b"}]; got != int64(want) {
				t.Errorf("bytes a→b %d, want %d", got, want)
			}
		})
	}
}
