package collect

import (
	"bytes"
	"fmt"
	"strconv"
	"syscall"
)

// cpuStat is the host's CPU time from the "cpu" line of /proc/stat (the
// sum over every CPU), in 1/userHZ s, and its number of CPUs.
type cpuStat struct {
	user   uint64 // user time at nice ≤ 0
	nice   uint64 // user time of processes at a positive nice level
	system uint64 // system time, whatever the nice level
	steal  uint64
	cores  int
}

// busyTicks is the busy time from prev to st. With countNice it is all of
// user, nice and system time; without, niced work is left out: its user
// time (nice) and, since the kernel does not split system time by nice
// level, the share of system time niced work had of user time.
func busyTicks(prev, st cpuStat, countNice bool) float64 {
	user, nice, system := float64(st.user-prev.user), float64(st.nice-prev.nice), float64(st.system-prev.system)
	switch {
	case countNice:
		return user + nice + system
	case user+nice > 0:
		return user + system*user/(user+nice)
	}
	return system
}

// parseCPUStat decodes /proc/stat (proc(5)): the first line is "cpu user
// nice system idle iowait irq softirq steal guest guest_nice" in
// 1/userHZ s (kernels before 2.6.11 stop before steal: 0); each "cpuN"
// line is one CPU. Guest time is counted in user already.
func parseCPUStat(b []byte) (cpuStat, error) {
	var st cpuStat
	found := false
	for line := range bytes.SplitSeq(b, []byte{'\n'}) {
		f := bytes.Fields(line)
		if len(f) == 0 || !bytes.HasPrefix(f[0], []byte("cpu")) {
			continue
		}
		if len(f[0]) > 3 {
			st.cores++
			continue
		}
		if len(f) < 5 {
			return st, fmt.Errorf("/proc/stat: cpu line with %d fields, want at least 4 times", len(f)-1)
		}
		var v [8]uint64
		for i := 1; i < len(f) && i <= len(v); i++ {
			n, err := strconv.ParseUint(string(f[i]), 10, 64)
			if err != nil {
				return st, fmt.Errorf("/proc/stat: cpu field %d: %w", i, err)
			}
			v[i-1] = n
		}
		st.user, st.nice, st.system, st.steal, found = v[0], v[1], v[2], v[7], true
	}
	if !found {
		return st, fmt.Errorf("/proc/stat: no cpu line")
	}
	return st, nil
}

// ownNice is this process's nice level (0 when it cannot be read).
func ownNice() int {
	// getpriority(2) returns 20 - nice on Linux (1 … 40).
	p, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	if err != nil {
		return 0
	}
	return 20 - p
}
