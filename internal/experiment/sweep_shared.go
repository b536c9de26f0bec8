package experiment

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
)

// settle readies the shared testnet for the next run: it waits until
// every mempool is empty (at most drainTimeout), then for the cool-down,
// then until every node advances again.
func settle(ctx context.Context, ln *localNet, out *printer, drainTimeout, coolDown time.Duration) error {
	d := drainMempools(ctx, ln.endpoints, nil, drainTimeout, out.Status)
	if err := ctx.Err(); err != nil {
		return err
	}
	if !d.Drained {
		out.Phase("reuse: the mempools still hold transactions after %s (%s); going on", drainTimeout, strings.TrimSpace(d.Left))
	}
	out.Phase("reuse: mempools empty; cooling down for %s", coolDown)
	if err := sleepCtx(ctx, coolDown); err != nil {
		return err
	}
	return ln.tn.WaitHealthy(ctx, 60*time.Second)
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
// dir: the same run directory, collectors and death watch as a fresh
// run's, but its nodes' homes and logs are the shared testnet's.
func (rn *runner) runShared(ctx context.Context, m manifest.Resolved, dir string) (Result, error) {
	out := rn.out
	if err := checkLocal(m, netShared); err != nil {
		return Result{}, err
	}
	if ln := rn.shared; ln != nil && (testnetKey(ln.m) != testnetKey(m) || !ln.alive()) {
		ln.stop()
		rn.shared = nil
	}
	if ln := rn.shared; ln != nil {
		k := m.TimeScale // the shared testnet's: testnetKey tells scales apart
		if err := settle(ctx, ln, out, scaledTimeout(m.Load.DrainTimeout, 0, k), scaledTimeout(rn.coolDown, 0, k)); err != nil {
			ln.stop()
			rn.shared = nil
			if ctx.Err() != nil {
				return Result{}, err
			}
			out.Phase("reuse: the shared testnet is unhealthy (%v); starting a new one", err)
		}
	}
	st := beginRun(dir, rn.env.Hard, rn.env.Logger)
	rd, err := st.createOnTestnet(rn.env.Version, m)
	if err != nil {
		return Result{}, err
	}
	out.Phase("run %s → %s (shared testnet)", st.id, dir)
	events, err := newEventLog(rd.path(results.EventsFile), st.logger)
	if err != nil {
		return finish(ctx, rd, out, err, nil)
	}
	w := &runWatch{rd: rd, out: out, events: events}
	if rn.shared == nil {
		// A fresh directory: a resumed sweep finds the old testnets' there.
		tdir := ""
		for tdir == "" || exists(tdir) {
			rn.sharedN++
			tdir = filepath.Join(rn.root, "testnets", fmt.Sprintf("t%d", rn.sharedN))
		}
		out.Phase("reuse: starting a shared testnet in %s", tdir)
		ln, err := startLocal(ctx, m, netOptions{mode: netShared, dir: tdir, env: rn.env.Env,
			chainID: "cometlab-" + uuid.NewString()[:8], out: out})
		if err != nil {
			events.close(rd)
			return finish(ctx, rd, out, err, nil)
		}
		rn.shared = ln
	}
	ln := rn.shared
	ln.runs++
	ln.observe(w.watch())
	p, runErr := onNet(ctx, st, rd, out, ln, m, rn.env.Collect, w)
	ln.observe(nil)
	recordRoundTrips(rd, ln)
	recordUDPRelays(rd, ln)
	events.close(rd) // before finish records the run's end
	res, err := finish(ctx, rd, out, runErr, p)
	if errors.Is(err, context.Canceled) && ctx.Err() == nil {
		err = nil
	}
	return res, err
}

// closeShared stops the shared testnet, if any.
func (rn *runner) closeShared() {
	if rn.shared != nil {
		rn.out.Phase("reuse: stopping the shared testnet")
		rn.shared.stop()
		rn.shared = nil
	}
}
