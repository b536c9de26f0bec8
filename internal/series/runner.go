package series

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/cometlab/cometlab/internal/analysis"
	"github.com/cometlab/cometlab/internal/exitcode"
	"github.com/cometlab/cometlab/internal/experiment"
	"github.com/cometlab/cometlab/internal/manifest"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/saturation"
)

// Env is what running the runs of a series needs, besides what to run:
// the environment and what every run collects.
type Env struct {
	experiment.Env
	experiment.Collect
	// AfterRun, when set, is called after each run is recorded, with the
	// number of runs made so far by this call (tests interrupt with it).
	AfterRun func(n int)
	// MaxRemeasures bounds the disturbed runs a series measures again: 0
	// is the policy's budget (a fifth of the planned runs, at least 2), a
	// negative number none (each disturbed run is kept and recorded so).
	// Tests whose runs share the host with other tests set it negative.
	MaxRemeasures int
	// Exec, when set, stands in for the runner's run in every series made
	// with this environment: a series of fake runs, for the tests of this
	// package and of the modes built on it.
	Exec func(ctx context.Context, m manifest.Resolved, dir string) Outcome
}

// Outcome is what one run of a series produced: its status, what ended
// it, and the criterion's evidence and verdict (nil when it has none).
type Outcome struct {
	Status   string // the run's status, or StatusInterrupted
	Err      error  // what ended the run, or why it has no evidence
	Evidence *saturation.Evidence
	Verdict  *saturation.Verdict
}

// runner runs the runs of one series (experiment.Runs: on fresh testnets
// or a shared one) and judges each with the series' criterion.
type runner struct {
	env  Env
	out  *experiment.Printer
	runs *experiment.Runs
	crit saturation.Criterion
}

// run runs one experiment with manifest m in the run directory dir and
// judges it. ctx ending interrupts it.
func (rn *runner) run(ctx context.Context, m manifest.Resolved, dir string) Outcome {
	res, err := rn.runs.Run(ctx, m, dir)
	o := Outcome{Status: res.Run.Status, Err: err}
	if ctx.Err() != nil {
		o.Status = results.StatusInterrupted
		return o
	}
	if o.Status == "" || o.Status == results.StatusRunning {
		o.Status = results.StatusFailed
	}
	if why := res.StoppedForDisk(); why != "" {
		// Its load was cut short for want of disk, not by the testnet: no
		// evidence of saturation, and the runs after it would be cut too.
		o.Status, o.Err = results.StatusFailed, exitcode.With(errors.New(why), exitcode.Failed)
		return o
	}
	ev, eerr := gatherEvidence(rn.crit, dir, res.Summary, nil) // the drain is run.json's
	if eerr != nil {
		if o.Err == nil && o.Status != results.StatusFailed {
			o.Err = eerr
		}
		o.Status = results.StatusFailed
		v := saturation.Verdict{Checks: []saturation.Check{{Name: saturation.CheckRun, Detail: "no evidence: " + eerr.Error()}}}
		o.Verdict = &v
		return o
	}
	v := rn.crit.Judge(ev)
	o.Evidence, o.Verdict = &ev, &v
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

// SetAside moves the run directory of an interrupted (or retried) run out
// of the way, to dir.interrupted (replacing an older one), so that the run
// can be made again in dir.
func SetAside(dir string) error { return setAsideAs(dir, ".interrupted") }

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

// Message is the outcome's error as a record states it ("" for none).
func (o Outcome) Message() string {
	if o.Err == nil {
		return ""
	}
	return o.Err.Error()
}

// describeOutcome is the one-line summary of a finished run.
func describeOutcome(o Outcome) string {
	if o.Evidence == nil || o.Verdict == nil {
		return fmt.Sprintf("%s: %s", o.Status, o.Message())
	}
	ev := o.Evidence
	s := fmt.Sprintf("%s: committed %.0f of %.0f", o.Status, ev.CommittedTxs, ev.ExpectedTxs)
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
	if o.Verdict.Pass {
		return s + " — pass"
	}
	return s + fmt.Sprintf(" — SATURATED (%v)", o.Verdict.Failed())
}
