package experiment

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/google/uuid"

	"github.com/cometlab/cometlab/internal/collect"
	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/links"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/rpc"
	"github.com/cometlab/cometlab/internal/saturation"
	"github.com/cometlab/cometlab/internal/testnet"
)

// sharedNet is a testnet kept up across the runs of a sweep or search in
// reuse mode. Its homes and logs are under dir.
type sharedNet struct {
	key       string // testnetKey of the manifests it serves
	dir       string
	tn        *testnet.Testnet
	nodes     []results.Node
	endpoints []collect.Endpoint
	version   string // as the nodes report it
	runs      int
	links     *links.Links // nil for direct links
}

// startShared generates and starts the testnet of m under dir and waits
// until every node advances.
func (rn *runner) startShared(ctx context.Context, m manifest.Resolved, dir string) (*sharedNet, error) {
	if err := localOnly(m); err != nil {
		return nil, err
	}
	spec, err := testnetSpec(ctx, m, rn.env.Fetcher, "cometlab-"+uuid.NewString()[:8])
	if err != nil {
		return nil, err
	}
	lk := relays(m, &spec, rn.env.Logger)
	homes, err := cometbft.Generate(ctx, filepath.Join(dir, results.NodesDir), spec)
	if err != nil {
		if lk != nil {
			lk.Close()
		}
		return nil, fmt.Errorf("generate node homes: %w", err)
	}
	s := &sharedNet{key: testnetKey(m), dir: dir, tn: testnet.New(homes, rn.env.Logger), links: lk}
	s.nodes, s.endpoints = nodeRecords(m, homes)
	rn.out.Phase("reuse: starting a shared testnet of %d nodes in %s", len(homes), dir)
	if err := s.tn.Start(testnet.Options{LogDir: filepath.Join(dir, results.LogsDir)}); err != nil {
		return nil, err
	}
	if err := waitStarted(ctx, s.tn, rn.env.StartTimeout); err != nil {
		s.stop()
		return nil, fmt.Errorf("testnet start: %w", err)
	}
	s.version = m.CometBFTVersion
	if t := s.tn.Node(m.Load.Target); t != nil {
		if st, err := t.RPC.Status(ctx); err == nil {
			s.version = reportedVersion(m, st.NodeInfo.Version)
		}
	}
	return s, nil
}

func (s *sharedNet) stop() {
	s.tn.Stop(10 * time.Second)
	if s.links != nil {
		s.links.Close()
	}
}

// alive reports whether every node process still runs.
func (s *sharedNet) alive() bool {
	for _, n := range s.tn.Nodes {
		if done, _ := n.Exited(); done {
			return false
		}
	}
	return true
}

// settle waits until every mempool is empty (at most drainTimeout), then
// for the cool-down, then until every node advances again.
func (s *sharedNet) settle(ctx context.Context, out *printer, drainTimeout, coolDown time.Duration) error {
	start := time.Now()
	for {
		left := int64(0)
		for _, e := range s.endpoints {
			cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			k, err := rpc.New(e.Addr).UnconfirmedTxs(cctx)
			cancel()
			if err != nil {
				return fmt.Errorf("node %s: %w", e.Name, err)
			}
			left += k
		}
		if left == 0 {
			break
		}
		if time.Since(start) > drainTimeout {
			out.Phase("reuse: %d transactions still in the mempools after %s; going on", left, drainTimeout)
			break
		}
		if err := sleepCtx(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
	out.Phase("reuse: mempools empty; cooling down for %s", coolDown)
	if err := sleepCtx(ctx, coolDown); err != nil {
		return err
	}
	return s.tn.WaitHealthy(ctx, 60*time.Second)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// runShared runs m on the shared testnet (starting one when there is none
// for m's testnet settings, or the last one died), in the run directory
// dir: the same run directory as a fresh run's, but its nodes' homes and
// logs are the shared testnet's.
func (rn *runner) runShared(ctx context.Context, m manifest.Resolved, dir string) (Result, *saturation.Drain, error) {
	out := rn.out
	if s := rn.shared; s != nil && (s.key != testnetKey(m) || !s.alive()) {
		s.stop()
		rn.shared = nil
	}
	if s := rn.shared; s != nil {
		if err := s.settle(ctx, out, m.Load.DrainTimeout, rn.coolDown); err != nil {
			s.stop()
			rn.shared = nil
			if ctx.Err() != nil {
				return Result{}, nil, err
			}
			out.Phase("reuse: the shared testnet is unhealthy (%v); starting a new one", err)
		}
	}
	st := beginRun(dir, rn.env.Hard, rn.env.Logger)
	rd, err := st.createOnTestnet(rn.env.Version, m)
	if err != nil {
		return Result{}, nil, err
	}
	out.Phase("run %s → %s (shared testnet)", st.id, dir)
	if rn.shared == nil {
		// A fresh directory: a resumed sweep finds the old testnets' there.
		tdir := ""
		for tdir == "" || exists(tdir) {
			rn.sharedN++
			tdir = filepath.Join(rn.root, "testnets", fmt.Sprintf("t%d", rn.sharedN))
		}
		s, err := rn.startShared(ctx, m, tdir)
		if err != nil {
			res, err := finish(ctx, rd, out, err, false)
			return res, nil, err
		}
		rn.shared = s
	}
	s := rn.shared
	s.runs++
	nodes := make([]results.Node, len(s.nodes))
	for i, n := range s.nodes {
		n.Home = relDir(dir, n.Home)
		nodes[i] = n
	}
	target := s.tn.Node(m.Load.Target)
	if target == nil {
		res, err := finish(ctx, rd, out, fmt.Errorf("load target %q is not a node of the testnet", m.Load.Target), false)
		return res, nil, err
	}
	ep := rpc.WSAddr(target.RPCAddr())
	rd.set(func(r *results.Run) { r.Nodes, r.CometBFTVersion, r.Endpoint = nodes, s.version, ep })

	wctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	drained := make(chan *saturation.Drain, 1)
	go func() { drained <- watchDrain(wctx, dir, m.Load.DrainTimeout+5*time.Second) }()
	lp := &loadPhase{rd: rd, out: out, logger: st.logger, id: st.id, work: m.Load, endpoint: ep,
		target: target.RPC, nodes: s.endpoints, readback: true, sentinelCfg: m.Sentinel}
	runErr := lp.run(ctx, st.hard)
	// The round trips its relays measured so far: its p2p connections
	// opened when it started, perhaps in an earlier run, or since.
	if s.links != nil {
		recordRoundTrips(rd, s.links)
	}
	res, err := finish(ctx, rd, out, runErr, true)
	stop()
	d := <-drained
	if errors.Is(err, context.Canceled) && ctx.Err() == nil {
		err = nil
	}
	return res, d, err
}

// closeShared stops the shared testnet, if any.
func (rn *runner) closeShared() {
	if rn.shared != nil {
		rn.out.Phase("reuse: stopping the shared testnet")
		rn.shared.stop()
		rn.shared = nil
	}
}
