package testnet

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// appProcess is a node's external ABCI app: a process started before the
// node and stopped after it, its output in LogDir/<node>.app.log.
type appProcess struct {
	cmd     *exec.Cmd
	logPath string
	done    chan struct{}
	err     error
}

// appReadyTimeout bounds the wait for an external app to accept
// connections on its port.
const appReadyTimeout = 30 * time.Second

// startApp starts the node's external app, when it has one, and waits
// until it accepts connections on its port; an app that exits or does not
// listen in time is an error quoting its log.
func (n *Node) startApp(opts Options) error {
	if len(n.AppCommand) == 0 {
		return nil
	}
	if opts.Detach {
		return fmt.Errorf("node %s: an external app cannot run in a detached testnet yet (use cometlab run)", n.Name)
	}
	p := &appProcess{logPath: filepath.Join(opts.LogDir, n.Name+".app.log"), done: make(chan struct{})}
	f, err := os.OpenFile(p.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	p.cmd = exec.Command(n.AppCommand[0], n.AppCommand[1:]...)
	p.cmd.Dir = n.Dir
	p.cmd.Stdout, p.cmd.Stderr = f, f
	p.cmd.Env = append(os.Environ(), "COMETLAB_NODE="+n.Name, "COMETLAB_HOME="+n.Dir, "COMETLAB_ABCI_ADDR="+n.AppAddr())
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	dieWithParent(p.cmd.SysProcAttr)
	if err := p.cmd.Start(); err != nil {
		f.Close()
		return fmt.Errorf("node %s: start its app %q: %w", n.Name, n.AppCommand[0], err)
	}
	go func() {
		p.err = p.cmd.Wait()
		f.Close()
		close(p.done)
	}()
	n.mu.Lock()
	n.app = p
	n.mu.Unlock()
	addr := fmt.Sprintf("127.0.0.1:%d", n.AppPort)
	deadline := time.Now().Add(appReadyTimeout)
	for {
		select {
		case <-p.done:
			return fmt.Errorf("node %s: its app exited before listening on %s (%v); the end of %s:\n%s",
				n.Name, addr, p.err, p.logPath, indent(fileTail(p.logPath, 10)))
		default:
		}
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			p.stop(time.Second)
			return fmt.Errorf("node %s: its app did not listen on %s within %s; the end of %s:\n%s",
				n.Name, addr, appReadyTimeout, p.logPath, indent(fileTail(p.logPath, 10)))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// stopApp stops the node's external app, if it has one, after the node.
func (n *Node) stopApp(grace time.Duration) {
	n.mu.Lock()
	p := n.app
	n.mu.Unlock()
	if p != nil {
		p.stop(grace)
	}
}

// AppPID returns the external app's process id, or 0 when the node has
// none running.
func (n *Node) AppPID() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.app == nil || n.app.cmd.Process == nil {
		return 0
	}
	return n.app.cmd.Process.Pid
}

// stop sends SIGTERM, then SIGKILL after grace, and waits until the
// process is reaped.
func (p *appProcess) stop(grace time.Duration) {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}
