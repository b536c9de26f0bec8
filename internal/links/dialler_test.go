package links

import (
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// TestProcAddr checks /proc/net/tcp's address format on this machine's
// byte order: 127.0.0.1:35009 is 0100007F:88C1 on little-endian machines.
func TestProcAddr(t *testing.T) {
	got := procAddr(netip.MustParseAddrPort("127.0.0.1:35009"))
	if got != "0100007F:88C1" && got != "7F000001:88C1" {
		t.Errorf("procAddr %s", got)
	}
}

// TestSocketInode finds a socket's inode in a table of /proc/net/tcp's
// format by its local and remote addresses, and nothing for a pair it
// does not hold.
func TestSocketInode(t *testing.T) {
	table := "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n" +
		"   0: 0100007F:88C1 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1649670 2 0 100 0 0 10 0\n" +
		"   1: 0100007F:D431 0100007F:88C1 01 00000000:00000000 00:00000000 00000000     0        0 1650001 1 0 20 4 30 10 -1\n"
	path := filepath.Join(t.TempDir(), "tcp")
	if err := os.WriteFile(path, []byte(table), 0o644); err != nil {
		t.Fatal(err)
	}
	local, remote := netip.MustParseAddrPort("127.0.0.1:54321"), netip.MustParseAddrPort("127.0.0.1:35009")
	if procAddr(local) != "0100007F:D431" {
		t.Skip("a big-endian machine: the table above is little-endian")
	}
	for _, c := range []struct {
		local, remote netip.AddrPort
		want          string
	}{
		{local, remote, "1650001"},
		{remote, local, ""},
	} {
		got, err := socketInode(path, c.local, c.remote)
		if err != nil || got != c.want {
			t.Errorf("socketInode(%s → %s) = %q, %v; want %q", c.local, c.remote, got, err, c.want)
		}
	}
}

// TestInboundDialler dials an inbound relay from this process, named "me"
// by SetDiallers: the delay of me → up applies (the round trip is at
// least the 40 ms each way), the round trip is recorded from me, and
// cutting me closes the connection; a process not among the diallers
// gets no delay.
func TestInboundDialler(t *testing.T) {
	if _, err := os.Stat(procNetTCP); err != nil {
		t.Skip("no /proc/net/tcp")
	}
	up := echo(t)
	base := runtime.NumGoroutine()
	l := New(nil)
	l.SetDelay("me", "up", 40*time.Millisecond)
	l.SetDelay("up", "me", 40*time.Millisecond)
	addr, err := l.AddInbound("up", up)
	if err != nil {
		t.Fatal(err)
	}
	l.SetDiallers(func() map[int]string { return map[int]string{os.Getpid() + 1<<22: "other"} })
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	if best := bestRoundTrip(t, c, 3); best > 40*time.Millisecond {
		t.Errorf("round trip %s for a dialler not found, want no delay", best)
	}
	c.Close()
	l.SetDiallers(func() map[int]string { return map[int]string{os.Getpid(): "me"} })
	c, err = net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	if best := bestRoundTrip(t, c, 5); best < 80*time.Millisecond || best > 120*time.Millisecond {
		t.Errorf("round trip %s through 40 ms each way, want 80 ms", best)
	}
	if rt := l.RoundTrips(); len(rt) == 0 || rt[len(rt)-1].From != "me" || rt[len(rt)-1].To != "up" {
		t.Errorf("round trips %+v, want the last from me to up", rt)
	}
	if err := l.Cut("me"); err != nil {
		t.Fatal(err)
	}
	if !dead(c) {
		t.Error("cutting the dialler left its connection open")
	}
	c.Close()
	l.Close()
	settle(t, base)
}
