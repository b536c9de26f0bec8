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
	"github.com/cometlab/cometlab/internal/rpc"
)

// Node is one running (or stopped) node process.
type Node struct {
	cometbft.Home
	LogPath string
	RPC     *rpc.Client

	mu     sync.Mutex
	cmd    *exec.Cmd
	done   chan struct{} // closed when the process has been reaped
	err    error         // its exit status
	logf   *os.File
	detach bool
	app    *appProcess // the external ABCI app, if any
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

// Start starts every node. On error the nodes already started are stopped.
func (t *Testnet) Start(opts Options) error {
	if err := os.MkdirAll(opts.LogDir, 0o755); err != nil {
		return err
	}
	for _, n := range t.Nodes {
		if err := n.start(opts); err != nil {
			t.Stop(5 * time.Second)
			return fmt.Errorf("start node %s: %w", n.Name, err)
		}
		t.logger.Debug("node started", "node", n.Name, "pid", n.PID(), "rpc", n.RPCAddr())
	}
	return nil
}

func (n *Node) start(opts Options) error {
	if err := n.startApp(opts); err != nil {
		return err
	}
	n.LogPath = filepath.Join(opts.LogDir, n.Name+".log")
	f, err := os.OpenFile(n.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	args, env := n.Command()
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
	n.mu.Lock()
	n.cmd, n.logf, n.detach = cmd, f, opts.Detach
	n.done = make(chan struct{})
	n.mu.Unlock()
	go func() {
		err := cmd.Wait()
		n.mu.Lock()
		n.err = err
		n.mu.Unlock()
		f.Close()
		close(n.done)
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
	_ = cmd.Process.Signal(syscall.SIGTERM)
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
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	first := make(map[string]int64)
	last := make(map[string]int64)
	lastErr := make(map[string]error)
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		healthy := 0
		for _, n := range t.Nodes {
			if exited, err := n.Exited(); exited {
				return fmt.Errorf("node %s exited during start-up (%v); end of %s:\n%s", n.Name, err, n.LogPath, indent(n.LogTail(15)))
			}
			if n.Mode == cometbft.ModeSeed {
				healthy++ // seeds do not run consensus; they only need to be up
				continue
			}
			cctx, ccancel := context.WithTimeout(ctx, 2*time.Second)
			h, err := n.RPC.Height(cctx)
			ccancel()
			lastErr[n.Name] = err
			if err != nil {
				continue
			}
			last[n.Name] = h
			if _, ok := first[n.Name]; !ok && h > 0 {
				first[n.Name] = h
			}
			if f, ok := first[n.Name]; ok && h >= f+2 {
				healthy++
			}
		}
		if healthy == len(t.Nodes) {
			return nil
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.Canceled) {
				return ctx.Err()
			}
			for _, n := range t.Nodes {
				if n.Mode == cometbft.ModeSeed {
					continue
				}
				f, ok := first[n.Name]
				if ok && last[n.Name] >= f+2 {
					continue
				}
				why := fmt.Sprintf("at height %d", last[n.Name])
				if e := lastErr[n.Name]; e != nil {
					why = "RPC not answering: " + e.Error()
				}
				return fmt.Errorf("node %s did not advance two heights within %s (%s); end of %s:\n%s",
					n.Name, timeout, why, n.LogPath, indent(n.LogTail(15)))
			}
			return ctx.Err()
		case <-tick.C:
		}
	}
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
