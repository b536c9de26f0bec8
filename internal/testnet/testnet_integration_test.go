package testnet_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/testnet"
	"github.com/cometlab/cometlab/internal/testnet/testnettest"
)

// binary returns the default cometbft binary, building it if needed.
func binary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts real CometBFT nodes")
	}
	testnettest.LockForTest(t)
	dir, err := cometbft.DefaultCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	f := &cometbft.Fetcher{CacheDir: dir, Progress: os.Stderr}
	bin, err := f.Binary(context.Background(), cometbft.DefaultVersion)
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

func spec(bin string, n int) cometbft.Spec {
	s := cometbft.Spec{ChainID: "test", App: "kvstore"}
	for i := range n {
		s.Nodes = append(s.Nodes, cometbft.NodeSpec{Name: fmt.Sprintf("validator%02d", i+1), Mode: cometbft.ModeValidator, Power: 1, Binary: bin})
	}
	return s
}

func alive(pid int) bool {
	// A reaped process is gone; signal 0 checks existence.
	return syscall.Kill(pid, 0) == nil
}

func TestStartHealthyStop(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	homes, err := cometbft.Generate(context.Background(), dir+"/nodes", spec(bin, 4))
	if err != nil {
		t.Fatal(err)
	}
	tn := testnet.New(homes, nil)
	if err := tn.Start(testnet.Options{LogDir: dir + "/logs"}); err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, n := range tn.Nodes {
		pids = append(pids, n.PID())
	}
	defer tn.Stop(5 * time.Second)
	if err := tn.WaitHealthy(context.Background(), 60*time.Second); err != nil {
		t.Fatal(err)
	}
	tn.Stop(10 * time.Second)
	for i, pid := range pids {
		if alive(pid) {
			t.Errorf("node %d (pid %d) still running after Stop", i, pid)
		}
	}
}

func TestUnhealthyNodeNamed(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	s := spec(bin, 2)
	// Two validators of equal power: with one of them broken the chain
	// cannot advance. Break validator02's genesis after generation.
	homes, err := cometbft.Generate(context.Background(), dir+"/nodes", s)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(homes[1].Dir+"/config/genesis.json", []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	tn := testnet.New(homes, nil)
	if err := tn.Start(testnet.Options{LogDir: dir + "/logs"}); err != nil {
		t.Fatal(err)
	}
	defer tn.Stop(5 * time.Second)
	err = tn.WaitHealthy(context.Background(), 20*time.Second)
	if err == nil {
		t.Fatal("want an error for a node that cannot start")
	}
	if !strings.Contains(err.Error(), "validator02") {
		t.Errorf("error does not name the node: %v", err)
	}
	t.Log(err)
}

// TestPortInUse occupies a node's RPC port before start: the error names
// the node and quotes its log, and nothing is left running.
func TestPortInUse(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	homes, err := cometbft.Generate(context.Background(), dir+"/nodes", spec(bin, 2))
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", homes[1].RPCPort))
	if err != nil {
		testnettest.Prereq(t, "cannot occupy the port: %v", err)
	}
	defer l.Close()
	tn := testnet.New(homes, nil)
	if err := tn.Start(testnet.Options{LogDir: dir + "/logs"}); err != nil {
		t.Fatal(err)
	}
	pids := []int{tn.Nodes[0].PID(), tn.Nodes[1].PID()}
	err = tn.WaitHealthy(context.Background(), 20*time.Second)
	tn.Stop(5 * time.Second)
	if err == nil || !strings.Contains(err.Error(), "validator02") || !strings.Contains(err.Error(), "address already in use") {
		t.Errorf("want an error naming validator02 and the port clash, got %v", err)
	}
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("pid %d still running", pid)
		}
	}
}

// TestNodeRunning: a live process whose command line names the home is
// the node; one that does not, or has ended, is not. It starts sleep(1).
func TestNodeRunning(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		testnettest.Prereq(t, "no sleep(1): %v", err)
	}
	pid := cmd.Process.Pid
	// Right after the exec its command line may still be empty.
	found := false
	for range 100 {
		if found = testnet.NodeRunning(pid, "sleep"); found {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !found {
		t.Errorf("pid %d running sleep: not found", pid)
	}
	if testnet.NodeRunning(pid, "/no/such/home") {
		t.Errorf("pid %d taken for a node it does not run", pid)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if testnet.NodeRunning(pid, "sleep") {
		t.Errorf("pid %d still taken for a node after it ended", pid)
	}
	if testnet.NodeRunning(0, "sleep") || testnet.NodeRunning(-1, "sleep") {
		t.Error("pid ≤ 0 taken for a node")
	}
}
