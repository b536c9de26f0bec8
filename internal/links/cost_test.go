package links

import (
	"fmt"
	"io"
	"net"
	"slices"
	"syscall"
	"testing"
	"time"
)

// The relays' own cost, with no delay, jitter or bandwidth configured:
// each benchmark runs once through a relay and once direct on loopback,
// so the relay's cost is the difference of the two. CPU is the process's
// (user + system, getrusage) and so includes the benchmark's own sender
// and receiver: subtract the direct figure. docs/measurements.md has the
// figures and the command.

// relaySizes are datagram (UDP) or write (TCP) sizes: a QUIC ACK-only
// packet, quic-go's initial packet size and its largest on a 1,500-byte
// MTU path.
var relaySizes = []int{64, 1252, 1452}

// udpWindow is how many datagrams the throughput benchmark keeps in
// flight: enough to keep the relay busy, few enough that no socket buffer
// overflows (a drop fails the benchmark rather than inflate MB/s).
const udpWindow = 64

// cpuTime is the process's user + system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	b.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports CPU ms per MB (10⁶ bytes) moved since cpu0.
func reportCPU(b *testing.B, cpu0 time.Duration, bytes int64) {
	cpu := cpuTime(b) - cpu0
	b.ReportMetric(float64(cpu)/float64(time.Millisecond)/(float64(bytes)/1e6), "cpu-ms/MB")
}

// reportRTT reports the median and p99 of the round trips (sorted in
// place; the p-quantile is the sorted value at ⌊p·(n−1)⌋).
func reportRTT(b *testing.B, rtts []time.Duration) {
	if len(rtts) == 0 {
		return
	}
	slices.Sort(rtts)
	q := func(p float64) float64 {
		return float64(rtts[int(p*float64(len(rtts)-1))]) / float64(time.Microsecond)
	}
	b.ReportMetric(q(0.5), "p50-us")
	b.ReportMetric(q(0.99), "p99-us")
}

// udpBenchPair is a sender a and a receiver b, and the address a sends
// to: b's own (direct) or b's relay's.
func udpBenchPair(b *testing.B, relayed bool) (l *Links, a, bConn *net.UDPConn, to *net.UDPAddr) {
	b.Helper()
	listen := func() *net.UDPConn {
		c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			b.Fatal(err)
		}
		_ = c.SetReadBuffer(udpSocketBuffer)
		b.Cleanup(func() { c.Close() })
		return c
	}
	a, bConn = listen(), listen()
	to = bConn.LocalAddr().(*net.UDPAddr)
	if !relayed {
		return nil, a, bConn, to
	}
	l = New(nil)
	b.Cleanup(func() { l.Close() })
	if _, err := l.AddUDP("a", a.LocalAddr().String()); err != nil {
		b.Fatal(err)
	}
	rb, err := l.AddUDP("b", bConn.LocalAddr().String())
	if err != nil {
		b.Fatal(err)
	}
	if to, err = net.ResolveUDPAddr("udp", rb); err != nil {
		b.Fatal(err)
	}
	return l, a, bConn, to
}

// path names a benchmark's path.
func path(relayed bool) string {
	if relayed {
		return "relay"
	}
	return "direct"
}

// BenchmarkUDPRelay sends b.N datagrams of each size from a to b, direct
// or through b's UDP relay, udpWindow in flight: ns/op is per datagram,
// MB/s the datagram bytes, cpu-ms/MB the process's CPU per MB delivered.
func BenchmarkUDPRelay(b *testing.B) {
	for _, size := range relaySizes {
		for _, relayed := range []bool{false, true} {
			b.Run(fmt.Sprintf("size=%d/path=%s", size, path(relayed)), func(b *testing.B) {
				benchUDPThroughput(b, size, relayed)
			})
		}
	}
}

func benchUDPThroughput(b *testing.B, size int, relayed bool) {
	l, a, recv, to := udpBenchPair(b, relayed)
	msg := make([]byte, size)
	window := make(chan struct{}, udpWindow)
	got := make(chan error, 1)
	b.SetBytes(int64(size))
	b.ResetTimer()
	cpu0 := cpuTime(b)
	go func() {
		buf := make([]byte, udpMaxSize)
		for i := 0; i < b.N; i++ {
			_ = recv.SetReadDeadline(time.Now().Add(2 * time.Second))
			if _, _, err := recv.ReadFromUDPAddrPort(buf); err != nil {
				got <- fmt.Errorf("datagram %d of %d lost: %w", i+1, b.N, err)
				return
			}
			<-window
		}
		got <- nil
	}()
	for range b.N {
		window <- struct{}{}
		if _, err := a.WriteToUDP(msg, to); err != nil {
			b.Fatal(err)
		}
	}
	if err := <-got; err != nil {
		if l != nil {
			b.Logf("relay stats: %+v", l.UDPStats())
		}
		b.Fatal(err)
	}
	b.StopTimer()
	reportCPU(b, cpu0, int64(b.N)*int64(size))
}

// BenchmarkUDPRelayRTT times b.N round trips of a 1,252-byte datagram: a
// sends to b (direct or through b's relay), b echoes it to the address
// it came from. Relayed, each round trip crosses b's relay twice (a → b
// and the reply), so the latency a relay adds per hop is half the
// difference of the relayed and direct figures.
func BenchmarkUDPRelayRTT(b *testing.B) {
	for _, relayed := range []bool{false, true} {
		b.Run("path="+path(relayed), func(b *testing.B) {
			_, a, echo, to := udpBenchPair(b, relayed)
			go func() {
				buf := make([]byte, udpMaxSize)
				for {
					n, from, err := echo.ReadFromUDPAddrPort(buf)
					if err != nil {
						return // closed
					}
					_, _ = echo.WriteToUDPAddrPort(buf[:n], from)
				}
			}()
			msg, buf := make([]byte, 1252), make([]byte, udpMaxSize)
			rtts := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := range b.N {
				start := time.Now()
				if _, err := a.WriteToUDP(msg, to); err != nil {
					b.Fatal(err)
				}
				_ = a.SetReadDeadline(time.Now().Add(2 * time.Second))
				if _, _, err := a.ReadFromUDPAddrPort(buf); err != nil {
					b.Fatalf("round trip %d: %v", i+1, err)
				}
				rtts = append(rtts, time.Since(start))
			}
			b.StopTimer()
			reportRTT(b, rtts)
		})
	}
}

// tcpBenchPair is a connection from a to b's listener, direct or through
// a TCP relay, and b's end of it.
func tcpBenchPair(b *testing.B, relayed bool) (a, bConn net.Conn) {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	addr := ln.Addr().String()
	if relayed {
		l := New(nil)
		b.Cleanup(func() { l.Close() })
		if addr, err = l.Add("a", "b", addr); err != nil {
			b.Fatal(err)
		}
	}
	if a, err = net.Dial("tcp", addr); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { a.Close() })
	if bConn, err = ln.Accept(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { bConn.Close() })
	return a, bConn
}

// BenchmarkTCPRelay writes b.N chunks of each size from a to b, direct or
// through a TCP relay: the same figures as BenchmarkUDPRelay, for the
// relays in front of CometBFT's own p2p.
func BenchmarkTCPRelay(b *testing.B) {
	for _, size := range relaySizes {
		for _, relayed := range []bool{false, true} {
			b.Run(fmt.Sprintf("size=%d/path=%s", size, path(relayed)), func(b *testing.B) {
				a, recv := tcpBenchPair(b, relayed)
				msg := make([]byte, size)
				total := int64(b.N) * int64(size)
				got := make(chan error, 1)
				b.SetBytes(int64(size))
				b.ResetTimer()
				cpu0 := cpuTime(b)
				go func() {
					_, err := io.CopyN(io.Discard, recv, total)
					got <- err
				}()
				for range b.N {
					if _, err := a.Write(msg); err != nil {
						b.Fatal(err)
					}
				}
				if err := <-got; err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				reportCPU(b, cpu0, total)
			})
		}
	}
}

// BenchmarkTCPRelayRTT times b.N round trips of a 1,252-byte message
// echoed by b, direct or through a TCP relay (two crossings of the relay
// per round trip, as BenchmarkUDPRelayRTT).
func BenchmarkTCPRelayRTT(b *testing.B) {
	for _, relayed := range []bool{false, true} {
		b.Run("path="+path(relayed), func(b *testing.B) {
			a, echo := tcpBenchPair(b, relayed)
			go func() { _, _ = io.Copy(echo, echo) }()
			msg, buf := make([]byte, 1252), make([]byte, 1252)
			rtts := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := range b.N {
				start := time.Now()
				if _, err := a.Write(msg); err != nil {
					b.Fatal(err)
				}
				if _, err := io.ReadFull(a, buf); err != nil {
					b.Fatalf("round trip %d: %v", i+1, err)
				}
				rtts = append(rtts, time.Since(start))
			}
			b.StopTimer()
			reportRTT(b, rtts)
		})
	}
}
