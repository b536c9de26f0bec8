package cometbft

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Node ports come from below the kernel's ephemeral range, where no
// outgoing connection and no ":0" listener (a relay, another process's
// load generator) can take one between the moment Generate finds it free
// and the moment the node binds it — with ports from the ephemeral range
// that happened when two testnets ran side by side ("bind: address already
// in use"). Each reserved port is also held by a lock file
// (os.TempDir()/cometlab-ports/PORT, flock), so that two cometlab
// processes never reserve the same one, until ReleasePorts or the
// process's end: a node that is down for a perturbation keeps its ports.
const (
	portsLow      = 20000
	ephemeralFile = "/proc/sys/net/ipv4/ip_local_port_range"
)

var held = struct {
	sync.Mutex
	files map[int]*os.File
}{files: map[int]*os.File{}}

// portRange returns [lo, hi): from portsLow to the start of the
// ephemeral range, or (0, 0) when that leaves too few ports (the caller
// then asks the kernel).
func portRange() (int, int) {
	hi := 32768
	if b, err := os.ReadFile(ephemeralFile); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if v, err := strconv.Atoi(f[0]); err == nil {
				hi = v
			}
		}
	}
	if hi-portsLow < 1000 {
		return 0, 0
	}
	return portsLow, hi
}

// freePorts reserves n distinct loopback ports, free for TCP and UDP (a
// libp2p node listens on both), each held by its lock file until
// ReleasePorts.
func freePorts(n int) ([]int, error) {
	lo, hi := portRange()
	if lo == 0 {
		return kernelPorts(n)
	}
	dir := filepath.Join(os.TempDir(), "cometlab-ports")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, fmt.Errorf("reserve ports: %w", err)
	}
	ports := make([]int, 0, n)
	start := lo + rand.IntN(hi-lo)
	for i := 0; i < hi-lo && len(ports) < n; i++ {
		p := lo + (start-lo+i)%(hi-lo)
		if hold(dir, p) {
			ports = append(ports, p)
		}
	}
	if len(ports) < n {
		releasePorts(ports)
		return nil, fmt.Errorf("reserve ports: only %d of %d free in %d–%d", len(ports), n, lo, hi-1)
	}
	return ports, nil
}

// hold takes port p's lock file and checks that nothing listens on p.
func hold(dir string, p int) bool {
	held.Lock()
	defer held.Unlock()
	if held.files[p] != nil {
		return false
	}
	f, err := os.OpenFile(filepath.Join(dir, strconv.Itoa(p)), os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return false
	}
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil || !bindable(p) {
		f.Close()
		return false
	}
	held.files[p] = f
	return true
}

func bindable(p int) bool {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(p))
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return false
	}
	defer l.Close()
	u, err := net.ListenPacket("udp", addr)
	if err != nil {
		return false
	}
	u.Close()
	return true
}

// ReleasePorts gives back the ports Generate reserved for homes, once
// their nodes stopped. Ports of nodes on hosts were never reserved.
func ReleasePorts(homes []Home) {
	var ports []int
	for _, h := range homes {
		if h.Address != "" {
			continue
		}
		ports = append(ports, h.RPCPort, h.P2PPort, h.MetricsPort)
		if h.AppPort != 0 {
			ports = append(ports, h.AppPort)
		}
	}
	releasePorts(ports)
}

func releasePorts(ports []int) {
	held.Lock()
	defer held.Unlock()
	for _, p := range ports {
		if f := held.files[p]; f != nil {
			f.Close()
			delete(held.files, p)
		}
	}
}

// kernelPorts asks the kernel for n free ports (":0"), which a process
// may take before the nodes bind them.
func kernelPorts(n int) ([]int, error) {
	ls := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("find a free loopback port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
