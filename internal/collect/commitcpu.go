package collect

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cometlab/cometlab/internal/results"
)

// cpuAtCommit reads the CPU time of a node's local processes each time the
// node's commit of a height is heard (commitcpu.csv): the CPU between two
// rows is then the work of whole block intervals, which fixed-interval
// samples cannot give (a 1-s sample holds one commit's work or none).
type cpuAtCommit struct {
	w       *results.Writer
	procDir string
	byNode  map[string][]Proc // a node's process and its external app's
	rows    atomic.Int64
	failed  atomic.Int64
}

// SampleCPUAtCommits makes h read, as soon as it hears a node commit a
// height, the CPU time of that node's processes among procs (the node's
// own, named as the node, and its application's, "<node>/app"), writing
// one row per process to w (commitcpu.csv). procDir is the proc file
// system ("" means /proc). Call it before Run.
func (h *Heights) SampleCPUAtCommits(w *results.Writer, procs []Proc, procDir string) {
	if procDir == "" {
		procDir = "/proc"
	}
	c := &cpuAtCommit{w: w, procDir: procDir, byNode: map[string][]Proc{}}
	for _, p := range procs {
		if p.Harness || p.PID == nil {
			continue
		}
		node := strings.TrimSuffix(p.Name, "/app")
		c.byNode[node] = append(c.byNode[node], p)
	}
	h.cpu = c
}

// CPUAtCommitRows returns how many commitcpu.csv rows were written and how
// many reads failed (a process not running, or gone).
func (h *Heights) CPUAtCommitRows() (rows, failed int64) {
	if h.cpu == nil {
		return 0, 0
	}
	return h.cpu.rows.Load(), h.cpu.failed.Load()
}

// sample reads node's processes' CPU time, at its commit of height heard
// at at. It runs on the watcher's goroutine: one read of a small file per
// process.
func (c *cpuAtCommit) sample(node string, height int64, at time.Time) {
	for _, p := range c.byNode[node] {
		pid := p.PID()
		if pid <= 0 {
			c.failed.Add(1)
			continue
		}
		b, err := os.ReadFile(filepath.Join(c.procDir, strconv.Itoa(pid), "stat"))
		if err != nil {
			c.failed.Add(1)
			continue
		}
		ps, err := parseProcStat(b)
		if err != nil || ps.State == 'Z' || ps.State == 'X' {
			c.failed.Add(1)
			continue
		}
		cpu := int64(ps.CPUTicks) * int64(time.Second/userHZ)
		c.w.Write(&results.CommitCPU{Height: height, Node: p.Name, At: at.UnixNano(), PID: int64(pid), CPU: cpu})
		c.rows.Add(1)
	}
}
