package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/rpc"
	"github.com/cometlab/cometlab/internal/saturation"
)

// CellEnv is what running the runs of a sweep or a saturation search
// needs, besides what to run.
type CellEnv struct {
	Fetcher *cometbft.Fetcher
	// Out receives progress: the sweep's own lines and each run's.
	Out    io.Writer
	Logger *slog.Logger
	// Version is cometlab's own version, recorded in every run.json.
	Version      string
	StartTimeout time.Duration
	// Hard ends a run's read-back and clean-up too (a second interrupt).
	Hard context.Context
	// AfterRun, when set, is called after each run is recorded, with the
	// number of runs made so far by this call (tests interrupt with it).
	AfterRun func(n int)
}

// cellOutcome is what one run of a sweep or search produced.
type cellOutcome struct {
	status   string // the run's status, or StatusInterrupted
	err      string
	evidence *saturation.Evidence
	verdict  *saturation.Verdict
}

// runner runs the cells or steps of one sweep or search, on fresh
// testnets or on shared ones.
type runner struct {
	env      CellEnv
	out      *printer
	reuse    bool
	coolDown time.Duration
	crit     saturation.Criterion
	shared   *sharedNet // reuse mode: the testnet of the last run
	sharedN  int        // testnets started in reuse mode
	root     string     // the sweep or search directory (reuse mode puts testnets under it)
}

// run runs one experiment with manifest m in the run directory dir and
// judges it. ctx ending interrupts it.
func (rn *runner) run(ctx context.Context, m manifest.Resolved, dir string) cellOutcome {
	var res Result
	var polled *saturation.Drain
	var err error
	if rn.reuse && (len(m.Perturbations) > 0 || m.Rotate != nil) {
		err = errors.New("perturbations and rotation need a testnet of their own: a shared testnet (--reuse-testnet) cannot be perturbed")
	} else if rn.reuse {
		res, polled, err = rn.runShared(ctx, m, dir)
	} else {
		res, polled, err = rn.runFresh(ctx, m, dir)
	}
	o := cellOutcome{status: res.Run.Status}
	if err != nil {
		o.err = err.Error()
	}
	if ctx.Err() != nil {
		o.status = results.StatusInterrupted
		return o
	}
	if o.status == "" || o.status == results.StatusRunning {
		o.status = results.StatusFailed
	}
	ev, eerr := gatherEvidence(rn.crit, dir, res.Summary, polled)
	if eerr != nil {
		if o.err == "" && o.status != results.StatusFailed {
			o.err = eerr.Error()
		}
		if o.status != results.StatusFailed {
			o.status = results.StatusFailed
		}
		v := saturation.Verdict{Checks: []saturation.Check{{Name: saturation.CheckRun, Detail: "no evidence: " + eerr.Error()}}}
		o.verdict = &v
		return o
	}
	v := rn.crit.Judge(ev)
	o.evidence, o.verdict = &ev, &v
	return o
}

// runFresh runs m on a testnet of its own (experiment.Run), polling the
// mempools for the drain time meanwhile.
func (rn *runner) runFresh(ctx context.Context, m manifest.Resolved, dir string) (Result, *saturation.Drain, error) {
	wctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	drained := make(chan *saturation.Drain, 1)
	go func() { drained <- watchDrain(wctx, dir, m.Load.DrainTimeout+5*time.Second) }()
	res, err := Run(ctx, Options{Manifest: m, Dir: dir, Fetcher: rn.env.Fetcher, Out: rn.env.Out, Logger: rn.env.Logger,
		Version: rn.env.Version, StartTimeout: rn.env.StartTimeout, Hard: rn.env.Hard})
	stop()
	return res, <-drained, err
}

// watchDrain follows the run directory dir while a run works in it: once
// run.json names the nodes and the end of the load, it polls every
// non-seed node's num_unconfirmed_txs every 200 ms until all are 0
// (Drained, Seconds after the load end), the nodes stop answering, limit
// passes after the load end, or ctx ends (not Drained, Seconds as far as
// it watched). It returns nil when it never saw the load end.
func watchDrain(ctx context.Context, dir string, limit time.Duration) *saturation.Drain {
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	var nodes []*rpc.Client
	var loadEnd, lastOK time.Time
	for {
		if loadEnd.IsZero() {
			if run, err := results.ReadRun(dir); err == nil && !run.LoadEnd.IsZero() {
				loadEnd = run.LoadEnd
				for _, n := range run.Nodes {
					if n.Mode != manifest.ModeSeed {
						nodes = append(nodes, rpc.New(n.RPC))
					}
				}
			}
		}
		if !loadEnd.IsZero() && len(nodes) > 0 {
			empty, answered := true, true
			for _, c := range nodes {
				cctx, cancel := context.WithTimeout(ctx, time.Second)
				k, err := c.UnconfirmedTxs(cctx)
				cancel()
				if err != nil {
					answered = false
					break
				}
				empty = empty && k == 0
			}
			now := time.Now()
			switch {
			case answered && empty:
				return &saturation.Drain{Seconds: max(0, now.Sub(loadEnd).Seconds()), Drained: true, Source: saturation.DrainFromRPC}
			case answered:
				lastOK = now
			case !lastOK.IsZero():
				// The nodes stopped before their mempools emptied.
				return &saturation.Drain{Seconds: lastOK.Sub(loadEnd).Seconds(), Source: saturation.DrainFromRPC}
			}
			if now.Sub(loadEnd) > limit {
				return &saturation.Drain{Seconds: now.Sub(loadEnd).Seconds(), Source: saturation.DrainFromRPC}
			}
		}
		select {
		case <-ctx.Done():
			if loadEnd.IsZero() || lastOK.IsZero() {
				return nil
			}
			return &saturation.Drain{Seconds: lastOK.Sub(loadEnd).Seconds(), Source: saturation.DrainFromRPC}
		case <-t.C:
		}
	}
}

// gatherEvidence reads the run directory dir and returns the criterion's
// evidence; sum is the run's summary when it was computed (else it is
// computed here).
func gatherEvidence(crit saturation.Criterion, dir string, sum analysis.Summary, polled *saturation.Drain) (saturation.Evidence, error) {
	in, err := analysis.ReadInput(dir)
	if err != nil {
		return saturation.Evidence{}, err
	}
	if sum.Metrics == nil {
		sum = analysis.Summarize(in)
	}
	metrics, err := results.ReadMetrics(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return saturation.Evidence{}, fmt.Errorf("read %s: %w", results.MetricsFile, err)
	}
	return saturation.EvidenceOf(crit, in, sum, metrics, polled), nil
}

// setAside moves the run directory of an interrupted (or retried) run out
// of the way, to dir.interrupted (replacing an older one), so that the run
// can be made again in dir.
func setAside(dir string) error {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	old := dir + ".interrupted"
	if err := os.RemoveAll(old); err != nil {
		return err
	}
	return os.Rename(dir, old)
}

// describeOutcome is the one-line summary of a finished run.
func describeOutcome(o cellOutcome) string {
	if o.evidence == nil || o.verdict == nil {
		return fmt.Sprintf("%s: %s", o.status, o.err)
	}
	ev := o.evidence
	s := fmt.Sprintf("%s: committed %.0f of %.0f", o.status, ev.CommittedTxs, ev.ExpectedTxs)
	if ev.ThroughputRatio != nil {
		s += fmt.Sprintf(" (ratio %.4f)", *ev.ThroughputRatio)
	}
	if ev.CommittedTPS != nil {
		s += fmt.Sprintf(", %.0f tx/s", *ev.CommittedTPS)
	}
	if ev.LatencyMeanMS != nil && ev.LatencyP99MS != nil {
		s += fmt.Sprintf(", latency mean %.0f ms p99 %.0f ms", *ev.LatencyMeanMS, *ev.LatencyP99MS)
	}
	if o.verdict.Pass {
		return s + " — pass"
	}
	return s + fmt.Sprintf(" — SATURATED (%v)", o.verdict.Failed())
}

// relDir returns dir relative to root, slash-separated.
func relDir(root, dir string) string {
	if r, err := filepath.Rel(root, dir); err == nil {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(dir)
}
