package collect

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/results"
	"github.com/cometlab/cometlab/internal/results/resultstest"
)

// procStatText is a /proc/stat with two CPUs whose "cpu" line has the
// given user, system, idle and steal ticks (12 of iowait, 7 of softirq).
func procStatText(user, system, idle, steal uint64) string {
	return procStatNice(user, 0, system, idle, steal)
}

// procStatNice is procStatText with nice ticks too.
func procStatNice(user, nice, system, idle, steal uint64) string {
	return fmt.Sprintf("cpu  %d %d %d %d 12 0 7 %d 0 0\ncpu0 1 0 1 1 0 0 0 0 0 0\ncpu1 1 0 1 1 0 0 0 0 0 0\nintr 1 2 3\nctxt 99\n",
		user, nice, system, idle, steal)
}

func TestParseCPUStat(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want cpuStat
		err  bool
	}{
		{in: procStatText(100, 50, 900, 9), want: cpuStat{user: 100, system: 50, idle: 912, irq: 7, steal: 9, cores: 2}},
		{in: procStatNice(100, 70, 50, 900, 9), want: cpuStat{user: 100, nice: 70, system: 50, idle: 912, irq: 7, steal: 9, cores: 2}},
		{in: "cpu 1 2 3 4 5 6 7 8 9 10\n", want: cpuStat{user: 1, nice: 2, system: 3, idle: 4 + 5, irq: 6 + 7, steal: 8}}, // idle + iowait, irq + softirq
		{in: "cpu 1 2 3 4\ncpu0 1 2 3 4\n", want: cpuStat{user: 1, nice: 2, system: 3, idle: 4, cores: 1}},                // an old kernel: no steal
		{in: "intr 1\n", err: true},
		{in: "cpu 1 x 3 4 5\n", err: true},
		{in: "cpu 1 2\n", err: true},
	} {
		got, err := parseCPUStat([]byte(tc.in))
		if (err != nil) != tc.err || (!tc.err && got != tc.want) {
			t.Errorf("parseCPUStat(%q) = %+v, %v; want %+v (error %v)", tc.in, got, err, tc.want, tc.err)
		}
	}
}

// TestHostSamples: recorded /proc samples with a known answer. Over 2 s
// (400 ticks of 2 CPUs) the host's CPUs were idle 80 ticks and stolen 20:
// busy 300 ticks (1.5 cores, as user and system ticks say), a node took 100 ticks
// (0.5 core), cometlab 10 (0.05 core): other work took 0.95 core, 47.5 %
// of the 2 cores; 20 ticks of steal are 0.1 core.
func TestHostSamples(t *testing.T) {
	dir := t.TempDir()
	node := &fakeProc{t: t, dir: dir, pid: 77}
	self := &fakeProc{t: t, dir: dir, pid: 78}
	resultstest.WriteFile(t, filepath.Join(dir, "loadavg"), []byte("2.50 1.00 0.50 2/300 999\n"))
	out := t.TempDir()
	w, err := results.Create(filepath.Join(out, results.ResourceFile), results.ResourcesHeader)
	if err != nil {
		t.Fatal(err)
	}
	hw, err := results.Create(filepath.Join(out, results.HostFile), results.HostHeader)
	if err != nil {
		t.Fatal(err)
	}
	r := NewResources([]Proc{{Name: "validator01", PID: func() int { return 77 }}, {Name: "cometlab", PID: func() int { return 78 }, Harness: true}},
		ResourceConfig{Interval: time.Second, ProcDir: dir, Host: hw}, w, nil)
	t0 := time.Unix(1000, 0)
	node.set(100, 5, 10, 3)
	self.set(40, 5, 10, 3)
	resultstest.WriteFile(t, filepath.Join(dir, "stat"), []byte(procStatText(1000, 500, 90000, 30)))
	r.sample(t0) // baselines
	node.set(200, 5, 10, 3)
	self.set(50, 5, 10, 3)
	resultstest.WriteFile(t, filepath.Join(dir, "stat"), []byte(procStatText(1200, 600, 90080, 50)))
	r.sample(t0.Add(2 * time.Second))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := hw.Close(); err != nil {
		t.Fatal(err)
	}
	hs, err := results.ReadHost(out)
	if err != nil {
		t.Fatal(err)
	}
	want := results.HostSample{Time: t0.Add(2 * time.Second).UnixNano(), Cores: 2, Busy: 1.5, Steal: 0.1, Testnet: 0.5, Harness: 0.05, Load1: 2.5}
	if len(hs) != 1 || hs[0] != want {
		t.Fatalf("host rows %+v, want [%+v]", hs, want)
	}
	if o := hs[0].Other() / float64(hs[0].Cores); o < 0.4749 || o > 0.4751 {
		t.Errorf("other work %.4f of the cores, want 0.475", o)
	}
	rows, err := results.ReadResources(out)
	if err != nil || len(rows) != 2 || rows[0].Node != "validator01" || rows[1].Node != "cometlab" || rows[1].CPU < 4.99 || rows[1].CPU > 5.01 {
		t.Errorf("resources.csv %+v, %v: want validator01's row and cometlab's at 5 %% of a core", rows, err)
	}
}

// TestHostNice: time at a positive nice level (a niced build beside the
// testnet) is not other work when cometlab runs at nice 0. Over 2 s (400
// ticks of 2 CPUs) the host was idle 100 ticks, and its tick counts were
// 150 nice, 50 user (nice 0) and 100 system: the niced work had 3/4 of the
// user time, so 3/4 of the system time is taken as its too, and of the
// 300 busy ticks 50 + 25 count: 0.375 core. Niced itself, cometlab counts
// them all: 1.5 cores.
func TestHostNice(t *testing.T) {
	for _, c := range []struct {
		countNice bool
		busy      float64
	}{{false, 0.375}, {true, 1.5}} {
		dir := t.TempDir()
		hw, err := results.Create(filepath.Join(dir, results.HostFile), results.HostHeader)
		if err != nil {
			t.Fatal(err)
		}
		r := NewResources(nil, ResourceConfig{Interval: time.Second, ProcDir: dir, Host: hw}, nil, nil)
		r.acct = accounting{countNice: c.countNice}
		t0 := time.Unix(1000, 0)
		resultstest.WriteFile(t, filepath.Join(dir, "stat"), []byte(procStatNice(1000, 100, 500, 9000, 0)))
		r.sampleHost(t0, 0, 0, 0)
		resultstest.WriteFile(t, filepath.Join(dir, "stat"), []byte(procStatNice(1050, 250, 600, 9100, 0)))
		r.sampleHost(t0.Add(2*time.Second), 0, 0, 0)
		if err := hw.Close(); err != nil {
			t.Fatal(err)
		}
		hs, err := results.ReadHost(dir)
		if err != nil || len(hs) != 1 || hs[0].Busy != c.busy {
			t.Errorf("count nice %v: host rows %+v, %v; want busy %v cores", c.countNice, hs, err, c.busy)
		}
	}
}

// TestBusyCores: the amount of busy time is what was neither idle nor
// stolen; the tick counts only split it by kind. Over 1 s of 2 CPUs (200
// ticks) ticks saw 50 user and 50 system (0.5 core) while idle grew by
// only 80 ticks: 1.2 cores were busy.
func TestBusyCores(t *testing.T) {
	prev := cpuStat{cores: 2}
	for _, c := range []struct {
		name string
		st   cpuStat
		acct accounting
		want float64
	}{
		{"ticks miss short bursts", cpuStat{user: 50, system: 50, idle: 80, cores: 2}, accounting{}, 1.2},
		{"steal is not busy", cpuStat{user: 50, system: 50, idle: 80, steal: 20, cores: 2}, accounting{}, 1.0},
		{"niced half of the user time", cpuStat{user: 50, nice: 50, system: 100, idle: 80, cores: 2}, accounting{}, 0.6},
		{"interrupts left out", cpuStat{user: 50, system: 30, irq: 20, idle: 100, cores: 2}, accounting{}, 0.8},
		{"interrupts charged to tasks", cpuStat{user: 50, system: 30, irq: 20, idle: 100, cores: 2}, accounting{irqInTasks: true}, 1.0},
		{"no tick saw work", cpuStat{idle: 190, cores: 2}, accounting{}, 0.1},
		{"idle past the interval", cpuStat{idle: 250, cores: 2}, accounting{}, 0},
	} {
		if got := busyCores(prev, c.st, 1, c.acct); got < c.want-1e-9 || got > c.want+1e-9 {
			t.Errorf("%s: busyCores = %v, want %v", c.name, got, c.want)
		}
	}
}

func FuzzParseCPUStat(f *testing.F) {
	f.Add([]byte(procStatText(1, 2, 3, 4)))
	f.Add([]byte("cpu 1 2 3 4\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := parseCPUStat(b)
		if err == nil && st.cores < 0 {
			t.Fatalf("%q: %d cores", b, st.cores)
		}
	})
}

// TestBusyTicks: niced work's share of system time follows its share of
// user time; without niced work every tick counts.
func TestBusyTicks(t *testing.T) {
	zero := cpuStat{}
	for _, c := range []struct {
		name string
		st   cpuStat
		acct accounting
		want float64
	}{
		{"no niced work", cpuStat{user: 100, system: 50}, accounting{}, 150},
		{"only niced work", cpuStat{nice: 400, system: 100}, accounting{}, 0},
		{"half niced", cpuStat{user: 100, nice: 100, system: 100}, accounting{}, 150},
		{"system time alone", cpuStat{system: 30}, accounting{}, 30},
		{"niced itself: all of it", cpuStat{user: 100, nice: 100, system: 100}, accounting{countNice: true}, 300},
		{"interrupts left out", cpuStat{user: 100, system: 50, irq: 20}, accounting{}, 150},
		{"interrupts charged to tasks", cpuStat{user: 100, system: 50, irq: 20}, accounting{irqInTasks: true}, 170},
		{"interrupts of niced work", cpuStat{user: 100, nice: 100, system: 100, irq: 100}, accounting{irqInTasks: true}, 200},
	} {
		if got := busyTicks(zero, c.st, c.acct); got != c.want {
			t.Errorf("%s: busyTicks = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestIRQCharged: interrupt time is in the tasks' time unless the kernel
// accounts it apart (CONFIG_IRQ_TIME_ACCOUNTING=y); without a
// configuration to read, tick accounting's default.
func TestIRQCharged(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  string
		err  error
		want bool
	}{
		{"tick accounting", "\nCONFIG_TICK_CPU_ACCOUNTING=y\n# CONFIG_IRQ_TIME_ACCOUNTING is not set\nCONFIG_HAVE_IRQ_TIME_ACCOUNTING=y\n", nil, true},
		{"irq time accounted apart", "\nCONFIG_TICK_CPU_ACCOUNTING=y\nCONFIG_IRQ_TIME_ACCOUNTING=y\n", nil, false},
		{"no configuration", "", os.ErrNotExist, true},
	} {
		if got := irqCharged([]byte(c.cfg), c.err); got != c.want {
			t.Errorf("%s: irqCharged = %v, want %v", c.name, got, c.want)
		}
	}
}
