package collect

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/results"
)

// TestCPUAtCommits reads a fake /proc at three commits: the node's own and
// its app's process each get a row with the CPU in ns (ticks × 10 ms);
// a process not running (pid 0) or gone gets none and counts
// as failed; the harness and other nodes' processes are not read.
func TestCPUAtCommits(t *testing.T) {
	dir := t.TempDir()
	node := &fakeProc{t: t, dir: dir, pid: 77}
	app := &fakeProc{t: t, dir: dir, pid: 78}
	out := t.TempDir()
	w, err := results.Create(filepath.Join(out, results.CommitCPUFile), results.CommitCPUHeader)
	if err != nil {
		t.Fatal(err)
	}
	appPID := 78
	h := NewHeights(nil, nil, nil)
	h.SampleCPUAtCommits(w, []Proc{
		{Name: "validator01", PID: func() int { return node.pid }},
		{Name: "validator01/app", PID: func() int { return appPID }},
		{Name: "validator02", PID: func() int { t.Error("validator02 read at validator01's commit"); return 0 }},
		{Name: results.HarnessProcess, PID: func() int { t.Error("harness read"); return 0 }, Harness: true},
	}, dir)
	t0 := time.Unix(1000, 0)
	node.set(100, 5, 10, 0)
	app.set(7, 5, 10, 0)
	h.cpu.sample("validator01", 5, t0)
	node.set(130, 5, 10, 0)
	appPID = 0 // the app stopped
	h.cpu.sample("validator01", 6, t0.Add(1200*time.Millisecond))
	if err := os.RemoveAll(filepath.Join(dir, "77")); err != nil {
		t.Fatal(err)
	}
	h.cpu.sample("validator01", 7, t0.Add(2400*time.Millisecond)) // gone
	h.cpu.sample("validator09", 7, t0)                            // not a local node: nothing
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := results.ReadCommitCPU(out)
	if err != nil {
		t.Fatal(err)
	}
	want := []results.CommitCPU{
		{Height: 5, Node: "validator01", At: t0.UnixNano(), PID: 77, CPU: 1_000_000_000},
		{Height: 5, Node: "validator01/app", At: t0.UnixNano(), PID: 78, CPU: 70_000_000},
		{Height: 6, Node: "validator01", At: t0.Add(1200 * time.Millisecond).UnixNano(), PID: 77, CPU: 1_300_000_000},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows:\n got  %+v\n want %+v", got, want)
	}
	if rows, failed := h.CPUAtCommitRows(); rows != 3 || failed != 3 {
		t.Errorf("rows %d, failed %d; want 3, 3", rows, failed)
	}
}
