package testnet

import (
	"net"
	"strings"
	"time"

	"github.com/cometlab/cometlab/internal/cometbft"
)

// seedWait bounds how long Start waits for the seeds' p2p listeners
// before it starts the other nodes.
const seedWait = 30 * time.Second

// seedsFirst splits nodes into the seeds and the others, each in order.
// Start starts the seeds first and waits until they listen, as CometBFT's
// e2e runner does: a node dials its seeds as soon as it starts and, when
// that fails, only again at its peer exchange's next round (30 s later).
func seedsFirst(nodes []*Node) (seeds, rest []*Node) {
	for _, n := range nodes {
		if n.Mode == cometbft.ModeSeed {
			seeds = append(seeds, n)
		} else {
			rest = append(rest, n)
		}
	}
	return seeds, rest
}

// waitListening waits until every address (host:port) accepts a TCP
// connection, polling every 50 ms, for at most timeout; it returns the
// addresses that never did.
func waitListening(addrs []string, timeout time.Duration) []string {
	deadline := time.Now().Add(timeout)
	left := addrs
	for {
		var still []string
		for _, a := range left {
			c, err := net.DialTimeout("tcp", a, 200*time.Millisecond)
			if err != nil {
				still = append(still, a)
				continue
			}
			c.Close()
		}
		left = still
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// p2pListen is the host:port of a node's p2p listener.
func p2pListen(n *Node) string {
	_, hostPort, _ := strings.Cut(n.P2PAddr(), "@")
	return hostPort
}
