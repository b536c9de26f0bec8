package experiment

import "github.com/cometlab/cometlab/internal/results"

// problemKind says what went wrong in a run; the run's status follows from
// the kinds of its problems (statusOf).
type problemKind int

const (
	// Kinds that leave what was gathered usable: the run ends partial.
	problemInterrupted  problemKind = iota + 1 // Ctrl-C or SIGTERM
	problemNodeDied                            // a node exited on its own (not a perturbation)
	problemNotDrained                          // mempools not empty after the drain timeout
	problemDiskGuard                           // the disk guard stopped the load
	problemLoad                                // the generator ended with an error
	problemPerturbation                        // a perturbation step failed
	problemRotation                            // an ephemeral node's rotation failed
	problemSentinel                            // the sentinel did not stop cleanly
	problemPrometheus                          // metrics.csv could not be read from a Prometheus server
	problemEvents                              // events.csv could not be written
	problemEvidence                            // the evidence could not be injected
	// Kinds that make the run's record untrustworthy: the run fails.
	problemCollector // a collector's file could not be written (named)
	problemRun       // any error that ended the run
)

// problem is one thing that went wrong in a run, kept typed in memory and
// turned into a string only when run.json is written.
type problem struct {
	kind problemKind
	node string // the node concerned, "" for the run as a whole
	err  error
}

func (p problem) String() string { return p.err.Error() }

// fails says whether a problem of kind k fails the run (rather than leaving
// it partial).
func (k problemKind) fails() bool { return k == problemCollector || k == problemRun }

// statusOf is the status of a run that ended with these problems: failed
// when one of them fails runs, partial when there is any other, else
// complete.
func statusOf(ps []problem) string {
	status := results.StatusComplete
	for _, p := range ps {
		if p.kind.fails() {
			return results.StatusFailed
		}
		status = results.StatusPartial
	}
	return status
}

// fail records a problem of kind k with err: in memory, and as a string in
// run.json's errors (through set).
func (rd *runDir) fail(k problemKind, node string, err error) {
	p := problem{kind: k, node: node, err: err}
	rd.mu.Lock()
	rd.problems = append(rd.problems, p)
	rd.mu.Unlock()
	rd.set(func(r *results.Run) { r.Errors = append(r.Errors, p.String()) })
}

// failIf records err as a problem of kind k when it is not nil.
func (rd *runDir) failIf(k problemKind, err error) {
	if err != nil {
		rd.fail(k, "", err)
	}
}

// status is the status the run's problems so far give it.
func (rd *runDir) status() string {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	return statusOf(rd.problems)
}
