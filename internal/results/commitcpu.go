package results

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
)

// CommitCPUFile holds each local node process's CPU time at the moment its
// node's commit of each height was heard: one row per process and height.
// The CPU a process used between two of its rows is exactly the work of
// the block intervals between them, so a plot drawn from it cannot beat
// against the block interval as fixed-interval samples do (resources.csv).
const CommitCPUFile = "commitcpu.csv"

// CommitCPUHeader is the header row of commitcpu.csv.
const CommitCPUHeader = "height,node,at_ns,pid,cpu_ns"

// CommitCPU is one row of commitcpu.csv. Node is the process's name as in
// resources.csv (a node, or "<node>/app" for its external application,
// read at the node's commit). CPU is the process's user + system time
// since it started (/proc/<pid>/stat, 10-ms ticks): rows of one PID can be
// subtracted; a new PID is a restarted process.
type CommitCPU struct {
	Height int64
	Node   string
	At     int64 // Unix ns, when the commit was heard
	PID    int64
	CPU    int64 // ns of CPU time since the process started
}

// AppendCSV appends the row (without newline).
func (c *CommitCPU) AppendCSV(b []byte) []byte {
	b = strconv.AppendInt(b, c.Height, 10)
	b = append(b, ',')
	b = appendField(b, c.Node)
	b = append(b, ',')
	b = strconv.AppendInt(b, c.At, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, c.PID, 10)
	b = append(b, ',')
	return strconv.AppendInt(b, c.CPU, 10)
}

func (c *CommitCPU) parse(f []string) error {
	if len(f) != 5 {
		return errFields(5, f)
	}
	p := parser{f: f}
	c.Height = p.int(0)
	c.Node = strings.Clone(f[1])
	c.At = p.int(2)
	c.PID = p.int(3)
	c.CPU = p.int(4)
	return p.err
}

// ReadCommitCPU reads dir/commitcpu.csv (or .gz); a run without one (made
// before the file was written, or with no local processes) has no rows
// and no error.
func ReadCommitCPU(dir string) ([]CommitCPU, error) {
	rows, err := readAll[CommitCPU](filepath.Join(dir, CommitCPUFile), CommitCPUHeader)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return rows, err
}
