package testnet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/rpc"
)

// Node is one running (or stopped) node process.
type Node struct {
	cometbft.Home
	LogPath string
	RPC     *rpc.Client

	mu       sync.Mutex
	cmd      *exec.Cmd
	done     chan struct{} // closed when the process has been reaped
	err      error         // its exit status
	exitAt   time.Time     // when it was reaped
	logf     *os.File
	opts     Options     // how it was started, for a restart
	expected bool        // cometlab itself stopped or killed it
	paused   bool        // stopped by SIGSTOP, not yet continued
	app      *appProcess // the external ABCI app, if any
	release  string      // the release Upgrade gave it ("" before): starts name it
}

// Testnet is a set of node processes.
type Testnet struct {
	Nodes  []*Node
	logger *slog.Logger
}

// Options tune how nodes are started.
type Options struct {
	LogDir string // node logs go to LogDir/<name>.log
	// Detach starts nodes in their own session without tying their life to
	// cometlab's (for `cometlab testnet up`); Stop still stops them.
	Detach bool
	// Events, when set, receives every node process start and exit as it
	// happens, and every signal, link cut and wipe cometlab does to a node
	// (see the results.Event* kinds). It is called from several
	// goroutines, never concurrently for one node's exit and next start.
	Events func(results.Event)
	// Died, when set, is called when a node's process ends that cometlab
	// did not stop or kill (a crash, or a kill from outside), after its
	// exit event.
	Died func(n *Node, st State)
}

// New returns a testnet of the generated homes; nothing runs yet.
func New(homes []cometbft.Home, logger *slog.Logger) *Testnet {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	t := &Testnet{logger: logger}
	for _, h := range homes {
		t.Nodes = append(t.Nodes, &Node{Home: h, RPC: rpc.New(h.RPCAddr())})
	}
	return t
}

// Node returns the node called name, or nil.
func (t *Testnet) Node(name string) *Node {
	for _, n := range t.Nodes {
		if n.Name == name {
			return n
		}
	}
	return nil
}

// Start starts every node but the ephemeral ones, which Node.Restart
// starts when they are wanted, and the late ones (StartAt > 0), which
// StartLate starts. On error the nodes already started are stopped.
func (t *Testnet) Start(opts Options) error {
	if err := os.MkdirAll(opts.LogDir, 0o755); err != nil {
		return err
	}
	seeds, rest := seedsFirst(t.Nodes)
	if err := t.startEach(seeds, opts); err != nil {
		return err
	}
	var addrs []string
	for _, n := range seeds {
		addrs = append(addrs, p2pListen(n))
	}
	if left := waitListening(addrs, seedWait); len(left) > 0 {
		t.logger.Warn("seeds not listening; starting the other nodes all the same", "p2p", left, "after", seedWait)
	}
	return t.startEach(rest, opts)
}

// startEach starts nodes in order (an ephemeral or late node only keeps
// opts); on an error it stops every node started.
func (t *Testnet) startEach(nodes []*Node, opts Options) error {
	for _, n := range nodes {
		if n.startsLater() {
			n.mu.Lock()
			n.opts = opts
			n.mu.Unlock()
			continue
		}
		if err := n.start(opts); err != nil {
			t.Stop(5 * time.Second)
			return fmt.Errorf("start node %s: %w", n.Name, err)
		}
		t.logger.Debug("node started", "node", n.Name, "pid", n.PID(), "rpc", n.RPCAddr())
	}
	return nil
}

// startsLater reports whether Start leaves n to be started later: an
// ephemeral node (Node.Restart starts it) or a late one (StartLate).
func (n *Node) startsLater() bool { return n.Ephemeral || n.StartAt > 0 }

func (n *Node) start(opts Options) error {
	if err := n.startApp(opts); err != nil {
		return err
	}
	n.LogPath = filepath.Join(opts.LogDir, n.Name+".log")
	f, err := os.OpenFile(n.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	n.mu.Lock()
	args, env := n.Command()
	release := ""
	if n.release != "" {
		release = fmt.Sprintf(", cometbft %s %s", n.release, n.Binary)
	}
	n.mu.Unlock()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Env = append(os.Environ(), env...)
	if opts.Detach {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	} else {
		// Own process group: a terminal's Ctrl-C reaches cometlab only, which
		// stops the nodes in order. The parent-death signal (Linux) kills the
		// node if cometlab itself dies without stopping it.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		dieWithParent(cmd.SysProcAttr)
	}
	if err := cmd.Start(); err != nil {
		f.Close()
		return err
	}
	done := make(chan struct{})
	n.mu.Lock()
	n.cmd, n.logf, n.opts = cmd, f, opts
	n.done, n.err, n.exitAt, n.expected, n.paused = done, nil, time.Time{}, false, false
	n.mu.Unlock()
	n.event(results.EventStart, fmt.Sprintf("pid %d%s", cmd.Process.Pid, release))
	go func() {
		err := cmd.Wait()
		at := time.Now()
		n.mu.Lock()
		n.err, n.exitAt = err, at
		expected := n.expected
		n.mu.Unlock()
		f.Close()
		n.eventAt(at, results.EventExit, ExitStatus(err))
		close(done)
		if !expected && opts.Died != nil {
			opts.Died(n, n.State())
		}
	}()
	return nil
}

// PID returns the node's process id, or 0 when it was never started.
func (n *Node) PID() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cmd == nil || n.cmd.Process == nil {
		return 0
	}
	return n.cmd.Process.Pid
}

// ExitStatus says how a process ended, as events.csv records it: "exit
// code N", "signal N", or the wait error.
func ExitStatus(err error) string {
	if err == nil {
		return "exit code 0"
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return fmt.Sprintf("signal %d", int(ws.Signal()))
		}
		return fmt.Sprintf("exit code %d", ee.ExitCode())
	}
	return err.Error()
}

// Exited reports whether the process has ended, and how.
func (n *Node) Exited() (bool, error) {
	n.mu.Lock()
	done := n.done
	n.mu.Unlock()
	if done == nil {
		return false, nil
	}
	select {
	case <-done:
		n.mu.Lock()
		defer n.mu.Unlock()
		return true, n.err
	default:
		return false, nil
	}
}

// Stop stops every node: SIGTERM to all at once, then SIGKILL to those
// still running after grace. It waits until every process is reaped.
func (t *Testnet) Stop(grace time.Duration) {
	var wg sync.WaitGroup
	for _, n := range t.Nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n.stop(grace)
		}()
	}
	wg.Wait()
}

func (n *Node) stop(grace time.Duration) {
	defer n.stopApp(grace)
	n.mu.Lock()
	cmd, done := n.cmd, n.done
	n.mu.Unlock()
	if cmd == nil || done == nil {
		return
	}
	select {
	case <-done:
		return
	default:
	}
	n.mu.Lock()
	n.expected = true
	paused := n.paused
	n.mu.Unlock()
	_ = cmd.Process.Signal(syscall.SIGTERM)
	if paused {
		_ = cmd.Process.Signal(syscall.SIGCONT) // a stopped process cannot act on SIGTERM
	}
	select {
	case <-done:
	case <-time.After(grace):
		_ = cmd.Process.Kill()
		<-done
	}
}

// LogTail returns about the last n lines of the node's log.
func (n *Node) LogTail(lines int) string {
	return fileTail(n.LogPath, lines)
}

func fileTail(path string, lines int) string {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	defer f.Close()
	const max = 16 << 10
	st, err := f.Stat()
	if err != nil {
		return ""
	}
	off := st.Size() - max
	if off < 0 {
		off = 0
	}
	b := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(b, off); err != nil && !errors.Is(err, io.EOF) {
		return ""
	}
	ls := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(ls) > lines {
		ls = ls[len(ls)-lines:]
	}
	return strings.Join(ls, "\n")
}

// WaitHealthy waits until every node has advanced at least two heights
// beyond where it was first seen. The error names the node and quotes the
// end of its log.
func (t *Testnet) WaitHealthy(ctx context.Context, timeout time.Duration) error {
	watched := make([]Watched, len(t.Nodes))
	for i, n := range t.Nodes {
		// Seeds do not run consensus (they only need to be up); ephemeral
		// and late nodes are not started with the others.
		watched[i] = Watched{Name: n.Name, RPC: n.RPC, Skip: n.startsLater() || n.Mode == cometbft.ModeSeed}
	}
	exited := func(i int) error {
		n := t.Nodes[i]
		if n.startsLater() {
			return nil
		}
		if exited, err := n.Exited(); exited {
			return fmt.Errorf("node %s exited during start-up (%v); end of %s:\n%s", n.Name, err, n.LogPath, indent(n.LogTail(15)))
		}
		return nil
	}
	err := WaitAdvanced(ctx, watched, timeout, exited)
	var stall *StallError
	if errors.As(err, &stall) {
		for _, n := range t.Nodes {
			if n.Name == stall.Node {
				return fmt.Errorf("%w; end of %s:\n%s", err, n.LogPath, indent(n.LogTail(15)))
			}
		}
	}
	return err
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}

// NodeRunning reports whether process pid runs and its command line names
// home, the node's home directory: a pid that another process reuses after
// the node ended is not taken for the node.
func NodeRunning(pid int, home string) bool {
	if pid <= 0 || syscall.Kill(pid, 0) != nil {
		return false
	}
	cmdline, err := commandLine(pid)
	return err == nil && strings.Contains(cmdline, home)
}

// StopPIDs stops processes that are not children of this process (a
// testnet started by an earlier `cometlab testnet up`): SIGTERM, then
// SIGKILL after grace.
func StopPIDs(pids []int, grace time.Duration) {
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGTERM)
	}
	deadline := time.Now().Add(grace)
	for _, pid := range pids {
		for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if syscall.Kill(pid, 0) == nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
