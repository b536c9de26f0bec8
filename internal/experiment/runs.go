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

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
)

// Runs makes the runs of a series one at a time: each on a fresh testnet
// (Run's), or, with Reuse, on one testnet shared by consecutive runs whose
// testnet settings agree (testnetKey), started under Root/testnets/tN and
// readied between runs (settle: the mempools drained, CoolDown waited,
// every node advancing). A series' package decides what to run and judges
// it; Runs only runs.
type Runs struct {
	Env
	Collect
	Out      *Printer
	Reuse    bool
	CoolDown time.Duration
	Root     string // the series' directory: shared testnets go under it

	shared  *localNet // Reuse: the testnet of the last run
	sharedN int       // testnets started so far (Reuse)
}

// Refuse says what a series of runs like m cannot honour (on fresh
// testnets, or a shared one with reuse), before anything starts: the
// refusals Run would make at its start, made once for the whole series.
func Refuse(m manifest.Resolved, reuse bool) error {
	if err := checkFixedScale(m); err != nil {
		return err
	}
	return checkLocal(m, netModeOf(reuse))
}

// Run runs m in the run directory dir. A run that the disk guard would
// stop at once is refused (it would measure nothing).
func (r *Runs) Run(ctx context.Context, m manifest.Resolved, dir string) (Result, error) {
	if err := checkFixedScale(m); err != nil { // a cell of --set time_scale=auto,…
		return Result{}, err
	}
	if err := checkDiskRoom(dir, r.MinFreeDisk); err != nil {
		return Result{}, err
	}
	if r.Reuse {
		return r.runShared(ctx, m, dir)
	}
	return Run(ctx, Options{Manifest: m, Dir: dir, Env: r.Env, Collect: r.Collect})
}

// Close stops the shared testnet, if any.
func (r *Runs) Close() {
	if r.shared != nil {
		r.Out.Phase("reuse: stopping the shared testnet")
		r.shared.stop()
		r.shared = nil
	}
}

// StoppedForDisk is the disk guard's reason when it cut the run's load
// short for want of disk ("" when it did not): such a run has no evidence
// of saturation, and the runs after it would be cut too.
func (res Result) StoppedForDisk() string { return stoppedByDiskGuard(res.Run.Errors) }

// runShared runs m on the shared testnet (starting one when there is none
// for m's testnet settings, or the last one died), in the run directory
// dir: the same run directory, collectors and death watch as a fresh
// run's, but its nodes' homes and logs are the shared testnet's.
func (r *Runs) runShared(ctx context.Context, m manifest.Resolved, dir string) (Result, error) {
	out := r.Out
	if err := checkLocal(m, netShared); err != nil {
		return Result{}, err
	}
	if ln := r.shared; ln != nil && (ln.m.TestnetKey() != m.TestnetKey() || !ln.alive()) {
		ln.stop()
		r.shared = nil
	}
	if ln := r.shared; ln != nil {
		k := m.TimeScale // the shared testnet's: testnetKey tells scales apart
		if err := settle(ctx, ln, out, scaledTimeout(m.Load.DrainTimeout, 0, k), scaledTimeout(r.CoolDown, 0, k)); err != nil {
			ln.stop()
			r.shared = nil
			if ctx.Err() != nil {
				return Result{}, err
			}
			out.Phase("reuse: the shared testnet is unhealthy (%v); starting a new one", err)
		}
	}
	st := beginRun(dir, r.Hard, r.Logger)
	rd, err := st.createOnTestnet(r.Version, m)
	if err != nil {
		return Result{}, err
	}
	out.Phase("run %s → %s (shared testnet)", st.id, dir)
	events, err := newEventLog(rd.path(results.EventsFile), st.logger)
	if err != nil {
		return finish(ctx, rd, out, err, nil)
	}
	w := &runWatch{rd: rd, out: out, events: events}
	if r.shared == nil {
		// A fresh directory: a resumed sweep finds the old testnets' there.
		tdir := ""
		for tdir == "" || exists(tdir) {
			r.sharedN++
			tdir = filepath.Join(r.Root, "testnets", fmt.Sprintf("t%d", r.sharedN))
		}
		out.Phase("reuse: starting a shared testnet in %s", tdir)
		ln, err := startLocal(ctx, m, netOptions{mode: netShared, dir: tdir, env: r.Env,
			chainID: "cometlab-" + uuid.NewString()[:8], out: out})
		if err != nil {
			events.close(rd)
			return finish(ctx, rd, out, err, nil)
		}
		r.shared = ln
	}
	ln := r.shared
	recordCode(rd, ln.spec)
	ln.runs++
	ln.observe(w.watch())
	p, runErr := onNet(ctx, st, rd, out, ln, m, r.Collect, w)
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

// settle readies the shared testnet for the next run: it waits until
// every mempool is empty (at most drainTimeout), then for the cool-down,
// then until every node advances again.
func settle(ctx context.Context, ln *localNet, out *Printer, drainTimeout, coolDown time.Duration) error {
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

// CheckFixedScale refuses time_scale = "auto" in a series' runs: they are
// judged at one scale, chosen before the series.
func CheckFixedScale(ms ...manifest.Resolved) error { return checkFixedScale(ms...) }

// CheckSideScales refuses sides of one experiment at different time
// scales, unless allow.
func CheckSideScales(sides []manifest.Resolved, labels []string, allow bool) error {
	return checkSideScales(sides, labels, allow)
}

// HostInfo describes this host for a series' record.
func HostInfo() results.Host { return hostInfo() }

// BuildPrograms builds (or finds in the cache) every program a testnet of
// m runs, as Run would, without starting anything: so that the tests, which
// build before they take the node lock, hold up no other package's node tests.
func BuildPrograms(ctx context.Context, m manifest.Resolved, f *cometbft.Fetcher) error {
	_, err := testnetSpec(ctx, m, f, "build")
	return err
}
