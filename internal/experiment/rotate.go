package experiment

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/testnet"
)

// rotator runs the rotating-node test during the load: each ephemeral
// node, in a loop of its own, starts from an empty data directory,
// block-syncs, is declared caught up (a caught-up event), runs its dwell,
// and is stopped and wiped; until the load ends.
type rotator struct {
	rot    manifest.Rotation
	tn     *testnet.Testnet
	events func(results.Event)
	// tip returns the network's tip: the highest height a node that is not
	// ephemeral has committed.
	tip func() int64

	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	errs   []error
	rounds int
}

// caughtUpPoll is how often a syncing ephemeral node's status is asked.
const caughtUpPoll = 250 * time.Millisecond

// start starts one loop per ephemeral node; stop ends them.
func (r *rotator) start(ctx context.Context, latest interface{ Latest(string) int64 }) {
	if r.tip == nil {
		ephemeral := map[string]bool{}
		for _, n := range r.rot.Nodes {
			ephemeral[n] = true
		}
		r.tip = func() int64 {
			var top int64
			for _, n := range r.tn.Nodes {
				if !ephemeral[n.Name] {
					top = max(top, latest.Latest(n.Name))
				}
			}
			return top
		}
	}
	ctx, r.cancel = context.WithCancel(ctx)
	for _, name := range r.rot.Nodes {
		n := r.tn.Node(name)
		if n == nil {
			r.fail(fmt.Errorf("rotate: no node %s", name))
			continue
		}
		r.wg.Go(func() { r.loop(ctx, n) })
	}
}

// stop ends the rotation (at the load's end): every ephemeral node is
// stopped; it returns what went wrong.
func (r *rotator) stop(out *Printer) error {
	if r.cancel != nil {
		r.cancel()
	}
	r.wg.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	out.Phase("rotate: %d ephemeral nodes caught up %d times", len(r.rot.Nodes), r.rounds)
	return errors.Join(r.errs...)
}

func (r *rotator) loop(ctx context.Context, n *testnet.Node) {
	defer func() {
		if st := n.State(); st.Running {
			if err := n.Terminate(restartGrace); err != nil {
				r.fail(err)
			}
		}
	}()
	for ctx.Err() == nil {
		if err := r.round(ctx, n); err != nil {
			r.fail(err)
			return
		}
	}
}

// round runs one life of an ephemeral node: start, catch up, dwell, stop,
// wipe.
func (r *rotator) round(ctx context.Context, n *testnet.Node) error {
	start, tip0 := time.Now(), r.tip()
	if err := n.Restart(); err != nil {
		return err
	}
	h, err := r.waitCaughtUp(ctx, n)
	if err != nil {
		return err
	}
	if h > 0 {
		r.events(results.Event{At: time.Now().UnixNano(), Node: n.Name, Kind: results.EventCaughtUp,
			Detail: fmt.Sprintf("height %d after %.1f s (tip %d at start)", h, time.Since(start).Seconds(), tip0)})
		r.mu.Lock()
		r.rounds++
		r.mu.Unlock()
		sleepUntil(ctx, time.Now().Add(r.rot.Dwell))
	}
	if err := n.Terminate(restartGrace); err != nil {
		return err
	}
	return n.Wipe()
}

// waitCaughtUp waits until n reports catching_up = false at a height
// within 1 of the tip and returns that height; 0 when ctx ended first.
// A node that exits on its own is an error.
func (r *rotator) waitCaughtUp(ctx context.Context, n *testnet.Node) (int64, error) {
	t := time.NewTicker(caughtUpPoll)
	defer t.Stop()
	for {
		if st := n.State(); st.Exited {
			return 0, fmt.Errorf("rotate: %s exited while syncing (%s)", n.Name, st.Status)
		}
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		st, err := n.RPC.Status(cctx)
		cancel()
		if h := int64(st.SyncInfo.LatestBlockHeight); err == nil && !st.SyncInfo.CatchingUp && h > 0 && h >= r.tip()-1 {
			return h, nil
		}
		select {
		case <-ctx.Done():
			return 0, nil
		case <-t.C:
		}
	}
}

func (r *rotator) fail(err error) {
	r.mu.Lock()
	r.errs = append(r.errs, err)
	r.mu.Unlock()
}
