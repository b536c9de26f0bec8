package cometbft

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

func TestFreePorts(t *testing.T) {
	lo, hi := portRange()
	if lo == 0 {
		t.Skip("the ephemeral range leaves no room below it")
	}
	a, err := freePorts(12)
	if err != nil {
		t.Fatal(err)
	}
	b, err := freePorts(12)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range append(append([]int{}, a...), b...) {
		if p < lo || p >= hi {
			t.Errorf("port %d outside %d–%d", p, lo, hi)
		}
		if seen[p] {
			t.Errorf("port %d reserved twice", p)
		}
		seen[p] = true
	}
	// Another process (another open file description) cannot take a's
	// lock while it is held, and can once it is released.
	lockFile := filepath.Join(os.TempDir(), "cometlab-ports", strconv.Itoa(a[0]))
	f, err := os.Open(lockFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
		t.Fatalf("the lock of port %d was free while it was reserved", a[0])
	}
	releasePorts(a)
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatalf("the lock of port %d after its release: %v", a[0], err)
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	releasePorts(b)
}

func TestHoldSkipsAPortInUse(t *testing.T) {
	dir := t.TempDir()
	for _, network := range []string{"tcp", "udp"} {
		t.Run(network, func(t *testing.T) {
			var port int
			var closer func() error
			if network == "tcp" {
				l, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				port, closer = l.Addr().(*net.TCPAddr).Port, l.Close
			} else {
				u, err := net.ListenPacket("udp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				port, closer = u.LocalAddr().(*net.UDPAddr).Port, u.Close
			}
			if hold(dir, port) {
				releasePorts([]int{port})
				t.Fatalf("port %d held while a %s socket listens on it", port, network)
			}
			closer()
			if !hold(dir, port) {
				t.Fatalf("port %d not held once its %s socket closed", port, network)
			}
			releasePorts([]int{port})
		})
	}
}
