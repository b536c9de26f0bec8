package testnet

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/cometlab/cometlab/internal/results"
)

// ErrNotRunning is returned by the perturbations that need a running
// process when the node has none.
var ErrNotRunning = errors.New("node process not running")

// event records kind for n now (nothing when no sink was given).
func (n *Node) event(kind, detail string) { n.eventAt(time.Now(), kind, detail) }

func (n *Node) eventAt(at time.Time, kind, detail string) {
	n.mu.Lock()
	sink := n.opts.Events
	n.mu.Unlock()
	if sink != nil {
		sink(results.Event{At: at.UnixNano(), Node: n.Name, Kind: kind, Detail: detail})
	}
}

// running returns the node's process and its done channel when it runs.
func (n *Node) running() (*os.Process, chan struct{}, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cmd == nil || n.done == nil {
		return nil, nil, fmt.Errorf("%s: %w", n.Name, ErrNotRunning)
	}
	select {
	case <-n.done:
		return nil, nil, fmt.Errorf("%s: %w", n.Name, ErrNotRunning)
	default:
	}
	return n.cmd.Process, n.done, nil
}

// Kill sends the node SIGKILL and waits until the process is reaped.
func (n *Node) Kill() error {
	p, done, err := n.running()
	if err != nil {
		return err
	}
	n.mu.Lock()
	n.expected, n.paused = true, false
	n.mu.Unlock()
	n.event(results.EventKill, "SIGKILL")
	if err := p.Signal(syscall.SIGKILL); err != nil {
		return fmt.Errorf("%s: kill: %w", n.Name, err)
	}
	<-done
	return nil
}

// Terminate sends the node SIGTERM and waits until it exits, sending
// SIGKILL after grace.
func (n *Node) Terminate(grace time.Duration) error {
	if _, _, err := n.running(); err != nil {
		return err
	}
	n.event(results.EventTerm, "SIGTERM")
	n.stop(grace)
	return nil
}

// Pause stops the node's process with SIGSTOP: it stays alive but answers
// nothing until Resume. It returns once every thread of the process has
// stopped (an error after 2 s if one has not).
func (n *Node) Pause() error {
	p, _, err := n.running()
	if err != nil {
		return err
	}
	n.event(results.EventPause, "SIGSTOP")
	if err := p.Signal(syscall.SIGSTOP); err != nil {
		return fmt.Errorf("%s: pause: %w", n.Name, err)
	}
	n.mu.Lock()
	n.paused = true
	n.mu.Unlock()
	if err := waitStopped(procRoot, p.Pid, 2*time.Second); err != nil {
		return fmt.Errorf("%s: pause: %w", n.Name, err)
	}
	return nil
}

// Resume continues a paused node with SIGCONT.
func (n *Node) Resume() error {
	p, _, err := n.running()
	if err != nil {
		return err
	}
	if err := p.Signal(syscall.SIGCONT); err != nil {
		return fmt.Errorf("%s: resume: %w", n.Name, err)
	}
	n.mu.Lock()
	n.paused = false
	n.mu.Unlock()
	n.event(results.EventResume, "SIGCONT")
	return nil
}

// Restart starts the node's home again, as Start first did, after its
// process has ended; an ephemeral node that Start left out is started the
// first time.
func (n *Node) Restart() error {
	n.mu.Lock()
	opts, done := n.opts, n.done
	n.mu.Unlock()
	switch {
	case done == nil && opts.LogDir == "":
		return fmt.Errorf("%s: the testnet was never started", n.Name)
	case done != nil:
		select {
		case <-done:
		default:
			return fmt.Errorf("%s: still running", n.Name)
		}
	}
	if err := n.start(opts); err != nil {
		return fmt.Errorf("restart %s: %w", n.Name, err)
	}
	return nil
}

// Upgrade makes the node's next start run release version's cometbft
// binary on the same home (a rolling upgrade); the node must not be
// running. Its start events then name the release and the binary: "pid
// N, cometbft v1.0.1 /path/to/cometbft".
func (n *Node) Upgrade(version, binary string) error {
	if _, _, err := n.running(); err == nil {
		return fmt.Errorf("%s: upgrade a running node", n.Name)
	}
	if binary == "" {
		return fmt.Errorf("%s: upgrade to %s: no binary", n.Name, version)
	}
	n.mu.Lock()
	n.release, n.Binary = version, binary
	n.mu.Unlock()
	return nil
}

// Wipe deletes the node's data directory (blocks, state, WAL, address
// book) but keeps its keys, its config and its validator's last-signed
// state (data/priv_validator_state.json, so that a validator never signs
// twice at a height), as `cometbft unsafe-reset-all` does without
// resetting the signing state. The node must not be running; it rejoins by
// block sync when restarted.
func (n *Node) Wipe() error {
	if _, _, err := n.running(); err == nil {
		return fmt.Errorf("%s: wipe a running node", n.Name)
	}
	data := filepath.Join(n.Dir, "data")
	state := filepath.Join(data, "priv_validator_state.json")
	keep, err := os.ReadFile(state)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s: wipe: %w", n.Name, err)
	}
	if err := os.RemoveAll(data); err != nil {
		return fmt.Errorf("%s: wipe: %w", n.Name, err)
	}
	if err := os.MkdirAll(data, 0o700); err != nil {
		return fmt.Errorf("%s: wipe: %w", n.Name, err)
	}
	if keep != nil {
		if err := os.WriteFile(state, keep, 0o600); err != nil {
			return fmt.Errorf("%s: wipe: %w", n.Name, err)
		}
	}
	n.event(results.EventWipe, "deleted "+data)
	return nil
}

// State is a node process's condition, for the phases that talk to nodes.
type State struct {
	Running  bool      // a process runs (it may be paused)
	Paused   bool      // stopped by SIGSTOP
	Exited   bool      // it ran and ended
	ExitAt   time.Time // when it ended
	Status   string    // how it ended: "exit code N", "signal N"
	Expected bool      // cometlab stopped or killed it on purpose
}

// State returns the node's current state.
func (n *Node) State() State {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.done == nil {
		return State{}
	}
	select {
	case <-n.done:
		return State{Exited: true, ExitAt: n.exitAt, Status: ExitStatus(n.err), Expected: n.expected}
	default:
		return State{Running: true, Paused: n.paused}
	}
}

// Down reports whether the node cannot answer now (not running, or
// paused), and why in words; times are given in seconds since t0.
func (s State) Down(t0 time.Time) (bool, string) {
	switch {
	case s.Paused:
		return true, "paused"
	case s.Exited:
		how := s.Status
		if len(how) > 7 && how[:7] == "signal " {
			how = "killed by " + how
		} else {
			how = "with " + how
		}
		return true, fmt.Sprintf("exited at %.1f s, %s", s.ExitAt.Sub(t0).Seconds(), how)
	case !s.Running:
		return true, "not started"
	}
	return false, ""
}
