package collect

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// userHZ is the unit of CPU times in /proc/<pid>/stat (sysconf(_SC_CLK_TCK)),
// 100 on every Linux platform Go runs on.
const userHZ = 100

// procStat is what cometlab reads from /proc/<pid>/stat.
type procStat struct {
	State     byte
	CPUTicks  uint64 // utime + stime, in 1/userHZ s
	StartTime uint64 // since boot, in 1/userHZ s: with the pid, names the process
	RSSPages  int64
}

// parseProcStat decodes /proc/<pid>/stat (proc(5)): "pid (comm) state
// ppid …", where comm may hold spaces and parentheses, so fields are
// counted from the last ')'. utime, stime, starttime and rss are fields
// 14, 15, 22 and 24.
func parseProcStat(b []byte) (procStat, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, errors.New("stat: no ')' after the command name")
	}
	var f [22][]byte // fields 3…24
	n := 0
	for rest := b[i+1:]; n < len(f); n++ {
		rest = bytes.TrimLeft(rest, " ")
		if len(rest) == 0 {
			break
		}
		end := bytes.IndexAny(rest, " \n")
		if end < 0 {
			end = len(rest)
		}
		f[n], rest = rest[:end], rest[end:]
	}
	if n < len(f) {
		return procStat{}, fmt.Errorf("stat: %d fields after the command name, want at least %d", n, len(f))
	}
	num := func(k int) (uint64, error) {
		v, err := strconv.ParseUint(string(f[k-3]), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("stat field %d: %w", k, err)
		}
		return v, nil
	}
	if len(f[0]) != 1 || !('A' <= f[0][0] && f[0][0] <= 'Z' || 'a' <= f[0][0] && f[0][0] <= 'z') {
		return procStat{}, fmt.Errorf("stat: state %q", f[0])
	}
	s := procStat{State: f[0][0]}
	var errs [4]error
	var ut, st, rss uint64
	ut, errs[0] = num(14)
	st, errs[1] = num(15)
	s.StartTime, errs[2] = num(22)
	rss, errs[3] = num(24)
	if err := errors.Join(errs[:]...); err != nil {
		return procStat{}, err
	}
	if rss > 1<<50 {
		return procStat{}, fmt.Errorf("stat: rss %d pages", rss)
	}
	s.CPUTicks, s.RSSPages = ut+st, int64(rss)
	return s, nil
}

// parseLoad1 decodes the first field of /proc/loadavg.
func parseLoad1(b []byte) (float64, error) {
	f := bytes.Fields(b)
	if len(f) == 0 {
		return 0, errors.New("loadavg: empty")
	}
	return strconv.ParseFloat(string(f[0]), 64)
}

// cpuPercent is the CPU a process used between two samples, in % of one
// core: Δ(utime+stime) / userHZ / Δwall × 100 (200 = two cores busy).
func cpuPercent(prevTicks, ticks uint64, wall time.Duration) float64 {
	if wall <= 0 || ticks < prevTicks {
		return 0
	}
	return float64(ticks-prevTicks) / userHZ / wall.Seconds() * 100
}

// DirSize returns the apparent size of the regular files under dir (the sum
// of their lengths, as `du --apparent-size` counts), following no symbolic
// links. Files that vanish during the walk (compaction) are skipped; a dir
// that does not exist has size 0.
func DirSize(dir string) (int64, error) {
	var total int64
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		total += info.Size()
		return nil
	})
	return total, err
}

// countDir counts the entries of a directory (the open descriptors of a
// process under /proc/<pid>/fd).
func countDir(dir string) (int, error) {
	f, err := os.Open(dir)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n := 0
	for {
		names, err := f.Readdirnames(256)
		n += len(names)
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}
