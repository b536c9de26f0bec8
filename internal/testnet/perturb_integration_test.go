package testnet_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/cometbft"
	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/testnet"
)

// eventSink collects a testnet's events.
type eventSink struct {
	mu  sync.Mutex
	evs []results.Event
}

func (s *eventSink) add(e results.Event) {
	s.mu.Lock()
	s.evs = append(s.evs, e)
	s.mu.Unlock()
}

// kinds returns node's events as "kind detail" lines, pids blanked.
func (s *eventSink) kinds(node string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, e := range s.evs {
		if e.Node != node {
			continue
		}
		d := e.Detail
		if e.Kind == results.EventStart {
			d = "pid"
		}
		if e.Kind == results.EventWipe {
			d = "data"
		}
		out = append(out, e.Kind+" "+d)
	}
	return out
}

// waitFor polls cond for up to d.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("%s: not within %s", what, d)
}

// TestNodeLifeAndPerturbations runs four validators and, on validator04:
// an outside SIGKILL (a node dying on its own: Died is called, the exit
// is "signal 9", Down says "killed by signal 9"), a restart, a pause and
// resume, and a SIGTERM, wipe and restart that rejoins by block sync. The
// events of each step are checked in order.
func TestNodeLifeAndPerturbations(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	homes, err := cometbft.Generate(context.Background(), dir+"/nodes", spec(bin, 4))
	if err != nil {
		t.Fatal(err)
	}
	tn := testnet.New(homes, nil)
	var sink eventSink
	died := make(chan testnet.State, 1)
	opts := testnet.Options{LogDir: dir + "/logs", Events: sink.add, Died: func(n *testnet.Node, st testnet.State) { died <- st }}
	if err := tn.Start(opts); err != nil {
		t.Fatal(err)
	}
	defer tn.Stop(5 * time.Second)
	ctx := context.Background()
	if err := tn.WaitHealthy(ctx, 60*time.Second); err != nil {
		t.Fatal(err)
	}
	n := tn.Node("validator04")
	t0 := time.Now()

	// Killed from outside: a death cometlab did not cause.
	if err := syscall.Kill(n.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case st := <-died:
		if st.Status != "signal 9" || st.Expected {
			t.Errorf("died: %+v", st)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Died not called for an outside kill")
	}
	if down, why := n.State().Down(t0); !down || !strings.Contains(why, "killed by signal 9") {
		t.Errorf("Down = %v, %q", down, why)
	}
	if err := n.Pause(); err == nil {
		t.Error("Pause of a dead node: no error")
	}
	if err := n.Restart(); err != nil {
		t.Fatal(err)
	}
	height := func() int64 { h, _ := n.RPC.Height(ctx); return h }
	other := func() int64 { h, _ := tn.Node("validator01").RPC.Height(ctx); return h }
	waitFor(t, 30*time.Second, "validator04 back at the tip", func() bool { h := height(); return h > 0 && h >= other()-1 })

	// Pause and resume: the process stays, answers nothing while paused.
	pid := n.PID()
	if err := n.Pause(); err != nil {
		t.Fatal(err)
	}
	if down, why := n.State().Down(t0); !down || why != "paused" {
		t.Errorf("paused: Down = %v, %q", down, why)
	}
	cctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	if _, err := n.RPC.Height(cctx); err == nil {
		t.Error("a paused node answered")
	}
	cancel()
	if err := n.Resume(); err != nil {
		t.Fatal(err)
	}
	if n.PID() != pid {
		t.Error("pause changed the pid")
	}
	waitFor(t, 30*time.Second, "validator04 answers after resume", func() bool { return height() >= other()-1 })

	// Wipe: SIGTERM, delete data, start again; it block-syncs from height 1.
	if err := n.Wipe(); err == nil {
		t.Error("Wipe of a running node: no error")
	}
	if err := n.Terminate(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	if err := n.Wipe(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(n.Dir, "data", "blockstore.db")); !os.IsNotExist(err) {
		t.Errorf("blockstore survived the wipe: %v", err)
	}
	if _, err := os.Stat(filepath.Join(n.Dir, "data", "priv_validator_state.json")); err != nil {
		t.Errorf("signing state not kept: %v", err)
	}
	if err := n.Restart(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 60*time.Second, "wiped validator04 back at the tip", func() bool { h := height(); return h > 0 && h >= other()-1 })
	if len(died) > 0 {
		t.Errorf("Died called for a stop cometlab made: %+v", <-died)
	}

	want := []string{"start pid", "exit signal 9", "start pid", "pause SIGSTOP", "resume SIGCONT",
		"term SIGTERM", "exit exit code 0", "wipe data", "start pid"}
	if got := sink.kinds("validator04"); !slices.Equal(got, want) {
		t.Errorf("events of validator04:\n got %q\nwant %q", got, want)
	}
	if got := sink.kinds("validator01"); !slices.Equal(got, []string{"start pid"}) {
		t.Errorf("events of validator01: %q", got)
	}
}
