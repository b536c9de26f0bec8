package collect

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strconv"
	"syscall"
)

// cpuStat is the host's CPU time from the "cpu" line of /proc/stat (the
// sum over every CPU), in 1/userHZ s, and its number of CPUs.
type cpuStat struct {
	user   uint64 // user time at nice ≤ 0
	nice   uint64 // user time of processes at a positive nice level
	system uint64 // system time, whatever the nice level
	idle   uint64 // idle and iowait time
	irq    uint64 // hardware and software interrupt time
	steal  uint64
	cores  int
}

// busyCores is the host's busy CPU from prev to st, dt seconds apart, in
// cores, counted as busyTicks says. Its amount is what was neither idle
// nor stolen: with a tickless idle (CONFIG_NO_HZ) the kernel measures
// idle time exactly, while it counts user, system and interrupt time by
// sampling at each tick, and a process's time in /proc/<pid>/stat is
// scaled to its exact run time. The sampled counts miss work that runs
// between ticks (a node's many short wake-ups: ~0.1 core of 4 nodes at
// 300 tx/s here, so that other work read below 0), so they only split
// the busy time by kind.
func busyCores(prev, st cpuStat, dt float64, a accounting) float64 {
	total := float64(st.cores) * dt * userHZ
	busy := max(0, total-float64(st.idle-prev.idle)-float64(st.steal-prev.steal))
	if all := busyTicks(prev, st, accounting{countNice: true, irqInTasks: true}); all > 0 {
		busy *= busyTicks(prev, st, a) / all
	}
	return busy / userHZ / dt
}

// accounting says how busy time is counted: countNice counts time at a
// positive nice level, irqInTasks interrupt time (see irqChargedToTasks).
type accounting struct{ countNice, irqInTasks bool }

// busyTicks is the busy time from prev to st. With countNice it is all of
// user, nice and system time; without, niced work is left out: its user
// time (nice) and, since the kernel does not split system time by nice
// level, the share of system time niced work had of user time. With
// irqInTasks, interrupt time counts as system time.
func busyTicks(prev, st cpuStat, a accounting) float64 {
	user, nice, system := float64(st.user-prev.user), float64(st.nice-prev.nice), float64(st.system-prev.system)
	if a.irqInTasks {
		system += float64(st.irq - prev.irq)
	}
	switch {
	case a.countNice:
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
		st.user, st.nice, st.system, st.idle, st.irq, st.steal, found = v[0], v[1], v[2], v[3]+v[4], v[5]+v[6], v[7], true
	}
	if !found {
		return st, fmt.Errorf("/proc/stat: no cpu line")
	}
	return st, nil
}

// irqChargedToTasks says whether the kernel charges interrupt time to the
// task it interrupted as well as to /proc/stat's irq and softirq: it does
// with tick accounting unless CONFIG_IRQ_TIME_ACCOUNTING is set
// (kernel/sched/cputime.c, account_system_index_time). Then a node's
// CPU in /proc/<pid>/stat holds the loopback network's softirq time it
// served, and host busy time must count it too, or other work reads
// short by it (~0.1 core under the QA load). Read from the kernel's
// configuration (/proc/config.gz, else /boot/config-RELEASE); true when
// neither is there (the default of tick accounting).
func irqChargedToTasks() bool { return irqCharged(kernelConfig()) }

// irqCharged is irqChargedToTasks for the kernel configuration cfg, or
// for none when err is set.
func irqCharged(cfg []byte, err error) bool {
	return err != nil || !bytes.Contains(cfg, []byte("\nCONFIG_IRQ_TIME_ACCOUNTING=y\n"))
}

// kernelConfig is the running kernel's build configuration, with a
// newline in front so that every option follows one.
func kernelConfig() ([]byte, error) {
	if f, err := os.Open("/proc/config.gz"); err == nil {
		defer f.Close()
		z, err := gzip.NewReader(f)
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(z)
		return append([]byte{'\n'}, b...), err
	}
	rel, err := os.ReadFile("/proc/sys/kernel/osrelease") // as run.json's host kernel is read
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile("/boot/config-" + string(bytes.TrimSpace(rel)))
	return append([]byte{'\n'}, b...), err
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
