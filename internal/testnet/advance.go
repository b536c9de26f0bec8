package testnet

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// HeightReader reads a node's latest block height; *rpc.Client is one.
type HeightReader interface {
	Height(ctx context.Context) (int64, error)
}

// Watched is one node WaitAdvanced waits for.
type Watched struct {
	Name string
	RPC  HeightReader
	// Skip leaves the node out of the wait: a seed (it runs no consensus)
	// or a node not started with the others.
	Skip bool
}

// StallError says that node Node did not advance two heights within
// Timeout; Why is what its RPC said last ("at height N" or "RPC not
// answering: …").
type StallError struct {
	Node    string
	Timeout time.Duration
	Why     string
}

func (e *StallError) Error() string {
	return fmt.Sprintf("node %s did not advance two heights within %s (%s)", e.Node, e.Timeout, e.Why)
}

// Heights tracks, per node, the first height it answered with (> 0), the
// last height and the last RPC error: the pure core of WaitAdvanced.
// Its zero value is ready to use.
type Heights struct {
	first, last map[string]int64
	lastErr     map[string]error
}

// Observe records one reading of node name's height (h, or err when its
// RPC did not answer) and reports whether the node has now advanced: its
// height is at least two above the first height it answered with. A failed
// reading reports false (the round is not healthy) even for a node that
// Advanced already; Stall does not name such a node.
func (hs *Heights) Observe(name string, h int64, err error) bool {
	if hs.first == nil {
		hs.first, hs.last, hs.lastErr = map[string]int64{}, map[string]int64{}, map[string]error{}
	}
	if hs.lastErr[name] = err; err != nil {
		return false
	}
	hs.last[name] = h
	if _, ok := hs.first[name]; !ok && h > 0 {
		hs.first[name] = h
	}
	return hs.Advanced(name)
}

// Advanced reports whether node name's last height is at least two above
// the first height it answered with.
func (hs *Heights) Advanced(name string) bool {
	f, ok := hs.first[name]
	return ok && hs.last[name] >= f+2
}

// Stall is the error for node name when it has not advanced within
// timeout, nil when it has.
func (hs *Heights) Stall(name string, timeout time.Duration) *StallError {
	if hs.Advanced(name) {
		return nil
	}
	why := fmt.Sprintf("at height %d", hs.last[name])
	if e := hs.lastErr[name]; e != nil {
		why = "RPC not answering: " + e.Error()
	}
	return &StallError{Node: name, Timeout: timeout, Why: why}
}

// pollInterval is how often WaitAdvanced reads the heights.
const pollInterval = 250 * time.Millisecond

// WaitAdvanced reads the height of every node not skipped every 250 ms
// (each read bounded by 2 s) until each has advanced two heights beyond
// where it was first seen. check, when not nil, is called with the index
// of every node (skipped ones too) before each round's read, and an error
// it returns ends the wait. When timeout passes, the error is a
// *StallError for the first node (in order) that has not advanced; when
// ctx is canceled, ctx.Err().
func WaitAdvanced(ctx context.Context, nodes []Watched, timeout time.Duration, check func(i int) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var hs Heights
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		healthy := 0
		for i, n := range nodes {
			if check != nil {
				if err := check(i); err != nil {
					return err
				}
			}
			if n.Skip {
				healthy++
				continue
			}
			cctx, ccancel := context.WithTimeout(ctx, 2*time.Second)
			h, err := n.RPC.Height(cctx)
			ccancel()
			if hs.Observe(n.Name, h, err) {
				healthy++
			}
		}
		if healthy == len(nodes) {
			return nil
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.Canceled) {
				return ctx.Err()
			}
			for _, n := range nodes {
				if e := hs.Stall(n.Name, timeout); !n.Skip && e != nil {
					return e
				}
			}
			return ctx.Err()
		case <-tick.C:
		}
	}
}
