package testnet

import (
	"net"
	"slices"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/cometbft"
)

// TestSeedsFirst checks the start order: seeds, then the others, each in
// the testnet's order.
func TestSeedsFirst(t *testing.T) {
	var nodes []*Node
	for _, h := range []cometbft.Home{{Name: "v1", Mode: "validator"}, {Name: "s1", Mode: "seed"}, {Name: "f1", Mode: "full"}, {Name: "s2", Mode: "seed"}} {
		nodes = append(nodes, &Node{Home: h})
	}
	seeds, rest := seedsFirst(nodes)
	names := func(ns []*Node) (out []string) {
		for _, n := range ns {
			out = append(out, n.Name)
		}
		return out
	}
	if !slices.Equal(names(seeds), []string{"s1", "s2"}) || !slices.Equal(names(rest), []string{"v1", "f1"}) {
		t.Errorf("seeds %v, rest %v", names(seeds), names(rest))
	}
}

// TestWaitListening checks that a listening address passes at once and
// one nobody listens on is returned after the timeout.
func TestWaitListening(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := closed.Addr().String()
	closed.Close()
	start := time.Now()
	if left := waitListening([]string{l.Addr().String()}, time.Second); len(left) > 0 || time.Since(start) > 500*time.Millisecond {
		t.Errorf("a listener: left %v after %s", left, time.Since(start))
	}
	if left := waitListening([]string{l.Addr().String(), dead}, 300*time.Millisecond); !slices.Equal(left, []string{dead}) {
		t.Errorf("left %v, want only %s", left, dead)
	}
}
