package testnet

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/cometlab/cometlab/internal/cometbft"
)

// Bounds of StartLate, the e2e runner's own: the chain has NetworkWait
// per height it still has to make before a late node starts, and the node
// CatchUpWait to reach its start height once started.
const (
	NetworkWait = 10 * time.Second
	CatchUpWait = 3 * time.Minute
)

// heightPoll is how often StartLate reads heights.
const heightPoll = 200 * time.Millisecond

// Late returns the late nodes (StartAt > 0) of t, in the order StartLate
// starts them: by StartAt, then name.
func (t *Testnet) Late() []*Node {
	var late []*Node
	for _, n := range t.Nodes {
		if n.StartAt > 0 {
			late = append(late, n)
		}
	}
	slices.SortStableFunc(late, func(a, b *Node) int {
		return cmp.Or(cmp.Compare(a.StartAt, b.StartAt), cmp.Compare(a.Name, b.Name))
	})
	return late
}

// LateStart is what StartLate reports on each late node it started.
type LateStart struct {
	Node          string
	StartAt       int64
	NetworkHeight int64         // the chain's height when it started
	CaughtUp      time.Duration // from its start to its StartAt height
	// TrustHeight is the trusted height a state-syncing node started from
	// (its hash from /commit); 0 for block sync. Earliest is the lowest
	// height the node stores once caught up: above 1 when it restored a
	// snapshot instead of replaying the chain.
	TrustHeight, Earliest int64
}

// StartLate starts the late nodes one by one, as CometBFT's e2e runner
// does: it waits until the chain (the highest node already running that
// runs consensus) reaches the node's StartAt height, starts it with the
// options Start was given, and waits until the node itself has that
// height (block sync). started, when set, is called after each node
// caught up. The error names the node and what it waited for.
func (t *Testnet) StartLate(ctx context.Context, started func(LateStart)) error {
	var running []HeightReader
	var first []*Node // running since the testnet started
	for _, n := range t.Nodes {
		if !n.startsLater() && n.Mode != cometbft.ModeSeed {
			running = append(running, n.RPC)
			first = append(first, n)
		}
	}
	for _, n := range t.Late() {
		h, err := WaitHeight(ctx, running, n.StartAt, NetworkWait*time.Duration(n.StartAt+1))
		if err != nil {
			return fmt.Errorf("start %s at height %d: the chain: %w", n.Name, n.StartAt, err)
		}
		ls := LateStart{Node: n.Name, StartAt: n.StartAt, NetworkHeight: h}
		if n.StateSync {
			if ls.TrustHeight, err = trust(ctx, n, first); err != nil {
				return fmt.Errorf("start %s at height %d: %w", n.Name, n.StartAt, err)
			}
		}
		n.mu.Lock()
		opts := n.opts
		n.mu.Unlock()
		if err := n.start(opts); err != nil {
			return fmt.Errorf("start %s at height %d: %w", n.Name, n.StartAt, err)
		}
		t.logger.Debug("late node started", "node", n.Name, "pid", n.PID(), "network_height", h)
		t0 := time.Now()
		if _, err := WaitHeight(ctx, []HeightReader{n.RPC}, n.StartAt, CatchUpWait); err != nil {
			if exited, xerr := n.Exited(); exited {
				return fmt.Errorf("late node %s exited while catching up (%v); end of %s:\n%s", n.Name, xerr, n.LogPath, indent(n.LogTail(15)))
			}
			return fmt.Errorf("late node %s did not catch up to height %d: %w", n.Name, n.StartAt, err)
		}
		ls.CaughtUp = time.Since(t0)
		if st, err := n.RPC.Status(ctx); err == nil {
			ls.Earliest = int64(st.SyncInfo.EarliestBlockHeight)
		}
		if started != nil {
			started(ls)
		}
		running = append(running, n.RPC)
	}
	return nil
}

// trust writes a state-syncing node's trusted height and hash: the
// latest height of the first of the nodes running since the start that
// answers, and its block's hash from /commit.
func trust(ctx context.Context, n *Node, from []*Node) (int64, error) {
	var last error
	for _, o := range from {
		h, err := o.RPC.Height(ctx)
		if err != nil {
			last = err
			continue
		}
		hash, err := o.RPC.CommitHash(ctx, h)
		if err != nil {
			last = err
			continue
		}
		if err := cometbft.SetStateSyncTrust(n.Dir, h, hash); err != nil {
			return 0, err
		}
		return h, nil
	}
	return 0, fmt.Errorf("no trusted height and hash for state sync: %w", last)
}

// WaitHeight polls the nodes' heights until one of them is at least h and
// returns the highest seen; after timeout (or when ctx ends) the error
// gives the highest height seen and the last RPC error.
func WaitHeight(ctx context.Context, nodes []HeightReader, h int64, timeout time.Duration) (int64, error) {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(heightPoll)
	defer tick.Stop()
	var top int64
	var last error
	for {
		for _, r := range nodes {
			got, err := r.Height(ctx)
			if err != nil {
				last = err
				continue
			}
			top = max(top, got)
		}
		if top >= h {
			return top, nil
		}
		select {
		case <-ctx.Done():
			if parent.Err() != nil {
				return top, parent.Err()
			}
			err := fmt.Errorf("height %d not reached within %s (highest seen %d)", h, timeout, top)
			if last != nil {
				err = fmt.Errorf("%w; last RPC error: %v", err, last)
			}
			return top, err
		case <-tick.C:
		}
	}
}
