package experiment

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/saturation"
)

// CellEnv is what running the runs of a sweep, a saturation search or an
// A/B needs, besides what to run: the environment and what every run
// collects.
type CellEnv struct {
	Env
	Collect
	// AfterRun, when set, is called after each run is recorded, with the
	// number of runs made so far by this call (tests interrupt with it).
	AfterRun func(n int)
	// MaxRemeasures bounds the disturbed runs a series measures again: 0
	// is the policy's budget (a fifth of the planned runs, at least 2), a
	// negative number none (each disturbed run is kept and recorded so).
	// Tests whose runs share the host with other tests set it negative.
	MaxRemeasures int
	// exec, when set, stands in for the runner's run in every series made
	// with this environment (tests: a series of fake runs).
	exec func(ctx context.Context, m manifest.Resolved, dir string) cellOutcome
}

// cellOutcome is what one run of a sweep or search produced.
type cellOutcome struct {
	status   string // the run's status, or StatusInterrupted
	err      error  // what ended the run, or why it has no evidence
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
	shared   *localNet // reuse mode: the testnet of the last run
	sharedN  int       // testnets started in reuse mode
	root     string    // the sweep or search directory (reuse mode puts testnets under it)
}

// run runs one experiment with manifest m in the run directory dir and
// judges it. ctx ending interrupts it.
func (rn *runner) run(ctx context.Context, m manifest.Resolved, dir string) cellOutcome {
	var res Result
	err := checkFixedScale(m) // a cell of --set time_scale=auto,…
	if err == nil {
		err = checkDiskRoom(dir, rn.env.MinFreeDisk) // a run the guard would stop at once measures nothing
	}
	switch {
	case err != nil:
	case rn.reuse:
		res, err = rn.runShared(ctx, m, dir)
	default:
		res, err = Run(ctx, Options{Manifest: m, Dir: dir, Env: rn.env.Env, Collect: rn.env.Collect})
	}

	o := cellOutcome{status: res.Run.Status}
	if err != nil {
		o.err = err
	}
	if ctx.Err() != nil {
		o.status = results.StatusInterrupted
		return o
	}
	if o.status == "" || o.status == results.StatusRunning {
		o.status = results.StatusFailed
	}
	if why := stoppedByDiskGuard(res.Run.Errors); why != "" {
		// Its load was cut short for want of disk, not by the testnet: no
		// evidence of saturation, and the runs after it would be cut too.
		o.status, o.err = results.StatusFailed, exitcode.With(errors.New(why), exitcode.Failed)
		return o
	}
	ev, eerr := gatherEvidence(rn.crit, dir, res.Summary, nil) // the drain is run.json's
	if eerr != nil {
		if o.err == nil && o.status != results.StatusFailed {
			o.err = eerr
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
func setAside(dir string) error { return setAsideAs(dir, ".interrupted") }

// setAsideAs moves the run directory dir out of the way, to dir+suffix
// (replacing an older one).
func setAsideAs(dir, suffix string) error {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	old := dir + suffix
	if err := os.RemoveAll(old); err != nil {
		return err
	}
	return os.Rename(dir, old)
}

// message is the outcome's error as a record states it ("" for none).
func (o cellOutcome) message() string {
	if o.err == nil {
		return ""
	}
	return o.err.Error()
}

// describeOutcome is the one-line summary of a finished run.
func describeOutcome(o cellOutcome) string {
	if o.evidence == nil || o.verdict == nil {
		return fmt.Sprintf("%s: %s", o.status, o.message())
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
	if ev.Disturbed() {
		s += fmt.Sprintf(" [HOST BUSY: other work took %.0f %% of its CPU]", *ev.HostBusyPct)
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
