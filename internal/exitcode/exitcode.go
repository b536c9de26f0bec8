package exitcode

import "errors"

// The exit codes, documented in the README and in `cometlab --help`.
const (
	OK         = 0 // the run (or command) completed
	Failed     = 1 // the run (or command) failed; see the error and run.json
	Usage      = 2 // bad flags, manifest or arguments: nothing was run
	Partial    = 3 // the run finished but is partial (e.g. the mempools never drained)
	Regression = 4 // compare, ab: a metric is worse than the baseline; gate: worse than the history
	Unsafe     = 5 // a run's safety check found a violation (nodes disagreed, a tx committed twice, an accepted tx lost unexplained)
	// Insufficient is gate's "too few runs to judge": fewer earlier runs
	// of the series than the rule needs, for every judged figure.
	Insufficient = 6
	Interrupted  = 130 // interrupted (Ctrl-C or SIGTERM); what was gathered is on disk
)

// HasExitCode is an error that carries the code the process should exit
// with if the error ends it.
type HasExitCode interface {
	error
	ExitCode() int
}

// With returns err carrying code, or err itself when it carries a code
// already (the code given where the error was made wins over one added by
// a caller that wraps it), or nil when err is nil. The result's message is
// err's, and errors.Is and errors.As see through it to err.
func With(err error, code int) error {
	if err == nil {
		return nil
	}
	if _, ok := Of(err); ok {
		return err
	}
	return &coded{err, code}
}

// Of returns the code carried by err or by an error it wraps (the first
// that errors.As finds), and whether there is one.
func Of(err error) (int, bool) {
	var c HasExitCode
	if errors.As(err, &c) {
		return c.ExitCode(), true
	}
	return 0, false
}

// coded is an error with an exit code attached.
type coded struct {
	err  error
	code int
}

func (c *coded) Error() string { return c.err.Error() }
func (c *coded) Unwrap() error { return c.err }
func (c *coded) ExitCode() int { return c.code }
